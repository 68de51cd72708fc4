/* libkc — what an MPI or Slurm launcher tells a process about its place on
 * its node, and the choices kc makes from it: the device of a backend with
 * several devices, and a host backend's share of a node whose ranks the
 * launcher did not bind.  doc/mpi.md is the user's side of this. */
#ifndef KC_LIBKC_LAUNCHER_H
#define KC_LIBKC_LAUNCHER_H

#include "internal.h"

/* The node-local rank, from the first launcher variable set to a number
 * (in the order of doc/mpi.md: Open MPI, MVAPICH, MPICH/Intel MPI, Slurm,
 * PMI, Cray PALS); a set but malformed one is skipped.  rank is -1 when
 * none is set; size (ranks on this node, from the same launcher) is 0
 * when it does not say, says it malformed, or names fewer ranks than
 * rank + 1.  With `notes`, each variable skipped or size ignored gets a
 * KC_VERBOSE note (kc__device_choose asks for them, once per backend
 * started; kc_host_rank_share reads quietly). */
typedef struct kc__local_rank {
  int rank;
  int size;
  const char *var;      /* the variable that gave rank, or NULL */
  const char *size_var; /* the variable that gave size, or NULL */
} kc__local_rank;

void kc__local_rank_get(kc__local_rank *out, int notes) KC__HIDDEN;

/* The device a backend offering `ndevices` (>= 1) uses: KC_DEVICE when
 * set; else, unless KC_DEVICE_MAP=none, the node-local rank modulo
 * ndevices; else 0.  Fills *device and `why` (what chose it, for
 * kc_info.device_from and KC_VERBOSE).  Errors, with the detail set:
 * KC_EINVAL (KC_DEVICE_MAP not local-rank or none, checked first, even
 * when KC_DEVICE is set; KC_DEVICE not a number), KC_ENODEV (KC_DEVICE
 * past the last device; *device is then 0: the caller decides whether
 * the backend has a device at all, see start_backend in init.c). */
int kc__device_choose(const char *backend, const char *path, int ndevices,
                      int *device, char *why, size_t whylen) KC__HIDDEN;

#endif
