/* Failures on the CUDA backend are reported, not fatal to the process:
 *  - an allocation larger than the device: KC_ENOMEM naming the space and
 *    the driver call (device and managed memory);
 *  - a kernel that writes through a bad pointer: the fault surfaces at the
 *    next synchronising call as KC_ESTICKY with the driver's reason
 *    (an illegal address) and the kernel's name; every later call fails
 *    with KC_ESTICKY at once instead of hanging; kc_finalize returns.
 * Run as cuda-fault.cuda (not under compute-sanitizer: the fault is on
 * purpose); SKIPs without a CUDA device. */
#include "kc-test.h"

/* *p = 1 for the pointer it is given (a hand-written __global__). */
static const char poke_ptx[] = ".version 7.0\n"
                               ".target sm_70\n"
                               ".address_size 64\n"
                               ".visible .entry kc_poke(.param .u64 p)\n"
                               "{\n"
                               "  .reg .b64 d<3>;\n"
                               "  ld.param.u64 d1, [p];\n"
                               "  cvta.to.global.u64 d1, d1;\n"
                               "  mov.u64 d2, 1;\n"
                               "  st.global.u64 [d1], d2;\n"
                               "  ret;\n"
                               "}\n";

int main(void) {
  kc_kernel_desc d;
  kc_kernel *poke = NULL;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.name = "kc_poke";
  d.kind = KC_KERNEL_CALL;
  d.ptx = poke_ptx;
  d.signature = "p";
  KC_REQUIRE_OK(kc_kernel_register(&d, &poke));
  kc_test_init_backend();
  kc_info info = kc_test_info();

  /* Out of memory. */
  void *p = NULL;
  size_t huge = info.dev.total_memory * 4;
  KC_CHECK_ERR(kc_malloc(&p, huge, KC_SPACE_DEVICE, "too-big"), KC_ENOMEM);
  KC_CHECK_CONTAINS(kc_last_error(), "cuMemAlloc");
  KC_INFO("device OOM: %s", kc_last_error());
  KC_CHECK_ERR(kc_malloc(&p, huge, KC_SPACE_MANAGED, "too-big"), KC_ENOMEM);
  KC_INFO("managed OOM: %s", kc_last_error());

  /* A good launch first, to show the kernel itself works. */
  int64_t *ok = kc_test_dalloc(sizeof(int64_t), "ok");
  void *args[] = {&ok};
  kc_policy one = kc_range(0, 1);
  KC_CHECK_OK(kc_parallel_call(NULL, poke, &one, 1, args));
  int64_t *h = kc_test_download(ok, sizeof *h);
  KC_CHECK_EQ_INT(*h, 1);
  free(h);

  /* An illegal address inside a kernel. */
  void *bad = (void *)(uintptr_t)0x10;
  void *bargs[] = {&bad};
  int rc = kc_parallel_call(NULL, poke, &one, 1, bargs);
  if (rc == 0)
    rc = kc_fence();
  KC_CHECK_EQ_INT(rc, KC_ESTICKY);
  KC_CHECK_CONTAINS(kc_last_error(), "ILLEGAL_ADDRESS");
  KC_CHECK_CONTAINS(kc_last_error(), "kc_poke");
  KC_INFO("fault: %s", kc_last_error());
  /* Later calls fail at once. */
  KC_CHECK_ERR(kc_parallel_call(NULL, poke, &one, 1, args), KC_ESTICKY);
  KC_CHECK_ERR(kc_fence(), KC_ESTICKY);
  KC_CHECK_ERR(kc_malloc(&p, 64, KC_SPACE_DEVICE, "after"), KC_ESTICKY);
  int64_t v = 0;
  KC_CHECK_ERR(kc_memcpy(&v, ok, sizeof v), KC_ESTICKY);
  kc_free(ok);
  kc_finalize(); /* must return; its code may report the fault again */
  return kc_test_done();
}
