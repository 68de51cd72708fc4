/* kc benchmarks — md: the hand-written OpenMP baseline.
 *
 * What an OpenMP programmer writes for md's two problems: a transpose by
 * square tiles (the tile loops collapsed and shared out statically; in a tile,
 * which fits L1, out is written by rows and in read by columns: 73 ms
 * against 101 ms the other way round at n = 4096 on two cores), and the
 * stencil as a `parallel for` over rows with an `omp simd` inner loop (kc's
 * host loops carry that hint, kernel_host.h; the baseline should not lose
 * on a missing clause). */
#include <stddef.h>

#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpass-failed"
#endif

#include "md-omp.h"
#include "md.h"

void omp_md_init(double *in, double *out, ptrdiff_t n) {
#pragma omp parallel for schedule(static)
  for (ptrdiff_t i = 0; i < n; i++)
    for (ptrdiff_t j = 0; j < n; j++) {
      in[i * n + j] = MD_INPUT(i, j);
      out[i * n + j] = 0.0;
    }
}

void omp_md_fill(double *out, ptrdiff_t n, double v) {
#pragma omp parallel for schedule(static)
  for (ptrdiff_t i = 0; i < n; i++)
    for (ptrdiff_t j = 0; j < n; j++)
      out[i * n + j] = v;
}

void omp_md_transpose(const double *restrict in, double *restrict out,
                      ptrdiff_t n, ptrdiff_t tile) {
#pragma omp parallel for collapse(2) schedule(static)
  for (ptrdiff_t ib = 0; ib < n; ib += tile)
    for (ptrdiff_t jb = 0; jb < n; jb += tile) {
      const ptrdiff_t ie = ib + tile < n ? ib + tile : n;
      const ptrdiff_t je = jb + tile < n ? jb + tile : n;
      for (ptrdiff_t j = jb; j < je; j++)
        for (ptrdiff_t i = ib; i < ie; i++)
          out[j * n + i] = in[i * n + j];
    }
}

void omp_md_stencil(const double *restrict in, double *restrict out,
                    ptrdiff_t n, double c0, double c1) {
#pragma omp parallel for schedule(static)
  for (ptrdiff_t i = 1; i < n - 1; i++) {
#pragma omp simd
    for (ptrdiff_t j = 1; j < n - 1; j++) {
      const ptrdiff_t p = i * n + j;
      out[p] =
          c0 * in[p] + c1 * (in[p - n] + in[p + n] + in[p - 1] + in[p + 1]);
    }
  }
}
