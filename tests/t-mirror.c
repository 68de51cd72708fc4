/* Conformance: mirrored arrays (Kokkos DualView).
 *
 * A mirror has a host side and a target side.  When the backend keeps
 * device memory apart (cuda) the sides are distinct and a sync copies, but
 * only when the other side was marked modified; on host backends both
 * sides are the same memory and nothing is ever copied.  Both behaviours
 * are checked by what the memory holds, not by trusting the flags. */
#include <kc/kernel.h>

#include "kc-test.h"
#include "kernels/functors.h"

KC_KERNEL_DECLARE(kt_fill);

enum { N = 1000 };

/* The target side as the host sees it (through kc_memcpy). */
static int64_t *read_target(const kc_mirror *m) {
  return kc_test_download(kc_mirror_target(m), N * sizeof(int64_t));
}

static void fill_target(kc_mirror *m, int64_t offset) {
  kc_policy p = kc_range(0, N);
  kt_fill f = {kc_mirror_target(m), 0, 1, offset};
  KC_CHECK_OK(kc_parallel_for("mirror fill", KC_TEST_KERNEL(kt_fill), &p, &f,
                              sizeof f));
  KC_CHECK_OK(kc_fence());
}

static int all_equal(const int64_t *a, int64_t offset) {
  for (int k = 0; k < N; k++)
    if (a[k] != k + offset)
      return 0;
  return 1;
}

static void test_protocol(void) {
  const int distinct = kc_test_device_is_distinct();
  kc_mirror *m = NULL;
  int64_t *h, *t;

  KC_INFO("target memory is %s the host's", distinct ? "apart from" : "");
  KC_REQUIRE_OK(kc_mirror_create(&m, N * sizeof(int64_t), "mirror"));
  KC_REQUIRE(m != NULL);
  KC_CHECK_EQ_UINT(kc_mirror_size(m), N * sizeof(int64_t));
  h = kc_mirror_host(m);
  KC_REQUIRE(h != NULL && kc_mirror_target(m) != NULL);
  if (distinct)
    KC_CHECK_NE_PTR(kc_mirror_host(m), kc_mirror_target(m));
  else
    KC_CHECK_EQ_PTR(kc_mirror_host(m), kc_mirror_target(m));
  KC_CHECK_EQ_INT(kc_mirror_need_sync_host(m), 0);
  KC_CHECK_EQ_INT(kc_mirror_need_sync_target(m), 0);

  /* Host writes, marks, syncs: the target sees the data. */
  for (int k = 0; k < N; k++)
    h[k] = k + 10;
  KC_CHECK_OK(kc_mirror_modify_host(m));
  KC_CHECK_EQ_INT(kc_mirror_need_sync_target(m), distinct);
  KC_CHECK_EQ_INT(kc_mirror_need_sync_host(m), 0);
  KC_CHECK_OK(kc_mirror_sync_target(m));
  KC_CHECK_EQ_INT(kc_mirror_need_sync_target(m), 0);
  t = read_target(m);
  KC_CHECK(all_equal(t, 10));
  free(t);

  /* Host writes without marking: a sync copies nothing, so a distinct
   * target keeps the old data (a shared one sees the write, being the same
   * memory). */
  for (int k = 0; k < N; k++)
    h[k] = k + 20;
  KC_CHECK_EQ_INT(kc_mirror_need_sync_target(m), 0);
  KC_CHECK_OK(kc_mirror_sync_target(m));
  t = read_target(m);
  KC_CHECK(all_equal(t, distinct ? 10 : 20));
  free(t);

  /* A kernel writes the target, marks it, the host syncs. */
  fill_target(m, 30);
  KC_CHECK_OK(kc_mirror_modify_target(m));
  KC_CHECK_EQ_INT(kc_mirror_need_sync_host(m), distinct);
  KC_CHECK_EQ_INT(kc_mirror_need_sync_target(m), 0);
  KC_CHECK_OK(kc_mirror_sync_host(m));
  KC_CHECK_EQ_INT(kc_mirror_need_sync_host(m), 0);
  KC_CHECK(all_equal(h, 30));

  /* The target changes without a mark: no copy to the host. */
  fill_target(m, 40);
  KC_CHECK_OK(kc_mirror_sync_host(m));
  KC_CHECK(all_equal(h, distinct ? 30 : 40));

  /* Syncing the side that was modified copies nothing either. */
  for (int k = 0; k < N; k++)
    h[k] = k + 50;
  KC_CHECK_OK(kc_mirror_modify_host(m));
  KC_CHECK_OK(kc_mirror_sync_host(m)); /* host is current: no-op */
  KC_CHECK(all_equal(h, 50));
  KC_CHECK_EQ_INT(kc_mirror_need_sync_target(m), distinct);
  KC_CHECK_OK(kc_mirror_sync_target(m));
  t = read_target(m);
  KC_CHECK(all_equal(t, 50));
  free(t);

  /* Both sides modified: the next sync refuses (one side's data would be
   * lost), on every backend alike. */
  KC_CHECK_OK(kc_mirror_modify_host(m));
  KC_CHECK_OK(kc_mirror_modify_target(m));
  KC_CHECK_ERR(kc_mirror_sync_target(m), KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), "kc_mirror_clear_sync_state");
  /* ... and keeps refusing: marking one side again does not undo it. */
  KC_CHECK_OK(kc_mirror_modify_host(m));
  KC_CHECK_ERR(kc_mirror_sync_target(m), KC_EINVAL);
  KC_CHECK_ERR(kc_mirror_sync_host(m), KC_EINVAL);
  /* The way out (it was stuck for good): forget both marks, mark the side
   * to keep, sync. */
  KC_CHECK_OK(kc_mirror_clear_sync_state(m));
  KC_CHECK_EQ_INT(kc_mirror_need_sync_host(m), 0);
  KC_CHECK_EQ_INT(kc_mirror_need_sync_target(m), 0);
  KC_CHECK_OK(kc_mirror_sync_target(m)); /* nothing to copy */
  for (int k = 0; k < N; k++)
    h[k] = k + 60;
  KC_CHECK_OK(kc_mirror_modify_host(m));
  KC_CHECK_OK(kc_mirror_sync_target(m));
  t = read_target(m);
  KC_CHECK(all_equal(t, 60));
  free(t);
  KC_CHECK_ERR(kc_mirror_clear_sync_state(NULL), KC_EINVAL);
  KC_CHECK_OK(kc_mirror_destroy(m));
}

