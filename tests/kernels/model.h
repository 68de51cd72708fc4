/* Functors of the multi-dimensional, team, atomic and chunk-buffer
 * conformance kernels (md.kc.c, team.kc.c, atomic.kc.c, memorder.kc.c,
 * chunk.kc.c) and of the tests that launch them (t-md.c, t-team.c,
 * t-atomic.c, t-atomic-order.c, t-chunkbuf.c).  Plain C structs: valid C and
 * CUDA C++. */
#ifndef KC_TEST_MODEL_H
#define KC_TEST_MODEL_H

#include <stdint.h>

/* ------------------------------------------------------------------ MD */

/* A dense array over the box lo[d] .. lo[d] + ext[d] with strides st[d]:
 * every visited point adds 1 to cnt[] and stores its code in val[]. */
typedef struct kt_md {
  int32_t *cnt;
  int64_t *val;
  int64_t lo[6];
  int64_t st[6];
} kt_md;

/* The value MD kernels give point (i0, i1, ...): distinct per point. */
#define KT_MD_CODE2(i, j) ((i)*7919 + (j)*13)
#define KT_MD_CODE3(i, j, k) (KT_MD_CODE2(i, j) * 31 + (k))

/* The custom MD reducer's value. */
typedef struct kt_md_stats {
  int64_t count;
  int64_t sum;
} kt_md_stats;

/* ---------------------------------------------------------------- teams */

/* Team kernels: a league of `rows` teams over an n-column matrix. */
typedef struct kt_team {
  const double *a; /* rows x n, row-major */
  const double *x; /* n */
  double *y;       /* rows: a row . x, by a team-thread/vector reduce */
  int64_t *out;    /* rows x n scratch round-trip / scan output */
  int64_t *meta;   /* rows x 8: what each team saw of its handle */
  int64_t n;
  int64_t per_team[2]; /* what the policy asked, for the kernel to check */
  int64_t per_thread[2];
  int64_t extra[2]; /* what the scratch function adds */
} kt_team;

/* The nested custom reducer's value. */
typedef struct kt_minmax {
  double min, max;
} kt_minmax;

/* ------------------------------------------------------------- atomics */

/* Histograms of every atomic type: index i contributes to bin i % bins. */
typedef struct kt_atomic {
  int32_t *hi32;
  int64_t *hi64;
  uint32_t *hu32;
  uint64_t *hu64;
  float *hf32;
  double *hf64;
  int64_t bins;
  int64_t *tickets; /* fetch_add's old values, one per index */
  int64_t *counter;
  int64_t *mins;     /* [0]: min, [1]: max of i * 7 % 1000003 (i64) */
  double *fmins;     /* [0]: min, [1]: max of the same, as doubles */
  uint32_t *umins;   /* [0]: min, [1]: max (u32) */
  float *f32mins;    /* [0], [1] */
  int32_t *i32mins;  /* [0], [1] */
  uint64_t *u64mins; /* [0], [1] */
  int64_t *xchg;     /* one cell every index exchanges into */
  int64_t *xold;     /* the value each index got back */
} kt_atomic;

/* ------------------------------------------------------ memory orders */

/* How the ordering kernels (memorder.kc.c, t-atomic-order.c) publish and
 * wait: the flag's own order, fences around relaxed flag accesses, or
 * nothing (relaxed: racy on purpose, run only under ThreadSanitizer). */
enum {
  KT_ORDER_ACQREL,  /* release store / acquire load */
  KT_ORDER_SEQCST,  /* seq_cst store and load */
  KT_ORDER_RMW,     /* exchange / fetch_add release, compare-exchange or
                       fetch_add acquire */
  KT_ORDER_FENCE,   /* release fence + relaxed store, relaxed load +
                       acquire fence */
  KT_ORDER_SCFENCE, /* kc_memory_fence() on both sides */
  KT_ORDER_RELAXED, /* relaxed flag, no fence */
  KT_ORDER_MODES
};

/* Message passing between two indices (kt_order_mp) and a wavefront of
 * stages (kt_order_wave).  Plain (non-atomic) data, ordered flags. */
typedef struct kt_order {
  int64_t *data;    /* mp: the message (words); wave: stages x width */
  int64_t *flag;    /* mp: [0] rounds sent, [1] rounds read; wave: one
                       counter per stage */
  int64_t *err;     /* [0] wrong values read, [1] waits that gave up */
  int64_t words;    /* mp: the message's length */
  int64_t rounds;   /* mp: messages sent */
  int64_t producer; /* mp: the index that writes */
  int64_t consumer; /* mp: the index that reads */
  int64_t width;    /* wave: indices per stage */
  int64_t spin;     /* polls of one wait before it gives up */
  int32_t mode;     /* KT_ORDER_* */
  int32_t pad;
} kt_order;

/* A ThreadSanitizer build (which does not model fences: gcc warns about
 * them under -fsanitize=thread, and fence-based hand-offs look racy). */
#if defined(__SANITIZE_THREAD__)
#define KT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KT_TSAN 1
#endif
#endif
#ifndef KT_TSAN
#define KT_TSAN 0
#endif

/* -------------------------------------------------------- chunk buffers */

typedef struct kt_chunk_pair {
  double t, u;
} kt_chunk_pair;

typedef struct kt_chunk {
  const double *x;
  double *y;
  int32_t *hits;
  int64_t *maxlen; /* the longest chunk seen (atomic max) */
  int64_t base;
} kt_chunk;

#endif /* KC_TEST_MODEL_H */
