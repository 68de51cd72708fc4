/* Conformance: memory spaces and allocation records.
 *
 * Every space allocates (zero bytes included), every allocation carries its
 * label, size, space and reference count and can be found from any pointer
 * into it; kc_memcpy / kc_memset work between every pair of spaces (and
 * ordinary host memory), in whole and in part, and refuse ranges that run
 * past an allocation; freeing memory kc does not own, or freeing twice, is
 * an error and not a crash. */
#include "kc-test.h"

static const kc_space spaces[] = {KC_SPACE_HOST, KC_SPACE_DEVICE,
                                  KC_SPACE_MANAGED, KC_SPACE_HOST_PINNED};
#define NSPACES 4

static void test_space_names(void) {
  KC_CHECK_EQ_STR(kc_space_name(KC_SPACE_HOST), "host");
  KC_CHECK_EQ_STR(kc_space_name(KC_SPACE_DEVICE), "device");
  KC_CHECK_EQ_STR(kc_space_name(KC_SPACE_MANAGED), "managed");
  KC_CHECK_EQ_STR(kc_space_name(KC_SPACE_HOST_PINNED), "host_pinned");
  KC_CHECK_EQ_PTR(kc_space_name(KC_SPACE_COUNT), NULL);
  KC_CHECK_EQ_PTR(kc_space_name((kc_space)-1), NULL);
}

/* Allocation, records, interior pointers, labels. */
static void test_records(void) {
  static const size_t sizes[] = {1, 7, 64, 4096, 1 << 20};
  for (int s = 0; s < NSPACES; s++)
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
      char label[32];
      void *p = NULL;
      kc_alloc_info ai;
      snprintf(label, sizeof label, "rec-%s-%zu", kc_space_name(spaces[s]),
               sizes[z]);
      if (KC_CHECK_OK(kc_malloc(&p, sizes[z], spaces[s], label)) != 0)
        continue;
      KC_CHECK_NE_PTR(p, NULL);
      KC_CHECK_EQ_INT((uintptr_t)p % 64, 0); /* documented for host spaces */
      label[0] = 'X';                        /* the label was copied */
      memset(&ai, 0, sizeof ai);
      if (KC_CHECK_OK(kc_pointer_info(p, &ai)) == 0) {
        KC_CHECK_EQ_PTR(ai.base, p);
        KC_CHECK_EQ_UINT(ai.size, sizes[z]);
        KC_CHECK_EQ_INT(ai.space, spaces[s]);
        KC_CHECK_EQ_INT(ai.refcount, 1);
        KC_CHECK(ai.label && ai.label[0] == 'r');
        KC_CHECK_CONTAINS(ai.label, "ec-");
      }
      /* Last byte: still this allocation. */
      memset(&ai, 0, sizeof ai);
      if (KC_CHECK_OK(kc_pointer_info((char *)p + sizes[z] - 1, &ai)) == 0) {
        KC_CHECK_EQ_PTR(ai.base, p);
        KC_CHECK_EQ_UINT(ai.size, sizes[z]);
      }
      /* Middle. */
      memset(&ai, 0, sizeof ai);
      if (KC_CHECK_OK(kc_pointer_info((char *)p + sizes[z] / 2, &ai)) == 0)
        KC_CHECK_EQ_PTR(ai.base, p);
      /* One past the end is not inside this allocation (it may be inside
       * another one). */
      memset(&ai, 0, sizeof ai);
      int rc = kc_pointer_info((char *)p + sizes[z], &ai);
      if (rc == 0)
        KC_CHECK_NE_PTR(ai.base, p);
      else
        KC_CHECK_EQ_INT(rc, KC_ENOTKC);
      KC_CHECK_OK(kc_free(p));
      KC_CHECK_ERR(kc_pointer_info(p, &ai), KC_ENOTKC);
    }
}

/* Zero-byte allocations: unique, non-NULL, recorded, freeable. */
static void test_zero_bytes(void) {
  for (int s = 0; s < NSPACES; s++) {
    void *a = NULL, *b = NULL;
    kc_alloc_info ai;
    KC_CHECK_OK(kc_malloc(&a, 0, spaces[s], "zero a"));
    KC_CHECK_OK(kc_malloc(&b, 0, spaces[s], "zero b"));
    KC_CHECK_NE_PTR(a, NULL);
    KC_CHECK_NE_PTR(b, NULL);
    KC_CHECK_NE_PTR(a, b);
    memset(&ai, 0, sizeof ai);
    if (KC_CHECK_OK(kc_pointer_info(a, &ai)) == 0) {
      KC_CHECK_EQ_PTR(ai.base, a);
      KC_CHECK_EQ_UINT(ai.size, 0);
      KC_CHECK_EQ_INT(ai.space, spaces[s]);
      KC_CHECK_EQ_STR(ai.label, "zero a");
    }
    /* Copies and sets of zero bytes are fine, even at the end. */
    KC_CHECK_OK(kc_memcpy(a, b, 0));
    KC_CHECK_OK(kc_memset(a, 0, 0));
    KC_CHECK_OK(kc_free(a));
    KC_CHECK_OK(kc_free(b));
    KC_CHECK_ERR(kc_free(a), KC_ENOTKC);
  }
}

