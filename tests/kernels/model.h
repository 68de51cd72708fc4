/* Functors of the multi-dimensional, team, atomic and chunk-buffer
 * conformance kernels (md.kc.c, team.kc.c, atomic.kc.c, chunk.kc.c) and of
 * the tests that launch them (t-md.c, t-team.c, t-atomic.c,
 * t-chunkbuf.c).  Plain C structs: valid C and CUDA C++. */
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
