/* kc benchmarks — md: the hand-written OpenMP baseline (md-omp.c). */
#ifndef KC_BENCH_MD_OMP_H
#define KC_BENCH_MD_OMP_H

#include <stddef.h>

/* in[i][j] = MD_INPUT(i, j) and out[i][j] = 0, by rows with the static
 * schedule the kernels use (first touch). */
void omp_md_init(double *in, double *out, ptrdiff_t n);
/* out[i][j] = v. */
void omp_md_fill(double *out, ptrdiff_t n, double v);
/* out[j][i] = in[i][j], by tiles of tile x tile. */
void omp_md_transpose(const double *in, double *out, ptrdiff_t n,
                      ptrdiff_t tile);
/* The 5-point stencil over the interior. */
void omp_md_stencil(const double *in, double *out, ptrdiff_t n, double c0,
                    double c1);

#endif
