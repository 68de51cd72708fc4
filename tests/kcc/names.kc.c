/* Every kernel macro of <kc/kernel.h> (and the atomics, KC_LDG and the
 * team accessors) once, with no user name that t-kcc-names.sh defines as
 * a macro: every name here begins with hm_ (or is a field of kc's public
 * structs).  t-kcc-names.sh compiles it with -DF=1 -DR=1 ... so that any
 * identifier kc's headers declare under a name a user may define fails
 * the build. */
#include <kc/kernel.h>

#include <stdint.h>

typedef struct hm_f {
  double *hm_x;
  int64_t *hm_out;
  int64_t hm_n;
} hm_f;

typedef struct hm_pair {
  double hm_sum;
  int64_t hm_count;
} hm_pair;

KC_FOR(hm_for, hm_f, hm_fp, hm_i, {
  hm_fp->hm_x[hm_i] = 2.0 * KC_LDG(&hm_fp->hm_x[hm_i]);
  kc_atomic_add(&hm_fp->hm_out[0], (int64_t)1);
  kc_atomic_fetch_max_explicit(&hm_fp->hm_out[1], (int64_t)hm_i,
                               KC_MEMORY_ORDER_RELAXED);
  kc_atomic_max(&hm_fp->hm_x[1], 1.5);
  (void)kc_atomic_compare_exchange(&hm_fp->hm_x[2], 0.0, 1.0);
  kc_atomic_store_explicit(&hm_fp->hm_out[2], kc_atomic_load(&hm_fp->hm_out[3]),
                           KC_MEMORY_ORDER_RELEASE);
  kc_atomic_thread_fence(KC_MEMORY_ORDER_ACQ_REL);
  kc_memory_fence();
})

KC_REDUCE_SUM(hm_sum, hm_f, hm_fp, hm_i, double, hm_acc,
              hm_acc += hm_fp->hm_x[hm_i])
KC_REDUCE_PROD(hm_prod, hm_f, hm_fp, hm_i, int64_t, hm_acc,
               hm_acc *= hm_fp->hm_out[hm_i])
KC_REDUCE_MIN(hm_min, hm_f, hm_fp, hm_i, float, hm_acc,
              hm_acc = (float)hm_fp->hm_x[hm_i] < hm_acc
                           ? (float)hm_fp->hm_x[hm_i]
                           : hm_acc)
KC_REDUCE_MAX(hm_max, hm_f, hm_fp, hm_i, int32_t, hm_acc,
              hm_acc = (int32_t)hm_i > hm_acc ? (int32_t)hm_i : hm_acc)
KC_REDUCE_MINLOC(hm_minloc, hm_f, hm_fp, hm_i, double, hm_acc, {
  if (hm_fp->hm_x[hm_i] < hm_acc.val) {
    hm_acc.val = hm_fp->hm_x[hm_i];
    hm_acc.loc = hm_i;
  }
})
KC_REDUCE_MAXLOC(hm_maxloc, hm_f, hm_fp, hm_i, int64_t, hm_acc, {
  if (hm_fp->hm_out[hm_i] > hm_acc.val) {
    hm_acc.val = hm_fp->hm_out[hm_i];
    hm_acc.loc = hm_i;
  }
})

KC_REDUCER_IDENTITY(hm_red, hm_pair, hm_v) {
  hm_v->hm_sum = 0;
  hm_v->hm_count = 0;
}
KC_REDUCER_JOIN(hm_red, hm_pair, hm_dst, hm_src) {
  hm_dst->hm_sum += hm_src->hm_sum;
  hm_dst->hm_count += hm_src->hm_count;
}
KC_REDUCE_CUSTOM(hm_custom, hm_f, hm_fp, hm_i, hm_red, hm_pair, hm_acc, {
  hm_acc.hm_sum += hm_fp->hm_x[hm_i];
  hm_acc.hm_count += 1;
})

KC_SCAN(hm_scan, hm_f, hm_fp, hm_i, int64_t, hm_acc, hm_final, {
  hm_acc += hm_fp->hm_out[hm_i];
  if (hm_final)
    hm_fp->hm_out[hm_i] = hm_acc;
})
KC_SCAN_CUSTOM(hm_scan_custom, hm_f, hm_fp, hm_i, hm_red, hm_pair, hm_acc,
               hm_final, {
                 hm_acc.hm_count += 1;
                 if (hm_final)
                   hm_fp->hm_out[hm_i] = hm_acc.hm_count;
               })

KC_MDFOR(hm_md2, hm_f, hm_fp, (hm_i, hm_j),
         hm_fp->hm_x[hm_i * hm_fp->hm_n + hm_j] = 1.0)