/* A mirror that outlives kc_finalize: its memory went with it.  Its handle
 * must still be freed by kc_mirror_destroy, after kc_finalize (it returned
 * KC_ENOINIT and freed nothing: 128 bytes lost a cycle) or after the next
 * kc_init; in between, the calls that use its memory must refuse (its old
 * addresses may belong to new allocations).  LeakSanitizer, in the asan
 * runs, sees a handle that is not freed. */
static void test_across_finalize(void) {
  kc_mirror *a = NULL, *b = NULL;
  KC_REQUIRE_OK(kc_mirror_create(&a, 64, "outlives"));
  KC_REQUIRE_OK(kc_mirror_create(&b, 64, "outlives too"));
  KC_CHECK_OK(kc_finalize());
  KC_CHECK_OK(kc_mirror_destroy(a)); /* kc is down: the handle only */
  KC_CHECK_ERR(kc_mirror_sync_target(b), KC_ENOINIT);
  kc_test_init_backend();
  /* b belongs to the kc_init before: refused, and destroyed handle only. */
  KC_CHECK_ERR(kc_mirror_modify_host(b), KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), "before the last kc_finalize");
  KC_CHECK_ERR(kc_mirror_sync_target(b), KC_EINVAL);
  KC_CHECK_ERR(kc_mirror_sync_host(b), KC_EINVAL);
  KC_CHECK_ERR(kc_mirror_clear_sync_state(b), KC_EINVAL);
  /* A new allocation may take its old address: destroying b must not free
   * it. */
  void *fresh = NULL;
  KC_REQUIRE_OK(kc_malloc(&fresh, 64, KC_SPACE_HOST, "fresh"));
  KC_CHECK_OK(kc_mirror_destroy(b));
  kc_alloc_info at;
  KC_CHECK_OK(kc_pointer_info(fresh, &at));
  KC_CHECK_OK(kc_free(fresh));
}