static void test_labels(void) {
  void *p = NULL;
  kc_alloc_info ai;
  /* NULL label is allowed. */
  KC_CHECK_OK(kc_malloc(&p, 16, KC_SPACE_HOST, NULL));
  memset(&ai, 0, sizeof ai);
  KC_CHECK_OK(kc_pointer_info(p, &ai));
  KC_CHECK_EQ_UINT(ai.size, 16);
  KC_CHECK_OK(kc_free(p));
  /* A long label survives whole. */
  char longlabel[300];
  memset(longlabel, 'L', sizeof longlabel - 1);
  longlabel[sizeof longlabel - 1] = '\0';
  KC_CHECK_OK(kc_malloc(&p, 16, KC_SPACE_DEVICE, longlabel));
  memset(&ai, 0, sizeof ai);
  if (KC_CHECK_OK(kc_pointer_info(p, &ai)) == 0)
    KC_CHECK_EQ_STR(ai.label, longlabel);
  KC_CHECK_OK(kc_free(p));
}

/* Reference counts: kc_retain adds, kc_free drops, the last frees. */
static void test_refcounts(void) {
  for (int s = 0; s < NSPACES; s++) {
    char *p = NULL;
    kc_alloc_info ai;
    if (KC_CHECK_OK(kc_malloc((void **)&p, 100, spaces[s], "rc")) != 0)
      continue;
    KC_CHECK_OK(kc_retain(p));
    KC_CHECK_OK(kc_retain(p + 50)); /* any pointer into it */
    KC_CHECK_OK(kc_pointer_info(p, &ai));
    KC_CHECK_EQ_INT(ai.refcount, 3);
    KC_CHECK_OK(kc_free(p));
    KC_CHECK_OK(kc_pointer_info(p, &ai));
    KC_CHECK_EQ_INT(ai.refcount, 2);
    /* kc_free wants the allocation's own pointer (doc/api.md, "Memory"): an
     * interior one is refused and changes nothing. */
    KC_CHECK_ERR(kc_free(p + 1), KC_ENOTKC);
    KC_CHECK_OK(kc_pointer_info(p, &ai));
    KC_CHECK_EQ_INT(ai.refcount, 2);
    KC_CHECK_OK(kc_free(p));
    KC_CHECK_OK(kc_pointer_info(p + 99, &ai));
    KC_CHECK_EQ_INT(ai.refcount, 1);
    KC_CHECK_EQ_STR(ai.label, "rc");
    KC_CHECK_OK(kc_free(p));
    KC_CHECK_ERR(kc_pointer_info(p, &ai), KC_ENOTKC);
    KC_CHECK_ERR(kc_retain(p), KC_ENOTKC);
    KC_CHECK_ERR(kc_free(p), KC_ENOTKC); /* double free */
  }
}

/* Memory kc does not own: reported, never touched. */
static void test_not_kc(void) {
  int on_stack = 5;
  int *heap = kc_test_xmalloc(64);
  kc_alloc_info ai;
  KC_CHECK_OK(kc_free(NULL));
  KC_CHECK_ERR(kc_free(&on_stack), KC_ENOTKC);
  KC_CHECK_ERR(kc_free(heap), KC_ENOTKC);
  KC_CHECK_ERR(kc_retain(&on_stack), KC_ENOTKC);
  KC_CHECK_ERR(kc_retain(NULL), KC_ENOTKC);
  KC_CHECK_ERR(kc_pointer_info(heap, &ai), KC_ENOTKC);
  KC_CHECK_ERR(kc_pointer_info(&on_stack, &ai), KC_ENOTKC);
  KC_CHECK_EQ_INT(on_stack, 5);
  free(heap); /* still ours: kc left it alone */
}

