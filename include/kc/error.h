/* kc — error codes.
 *
 * Every fallible kc call returns 0 on success or one of the negative codes
 * below.  The list is the one place where codes, their names and their
 * messages live; codes are never renumbered, new ones are appended.
 * kc_strerror() gives the message, kc_err_name() the name, and
 * kc_last_error() (kc.h) the detail of the most recent failure on the
 * calling thread (which file, which kernel, the JIT log ...).
 */
#ifndef KC_ERROR_H
#define KC_ERROR_H

#define KC_ERRNO_MAP(X)                                                        \
  X(INVAL, -1, "invalid argument")                                             \
  X(NOMEM, -2, "out of memory")                                                \
  X(NOINIT, -3, "kc is not initialized (call kc_init first)")                  \
  X(NOBACKEND, -4, "no such backend")                                          \
  X(PLUGIN, -5, "plugin could not be loaded")                                  \
  X(ABI, -6, "plugin ABI mismatch")                                            \
  X(NODEV, -7, "no usable device")                                             \
  X(NOKERNEL, -8, "no such kernel")                                            \
  X(EXIST, -9, "already registered")                                           \
  X(NOTSUP, -10, "operation not supported by this backend")                    \
  X(JIT, -11, "device code failed to compile")                                 \
  X(LAUNCH, -12, "kernel launch failed")                                       \
  X(DEVICE, -13, "device error")                                               \
  X(NOTKC, -14, "pointer is not a live kc allocation")                         \
  X(RANGE, -15, "invalid iteration range")                                     \
  X(STICKY, -16, "device context unusable after an earlier fatal error")       \
  X(SIGNATURE, -17, "kernel signature does not match the arguments")           \
  X(SCRATCH, -18, "scratch memory request exceeds what the device offers")     \
  X(INTERNAL, -19, "internal error")

enum kc_errno {
#define KC__ERR_ENUM(name, code, msg) KC_E##name = (code),
  KC_ERRNO_MAP(KC__ERR_ENUM)
#undef KC__ERR_ENUM
};

#endif