static void test_sizes_and_bad(void) {
  kc_mirror *m = NULL;
  KC_CHECK_OK(kc_mirror_destroy(NULL));
  KC_CHECK_ERR(kc_mirror_create(NULL, 8, "bad"), KC_EINVAL);
  KC_CHECK_ERR(kc_mirror_modify_host(NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_mirror_modify_target(NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_mirror_sync_host(NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_mirror_sync_target(NULL), KC_EINVAL);
  /* Zero bytes: a valid, empty mirror. */
  if (KC_CHECK_OK(kc_mirror_create(&m, 0, "empty")) == 0) {
    KC_CHECK_EQ_UINT(kc_mirror_size(m), 0);
    KC_CHECK_OK(kc_mirror_modify_host(m));
    KC_CHECK_OK(kc_mirror_sync_target(m));
    KC_CHECK_OK(kc_mirror_destroy(m));
  }
  /* Odd sizes and many mirrors at once. */
  kc_mirror *ms[16];
  for (int k = 0; k < 16; k++) {
    KC_REQUIRE_OK(kc_mirror_create(&ms[k], (size_t)k * 13 + 1, "many"));
    unsigned char *hp = kc_mirror_host(ms[k]);
    memset(hp, k, (size_t)k * 13 + 1);
    KC_CHECK_OK(kc_mirror_modify_host(ms[k]));
    KC_CHECK_OK(kc_mirror_sync_target(ms[k]));
  }
  for (int k = 0; k < 16; k++) {
    unsigned char *back = kc_test_xmalloc((size_t)k * 13 + 1);
    KC_CHECK_OK(kc_memcpy(back, kc_mirror_target(ms[k]), (size_t)k * 13 + 1));
    size_t bad = 0;
    for (size_t j = 0; j < (size_t)k * 13 + 1; j++)
      bad += back[j] != k;
    KC_CHECK_EQ_UINT(bad, 0);
    free(back);
    KC_CHECK_OK(kc_mirror_destroy(ms[k]));
  }
}

/* A mirror's sides are its own: kc_free of one is refused while the
 * mirror holds the last reference (the mirror would go on syncing through
 * freed memory, and kc_mirror_destroy would then fail after freeing the
 * handle); a reference taken with kc_retain is the caller's to drop, and
 * outlives the mirror. */
static void test_sides_are_the_mirrors(void) {
  kc_mirror *m = NULL;
  KC_REQUIRE_OK(kc_mirror_create(&m, N * sizeof(int64_t), "owned"));
  int64_t *h = kc_mirror_host(m);
  KC_CHECK_ERR(kc_free(h), KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), "side of mirror 'owned'");
  KC_CHECK_ERR(kc_free(kc_mirror_target(m)), KC_EINVAL);
  /* Still whole: a round trip through both sides. */
  for (int k = 0; k < N; k++)
    h[k] = k + 7;
  KC_CHECK_OK(kc_mirror_modify_host(m));
  KC_CHECK_OK(kc_mirror_sync_target(m));
  int64_t *t = read_target(m);
  KC_CHECK(all_equal(t, 7));
  free(t);
  /* The caller's own reference: dropped by kc_free, kept past destroy. */
  KC_CHECK_OK(kc_retain(h));
  KC_CHECK_OK(kc_free(h));
  KC_CHECK_ERR(kc_free(h), KC_EINVAL);
  KC_CHECK_OK(kc_retain(h));
  KC_CHECK_OK(kc_mirror_destroy(m));
  kc_alloc_info at;
  KC_CHECK_OK(kc_pointer_info(h, &at));
  KC_CHECK_EQ_INT(at.refcount, 1);
  KC_CHECK(all_equal(h, 7));
  KC_CHECK_OK(kc_free(h));
  KC_CHECK_ERR(kc_pointer_info(h, &at), KC_ENOTKC);
}

/* A destroyed mirror (through another copy of the handle, as a Fortran
 * assignment makes): every call on it is KC_EINVAL "not a live kc
 * mirror", the accessors give NULL / 0, and the memory it had is not
 * touched (a second destroy was a double free, and it freed the sides
 * again, which may belong to new allocations by then). */
static void test_destroyed_handles(void) {
  kc_mirror *m = NULL;
  KC_REQUIRE_OK(kc_mirror_create(&m, 256, "twice"));
  kc_mirror *copy = m;
  KC_CHECK_OK(kc_mirror_destroy(m));
  void *fresh = NULL;
  KC_REQUIRE_OK(kc_malloc(&fresh, 256, KC_SPACE_DEVICE, "fresh"));
  KC_CHECK_ERR(kc_mirror_destroy(copy), KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), "is not a live kc mirror");
  KC_CHECK_ERR(kc_mirror_sync_host(copy), KC_EINVAL);
  KC_CHECK_ERR(kc_mirror_sync_target(copy), KC_EINVAL);
  KC_CHECK_ERR(kc_mirror_modify_host(copy), KC_EINVAL);
  KC_CHECK_ERR(kc_mirror_modify_target(copy), KC_EINVAL);
  KC_CHECK_ERR(kc_mirror_clear_sync_state(copy), KC_EINVAL);
  KC_CHECK(kc_mirror_host(copy) == NULL);
  KC_CHECK(kc_mirror_target(copy) == NULL);
  KC_CHECK_EQ_INT(kc_mirror_size(copy), 0);
  KC_CHECK_EQ_INT(kc_mirror_need_sync_host(copy), 0);
  KC_CHECK_EQ_INT(kc_mirror_need_sync_target(copy), 0);
  kc_alloc_info at;
  KC_CHECK_OK(kc_pointer_info(fresh, &at));
  KC_CHECK_OK(kc_free(fresh));
}

int main(void) {
  kc_test_init_backend();
  test_protocol();
  test_destroyed_handles();
  test_sizes_and_bad();
  test_sides_are_the_mirrors();
  test_across_finalize();
  return kc_test_finish();
}
