/* libkc — policy constructors.  They cannot fail (they return a struct);
 * whatever is wrong with a policy is reported by the launch that uses it. */
#include <config.h>

#include <string.h>

#include "internal.h"

static kc_policy base(kc_policy_kind kind, int rank) {
  kc_policy p;
  memset(&p, 0, sizeof p);
  p.kind = kind;
  p.rank = rank;
  p.schedule = KC_SCHEDULE_STATIC;
  p.chunk = KC_AUTO;
  p.team_size = KC_AUTO;
  p.vector_length = 1;
  return p;
}

kc_policy kc_range(kc_index begin, kc_index end) {
  kc_policy p = base(KC_POLICY_RANGE, 1);
  p.begin[0] = begin;
  p.end[0] = end;
  return p;
}

kc_policy kc_range_schedule(kc_index begin, kc_index end, kc_schedule schedule,
                            kc_index chunk) {
  kc_policy p = kc_range(begin, end);
  p.schedule = schedule;
  p.chunk = chunk;
  return p;
}

kc_policy kc_mdrange(int rank, const kc_index *begin, const kc_index *end,
                     const kc_index *tile) {
  kc_policy p = base(KC_POLICY_MDRANGE, rank);
  int n = rank < 0 ? 0 : rank > KC_MAX_RANK ? KC_MAX_RANK : rank;
  for (int d = 0; d < n; d++) {
    p.begin[d] = begin ? begin[d] : 0;
    p.end[d] = end ? end[d] : 0;
    p.tile[d] = tile ? tile[d] : 0;
  }
  return p;
}

kc_policy kc_team_policy(kc_index league_size, int team_size,
                         int vector_length) {
  kc_policy p = base(KC_POLICY_TEAM, 1);
  p.begin[0] = 0;
  p.end[0] = league_size;
  p.league_size = league_size;
  p.team_size = team_size;
  p.vector_length = vector_length;
  return p;
}

int kc_policy_set_iterate(kc_policy *p, kc_iterate order) {
  if (!p)
    return kc__error(KC_EINVAL, "kc_policy_set_iterate: policy is NULL");
  if (p->kind != KC_POLICY_MDRANGE)
    return kc__error(KC_EINVAL,
                     "kc_policy_set_iterate: the iteration order is for MD "
                     "range policies (kc_mdrange)");
  if (order != KC_ITERATE_RIGHT && order != KC_ITERATE_LEFT)
    return kc__error(KC_EINVAL,
                     "kc_policy_set_iterate: %d is not an order; use "
                     "KC_ITERATE_RIGHT or KC_ITERATE_LEFT",
                     (int)order);
  p->iterate = order;
  return 0;
}

int kc_policy_set_scratch(kc_policy *p, int level, size_t per_team,
                          size_t per_thread) {
  if (!p)
    return kc__error(KC_EINVAL, "kc_policy_set_scratch: policy is NULL");
  if (level < 0 || level > 1)
    return kc__error(KC_EINVAL,
                     "kc_policy_set_scratch: level %d; scratch levels are 0 "
                     "(fast, small) and 1 (large)",
                     level);
  p->scratch_per_team[level] = per_team;
  p->scratch_per_thread[level] = per_thread;
  return 0;
}