KC_MDFOR(hm_md6, hm_f, hm_fp, (hm_a, hm_b, hm_c, hm_d, hm_e, hm_g),
         hm_fp->hm_out[0] += hm_a + hm_b + hm_c + hm_d + hm_e + hm_g)
KC_MDREDUCE_SUM(hm_mdsum, hm_f, hm_fp, (hm_i, hm_j, hm_k), double, hm_acc,
                hm_acc += (double)(hm_i + hm_j + hm_k))
KC_MDREDUCE_PROD(hm_mdprod, hm_f, hm_fp, (hm_i, hm_j), int64_t, hm_acc,
                 hm_acc *= 1 + (hm_i == hm_j))
KC_MDREDUCE_MIN(hm_mdmin, hm_f, hm_fp, (hm_i, hm_j), double, hm_acc,
                hm_acc = hm_acc < hm_i ? hm_acc : (double)hm_i)
KC_MDREDUCE_MAX(hm_mdmax, hm_f, hm_fp, (hm_i, hm_j, hm_k, hm_l), int32_t,
                hm_acc, hm_acc = hm_acc > hm_l ? hm_acc : (int32_t)hm_l)
KC_MDREDUCE_CUSTOM(hm_mdcustom, hm_f, hm_fp, (hm_i, hm_j), hm_red, hm_pair,
                   hm_acc, hm_acc.hm_count += hm_i + hm_j)

KC_TEAM(hm_team, hm_f, hm_fp, hm_t, {
  const kc_index hm_lr = kc_team_league_rank(hm_t);
  double *hm_s = (double *)kc_team_scratch(hm_t, 0);
  double *hm_ts = (double *)kc_thread_scratch(hm_t, 1);
  (void)kc_team_league_size(hm_t);
  (void)kc_team_scratch_size(hm_t, 0);
  (void)kc_thread_scratch_size(hm_t, 1);
  (void)kc_team_vector_length(hm_t);
  (void)kc_team_vector_lane(hm_t);
  KC_TEAM_THREAD_FOR(hm_t, hm_i, 0, 8, hm_s[hm_i] = (double)hm_lr);
  KC_THREAD_VECTOR_FOR(hm_t, hm_i, 0, 4, hm_ts[hm_i] = 0);
  KC_TEAM_VECTOR_FOR(hm_t, hm_i, 0, 8, hm_s[hm_i] += 1);
  kc_team_barrier(hm_t);
  double hm_r1, hm_r2, hm_r3;
  int64_t hm_r4, hm_r5, hm_r6, hm_r7;
  hm_pair hm_p1, hm_p2;
  KC_TEAM_THREAD_REDUCE(hm_t, hm_i, 0, 8, SUM, double, hm_acc, hm_r1,
                        hm_acc += hm_s[hm_i]);
  KC_THREAD_VECTOR_REDUCE(hm_t, hm_i, 0, 8, MAX, double, hm_acc, hm_r2,
                          hm_acc = hm_s[hm_i] > hm_acc ? hm_s[hm_i] : hm_acc);
  KC_TEAM_VECTOR_REDUCE(hm_t, hm_i, 0, 8, MIN, double, hm_acc, hm_r3,
                        hm_acc = hm_s[hm_i] < hm_acc ? hm_s[hm_i] : hm_acc);
  KC_TEAM_VECTOR_REDUCE(hm_t, hm_i, 0, 8, PROD, int64_t, hm_acc, hm_r4,
                        hm_acc *= 1 + hm_i % 2);
  KC_TEAM_THREAD_REDUCE_CUSTOM(hm_t, hm_i, 0, 8, hm_red, hm_pair, hm_acc, hm_p1,
                               hm_acc.hm_count += hm_i);
  KC_THREAD_VECTOR_REDUCE_CUSTOM(hm_t, hm_i, 0, 8, hm_red, hm_pair, hm_acc,
                                 hm_p2, hm_acc.hm_count += hm_i);
  KC_TEAM_THREAD_SCAN(hm_t, hm_i, 0, 8, int64_t, hm_acc, hm_final, hm_r5, {
    if (hm_final)
      hm_fp->hm_out[hm_i] = hm_acc;
    hm_acc += hm_i;
  });
  KC_THREAD_VECTOR_SCAN(hm_t, hm_i, 0, 8, int64_t, hm_acc, hm_final, hm_r6, {
    if (hm_final)
      hm_fp->hm_out[hm_i] = hm_acc;
    hm_acc += hm_i;
  });
  hm_r7 = 0;
  KC_TEAM_BROADCAST(hm_t, int64_t, hm_r7, hm_r7 = 42);
  KC_TEAM_SINGLE(hm_t, hm_fp->hm_x[hm_lr] = hm_r1 + hm_r2 + hm_r3);
  KC_THREAD_SINGLE(hm_t, hm_fp->hm_out[hm_lr] = hm_r4 + hm_r5 + hm_r6 + hm_r7 +
                                                hm_p1.hm_count +
                                                hm_p2.hm_count);
})
KC_TEAM_SCRATCH_SIZE(hm_team, hm_f, hm_fp, hm_level, hm_team_size) {
  return (size_t)(hm_level + 1) * 64 * (size_t)hm_team_size +
         (size_t)hm_fp->hm_n;
}

