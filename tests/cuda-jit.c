/* PTX problems on the CUDA backend give errors that say what to do:
 *  - a PTX that does not compile: KC_EJIT, and kc_last_error() carries the
 *    JIT's own log (here: the line and the syntax error);
 *  - a kernel registered without PTX (host only): KC_ENOKERNEL naming the
 *    kernel and telling to rebuild it with kcc and a PTX compiler;
 *  - a PTX without the entries kernel.h generates: KC_ENOKERNEL naming the
 *    missing entry.
 * A failed preparation is retried at the next launch and fails the same way.
 * Run as cuda-jit.cuda; SKIPs without a CUDA device. */
#include "kc-test.h"

static const char broken_ptx[] =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    ".visible .entry kc_broken__kcg(.param .align 8 .b8 a[72],\n"
    "                               .param .u64 f)\n"
    "{\n"
    "  this_is_not_an_instruction %r1;\n"
    "  ret;\n"
    "}\n";

static const char noentry_ptx[] = ".version 7.0\n"
                                  ".target sm_70\n"
                                  ".address_size 64\n"
                                  ".visible .entry something_else()\n"
                                  "{\n"
                                  "  ret;\n"
                                  "}\n";

static void host_fn(const void *f, kc_index b, kc_index e) {
  (void)f;
  (void)b;
  (void)e;
}

static kc_kernel *reg(const char *name, const char *ptx, int host) {
  kc_kernel_desc d;
  kc_kernel *k = NULL;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.name = name;
  d.kind = KC_KERNEL_FOR;
  d.ptx = ptx;
  d.host = host ? (void (*)(void))host_fn : NULL;
  KC_REQUIRE_OK(kc_kernel_register(&d, &k));
  return k;
}

int main(void) {
  kc_kernel *broken = reg("kc_broken", broken_ptx, 0);
  kc_kernel *hostonly = reg("kc_hostonly", NULL, 1);
  kc_kernel *noentry = reg("kc_noentry", noentry_ptx, 0);
  kc_test_init_backend();
  int64_t f = 0;
  kc_policy p = kc_range(0, 10);
  for (int round = 0; round < 2; round++) {
    KC_CHECK_ERR(kc_parallel_for(NULL, broken, &p, &f, sizeof f), KC_EJIT);
    KC_CHECK_CONTAINS(kc_last_error(), "kc_broken");
    KC_CHECK_CONTAINS(kc_last_error(), "JIT log");
    KC_CHECK_CONTAINS(kc_last_error(), "this_is_not_an_instruction");
    KC_INFO("broken PTX: %s", kc_last_error());

    KC_CHECK_ERR(kc_parallel_for(NULL, hostonly, &p, &f, sizeof f),
                 KC_ENOKERNEL);
    KC_CHECK_CONTAINS(kc_last_error(), "kernel 'kc_hostonly' has no PTX");
    KC_CHECK_CONTAINS(kc_last_error(), "kcc");

    KC_CHECK_ERR(kc_parallel_for(NULL, noentry, &p, &f, sizeof f),
                 KC_ENOKERNEL);
    KC_CHECK_CONTAINS(kc_last_error(), "kc_noentry__kcg");
  }
  /* The backend still works after all that. */
  void *d = kc_test_dalloc(64, "after");
  KC_CHECK_OK(kc_memset(d, 0, 64));
  KC_CHECK_OK(kc_fence());
  KC_CHECK_OK(kc_free(d));
  return kc_test_finish();
}