static void test_bad_malloc(void) {
  void *p = (void *)1;
  KC_CHECK_ERR(kc_malloc(&p, 16, KC_SPACE_COUNT, "bad"), KC_EINVAL);
  KC_CHECK_ERR(kc_malloc(&p, 16, (kc_space)-1, "bad"), KC_EINVAL);
  KC_CHECK_ERR(kc_malloc(NULL, 16, KC_SPACE_HOST, "bad"), KC_EINVAL);
  /* An impossible size: KC_ENOMEM naming the label. */
  p = NULL;
  for (int s = 0; s < NSPACES; s++) {
    int rc = kc_malloc(&p, SIZE_MAX / 2, spaces[s], "too-big-label");
    KC_CHECK_EQ_INT(rc, KC_ENOMEM);
    if (rc == KC_ENOMEM)
      KC_CHECK_CONTAINS(kc_last_error(), "too-big-label");
    else if (rc == 0)
      kc_free(p);
  }
  if (KC_CHECK_OK(kc_malloc(&p, 8, KC_SPACE_HOST, "info")) == 0) {
    KC_CHECK_ERR(kc_pointer_info(p, NULL), KC_EINVAL);
    KC_CHECK_OK(kc_free(p));
  }
}

/* A pattern byte for position k of buffer `tag`. */
static unsigned char pat(int tag, size_t k) {
  return (unsigned char)(tag * 31 + k * 7 + (k >> 8));
}

/* kc_memcpy between every pair of (plain host, host, device, managed,
 * pinned), whole and in part, checked through plain host memory. */
static void test_copies(void) {
  enum { N = 100000 };
  unsigned char *plain = kc_test_xmalloc(N), *back = kc_test_xmalloc(N);
  unsigned char *buf[NSPACES + 1];
  buf[0] = kc_test_xmalloc(N); /* plain host memory, not kc's */
  for (int s = 0; s < NSPACES; s++)
    KC_REQUIRE_OK(kc_malloc((void **)&buf[s + 1], N, spaces[s], "copy"));
  for (int from = 0; from <= NSPACES; from++)
    for (int to = 0; to <= NSPACES; to++) {
      const int failures = kc_test_failures();
      if (from == to)
        continue;
      for (size_t k = 0; k < N; k++)
        plain[k] = pat(from + 10 * to, k);
      KC_CHECK_OK(kc_memcpy(buf[from], plain, N));
      KC_CHECK_OK(kc_memset(buf[to], 0, N));
      /* whole */
      KC_CHECK_OK(kc_memcpy(buf[to], buf[from], N));
      memset(back, 0xee, N);
      KC_CHECK_OK(kc_memcpy(back, buf[to], N));
      KC_CHECK(memcmp(back, plain, N) == 0);
      /* a part, at odd offsets, ending at the last byte */
      KC_CHECK_OK(kc_memset(buf[to], 0x11, N));
      KC_CHECK_OK(kc_memcpy(buf[to] + 3001, buf[from] + 17, N - 3001));
      memset(back, 0xee, N);
      KC_CHECK_OK(kc_memcpy(back, buf[to], N));
      {
        size_t bad = 0;
        for (size_t k = 0; k < N; k++) {
          unsigned char w = k < 3001 ? 0x11 : plain[k - 3001 + 17];
          bad += back[k] != w;
        }
        KC_CHECK_EQ_UINT(bad, 0);
      }
      /* asynchronous, then fence */
      KC_CHECK_OK(kc_memset(buf[to], 0, N));
      KC_CHECK_OK(kc_memcpy_async(buf[to], buf[from], N));
      KC_CHECK_OK(kc_fence());
      memset(back, 0xee, N);
      KC_CHECK_OK(kc_memcpy(back, buf[to], N));
      KC_CHECK(memcmp(back, plain, N) == 0);
      if (kc_test_failures() != failures)
        KC_INFO("  ... copying %s -> %s",
                from ? kc_space_name(spaces[from - 1]) : "plain host",
                to ? kc_space_name(spaces[to - 1]) : "plain host");
    }
  free(buf[0]);
  for (int s = 0; s < NSPACES; s++)
    KC_CHECK_OK(kc_free(buf[s + 1]));
  free(plain);
  free(back);
}

/* kc_memset in every space, whole and in part. */
static void test_memset(void) {
  enum { N = 5000 };
  unsigned char *back = kc_test_xmalloc(N);
  for (int s = 0; s < NSPACES; s++) {
    unsigned char *p;
    KC_REQUIRE_OK(kc_malloc((void **)&p, N, spaces[s], "set"));
    KC_CHECK_OK(kc_memset(p, 0xab, N));
    KC_CHECK_OK(kc_memset(p + 100, 0x01, 33));
    KC_CHECK_OK(kc_memset(p + N - 1, 0x02, 1));
    KC_CHECK_OK(kc_memcpy(back, p, N));
    size_t bad = 0;
    for (size_t k = 0; k < N; k++) {
      unsigned char w = k == N - 1 ? 0x02 : (k >= 100 && k < 133) ? 0x01 : 0xab;
      bad += back[k] != w;
    }
    KC_CHECK_EQ_UINT(bad, 0);
    KC_CHECK_OK(kc_free(p));
  }
  free(back);
}