KC_TEAM_REDUCE_SUM(hm_tsum, hm_f, hm_fp, hm_t, double, hm_acc,
                   hm_acc += (double)kc_team_rank(hm_t))
KC_TEAM_REDUCE_PROD(hm_tprod, hm_f, hm_fp, hm_t, int64_t, hm_acc,
                    hm_acc *= kc_team_size(hm_t))
KC_TEAM_REDUCE_MIN(hm_tmin, hm_f, hm_fp, hm_t, int64_t, hm_acc,
                   hm_acc = hm_acc < 3 ? hm_acc : 3)
KC_TEAM_REDUCE_MAX(hm_tmax, hm_f, hm_fp, hm_t, float, hm_acc,
                   hm_acc = hm_acc > 3 ? hm_acc : 3)
KC_TEAM_REDUCE_CUSTOM(hm_tcustom, hm_f, hm_fp, hm_t, hm_red, hm_pair, hm_acc,
                      hm_acc.hm_count += 1)

KC_FOR_CHUNKS(hm_chunks, hm_f, hm_fp, hm_b, hm_e, {
  KC_CHUNK_BUFFER(double, hm_buf);
  for (kc_index hm_i = hm_b; hm_i < hm_e; hm_i++)
    hm_buf[hm_i - hm_b] = hm_fp->hm_x[hm_i];
  for (kc_index hm_i = hm_b; hm_i < hm_e; hm_i++)
    hm_fp->hm_x[hm_i] = 2 * hm_buf[hm_i - hm_b];
})

/* The _ARGS forms. */
KC_FOR_ARGS(hm_afor, ((double, hm_alpha), (double *, hm_y)), hm_i,
            hm_y[hm_i] *= hm_alpha)
KC_REDUCE_SUM_ARGS(hm_asum, ((const double *, hm_y)), hm_i, double, hm_acc,
                   hm_acc += hm_y[hm_i])
KC_REDUCE_MAXLOC_ARGS(hm_amaxloc, ((const double *, hm_y)), hm_i, double,
                      hm_acc, {
                        if (hm_y[hm_i] > hm_acc.val) {
                          hm_acc.val = hm_y[hm_i];
                          hm_acc.loc = hm_i;
                        }
                      })
KC_REDUCE_CUSTOM_ARGS(hm_acustom, ((const double *, hm_y)), hm_i, hm_red,
                      hm_pair, hm_acc, hm_acc.hm_sum += hm_y[hm_i])
KC_SCAN_ARGS(hm_ascan, ((int64_t *, hm_z)), hm_i, int64_t, hm_acc, hm_final, {
  hm_acc += hm_z[hm_i];
  if (hm_final)
    hm_z[hm_i] = hm_acc;
})
KC_MDFOR_ARGS(hm_amd, ((double *, hm_y), (int64_t, hm_n)), (hm_i, hm_j),
              hm_y[hm_i * hm_n + hm_j] = 0)
KC_MDREDUCE_MAX_ARGS(hm_amdmax, ((const double *, hm_y), (int64_t, hm_n)),
                     (hm_i, hm_j), double, hm_acc,
                     hm_acc = hm_y[hm_i * hm_n + hm_j] > hm_acc
                                  ? hm_y[hm_i * hm_n + hm_j]
                                  : hm_acc)
KC_TEAM_ARGS(hm_ateam, ((double *, hm_y)), hm_t,
             KC_TEAM_SINGLE(hm_t, hm_y[kc_team_league_rank(hm_t)] = 1))
KC_TEAM_SCRATCH_SIZE_ARGS(hm_ateam, hm_fp, hm_level, hm_team_size) {
  (void)hm_fp;
  return (size_t)hm_level * (size_t)hm_team_size;
}
KC_TEAM_REDUCE_SUM_ARGS(hm_atsum, ((const double *, hm_y)), hm_t, double,
                        hm_acc, hm_acc += hm_y[kc_team_league_rank(hm_t)])
KC_FOR_CHUNKS_ARGS(hm_achunks, ((double *, hm_y)), hm_b, hm_e, {
  KC_CHUNK_BUFFER(double, hm_buf);
  for (kc_index hm_i = hm_b; hm_i < hm_e; hm_i++)
    hm_buf[hm_i - hm_b] = hm_y[hm_i];
  hm_y[hm_b] = hm_buf[0];
})