/* Ranges that run past an allocation are refused and copy nothing. */
static void test_overruns(void) {
  enum { N = 256 };
  unsigned char plain[N * 2], back[N];
  memset(plain, 0x5c, sizeof plain);
  for (int s = 0; s < NSPACES; s++) {
    unsigned char *a, *b;
    KC_REQUIRE_OK(kc_malloc((void **)&a, N, spaces[s], "overrun a"));
    KC_REQUIRE_OK(kc_malloc((void **)&b, N, KC_SPACE_HOST, "overrun b"));
    KC_CHECK_OK(kc_memset(a, 0, N));
    KC_CHECK_ERR(kc_memcpy(a, plain, N + 1), KC_EINVAL);
    KC_CHECK_ERR(kc_memcpy(a + 1, plain, N), KC_EINVAL);
    KC_CHECK_ERR(kc_memcpy(a + N - 8, b, 9), KC_EINVAL);
    KC_CHECK_ERR(kc_memcpy(plain, a, N + 1), KC_EINVAL);
    KC_CHECK_ERR(kc_memcpy(b, a + 10, N - 9), KC_EINVAL);
    KC_CHECK_ERR(kc_memcpy_async(a, plain, N + 1), KC_EINVAL);
    KC_CHECK_ERR(kc_memset(a, 1, N + 1), KC_EINVAL);
    KC_CHECK_ERR(kc_memset(a + N - 1, 1, 2), KC_EINVAL);
    KC_CHECK_ERR(kc_memcpy(a, NULL, 4), KC_EINVAL);
    KC_CHECK_ERR(kc_memcpy(NULL, a, 4), KC_EINVAL);
    KC_CHECK_ERR(kc_memset(NULL, 0, 4), KC_EINVAL);
    KC_CHECK_OK(kc_memcpy(NULL, NULL, 0));
    KC_CHECK_OK(kc_fence());
    /* Nothing was written. */
    KC_CHECK_OK(kc_memcpy(back, a, N));
    size_t bad = 0;
    for (size_t k = 0; k < N; k++)
      bad += back[k] != 0;
    KC_CHECK_EQ_UINT(bad, 0);
    /* The largest legal ranges work. */
    KC_CHECK_OK(kc_memcpy(a, plain, N));
    KC_CHECK_OK(kc_memcpy(a + N - 9, b, 9));
    KC_CHECK_OK(kc_memset(a + N - 1, 1, 1));
    KC_CHECK_OK(kc_free(a));
    KC_CHECK_OK(kc_free(b));
  }
}

/* Many live allocations, freed out of order, each found by its records. */
static void test_many(void) {
  enum { M = 2000 };
  void **p = kc_test_xmalloc(M * sizeof *p);
  kc_test_rng rng = {7};
  int bad = 0;
  for (int k = 0; k < M; k++) {
    char label[32];
    snprintf(label, sizeof label, "many %d", k);
    KC_REQUIRE_OK(
        kc_malloc(&p[k], (size_t)(k % 97) * 8 + 1, spaces[k % NSPACES], label));
  }
  for (int k = 0; k < M; k++) {
    kc_alloc_info ai;
    char label[32];
    snprintf(label, sizeof label, "many %d", k);
    if (kc_pointer_info((char *)p[k] + (k % 97) * 8, &ai) != 0 ||
        ai.base != p[k] || ai.size != (size_t)(k % 97) * 8 + 1 ||
        ai.space != spaces[k % NSPACES] || strcmp(ai.label, label) != 0)
      bad++;
  }
  KC_CHECK_EQ_INT(bad, 0);
  for (int k = M - 1; k > 0; k--) { /* shuffle */
    int j = (int)kc_test_rand_range(&rng, 0, k);
    void *t = p[k];
    p[k] = p[j];
    p[j] = t;
  }
  bad = 0;
  for (int k = 0; k < M; k++)
    bad += kc_free(p[k]) != 0;
  KC_CHECK_EQ_INT(bad, 0);
  free(p);
}

/* What kc_get_info says about spaces. */
static void test_info(void) {
  kc_info info = kc_test_info();
  KC_CHECK(info.spaces & (1u << KC_SPACE_HOST));
  KC_INFO("distinct spaces: 0x%x", info.spaces);
}

int main(void) {
  kc_test_init_backend();
  test_space_names();
  test_info();
  test_records();
  test_zero_bytes();
  test_labels();
  test_refcounts();
  test_not_kc();
  test_bad_malloc();
  test_copies();
  test_memset();
  test_overruns();
  test_many();
  /* Left live on purpose: kc_finalize frees it (leak checkers see no
   * leak). */
  {
    void *left = NULL;
    KC_CHECK_OK(kc_malloc(&left, 1000, KC_SPACE_DEVICE, "left for finalize"));
  }
  return kc_test_finish();
}
