/* kc threads backend — which CPUs the pool's threads run on (see
 * placement.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "placement.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A CPU set of `ncpu` bits (CPU_ALLOC), large enough for the kernel's. */
typedef struct cpuset {
  cpu_set_t *set;
  size_t ncpu;
} cpuset;

static size_t set_bytes(const cpuset *s) { return CPU_ALLOC_SIZE(s->ncpu); }

/* The calling thread's affinity mask.  The kernel refuses (EINVAL) a
 * buffer smaller than its own mask, so grow until it fits. */
static int thread_mask(cpuset *out) {
  for (size_t ncpu = 1024; ncpu <= (1u << 20); ncpu *= 2) {
    cpu_set_t *set = CPU_ALLOC(ncpu);
    if (set == NULL)
      return -ENOMEM;
    if (sched_getaffinity(0, CPU_ALLOC_SIZE(ncpu), set) == 0) {
      out->set = set;
      out->ncpu = ncpu;
      return 0;
    }
    int e = errno;
    CPU_FREE(set);
    if (e != EINVAL)
      return -e;
  }
  return -EINVAL;
}

/* The probe thread: asks for every CPU, reads back what the kernel gave
 * (the request intersected with the process's cpuset).  Its own affinity
 * is all it changes, and it exits at once. */
static void *probe_main(void *arg) {
  cpuset *s = arg;
  size_t bytes = set_bytes(s);
  memset(s->set, 0xff, bytes);
  if (sched_setaffinity(0, bytes, s->set) != 0 ||
      sched_getaffinity(0, bytes, s->set) != 0)
    CPU_ZERO_S(bytes, s->set);
  return NULL;
}

/* The CPUs the process may use, into `allowed` (same size as `mask`, and
 * always including it).  Without a probe (the mask already holds every
 * online CPU, or no thread could be started) that is the mask itself. */
static void allowed_cpus(const cpuset *mask, cpuset *allowed) {
  size_t bytes = set_bytes(mask);
  memcpy(allowed->set, mask->set, bytes);
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (online > 0 && CPU_COUNT_S(bytes, mask->set) >= online)
    return;
  cpuset probe = {CPU_ALLOC(mask->ncpu), mask->ncpu};
  pthread_t t;
  if (probe.set == NULL)
    return;
  if (pthread_create(&t, NULL, probe_main, &probe) == 0 &&
      pthread_join(t, NULL) == 0)
    CPU_OR_S(bytes, allowed->set, allowed->set, probe.set);
  CPU_FREE(probe.set);
}

/* Appends the CPUs of `set` that are not in `skip` (may be NULL) to
 * order[*n], in increasing order. */
static void append_cpus(const cpuset *set, const cpuset *skip, int *order,
                        int *n) {
  size_t bytes = set_bytes(set);
  for (size_t c = 0; c < set->ncpu; c++)
    if (CPU_ISSET_S(c, bytes, set->set) &&
        (skip == NULL || !CPU_ISSET_S(c, bytes, skip->set)))
      order[(*n)++] = (int)c;
}

/* "0-3,8": the CPUs of `set` as ranges, "..." at the end if cut. */
static void format_cpus(const cpuset *set, char *buf, size_t cap) {
  size_t bytes = set_bytes(set), len = 0;
  buf[0] = '\0';
  for (size_t c = 0; c < set->ncpu; c++) {
    if (!CPU_ISSET_S(c, bytes, set->set))
      continue;
    size_t last = c;
    while (last + 1 < set->ncpu && CPU_ISSET_S(last + 1, bytes, set->set))
      last++;
    char item[48];
    if (last == c)
      snprintf(item, sizeof item, "%s%zu", len ? "," : "", c);
    else
      snprintf(item, sizeof item, "%s%zu-%zu", len ? "," : "", c, last);
    if (len + strlen(item) + 4 > cap) {
      snprintf(buf + len, cap - len, "...");
      return;
    }
    memcpy(buf + len, item, strlen(item) + 1);
    len += strlen(item);
    c = last;
  }
}

/* The core `cpu` belongs to, named by the first CPU of its list of
 * hardware threads ("0,16" or "0-1": 0); the CPU itself when sysfs does
 * not say (then every CPU counts as a core). */
static int core_of(int cpu) {
  static const char *const files[] = {"core_cpus_list", "thread_siblings_list"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char path[96];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s",
             cpu, files[i]);
    FILE *f = fopen(path, "r");
    if (f == NULL)
      continue;
    int first;
    int got = fscanf(f, "%d", &first) == 1;
    fclose(f);
    if (got)
      return first;
  }
  return cpu;
}

void kc__placement_arrange(int *order, int *core, int n, int head, int here) {
  for (int i = 1; i < head && i < n; i++) {
    if (order[i] != here)
      continue;
    int c = core[i];
    memmove(order + 1, order, (size_t)i * sizeof *order);
    memmove(core + 1, core, (size_t)i * sizeof *core);
    order[0] = here;
    core[0] = c;
    break;
  }
  /* Pass r takes the CPUs that are the r-th of their core in the list. */
  int *rank = malloc((size_t)n * sizeof *rank);
  int *tmp = malloc(2 * (size_t)n * sizeof *tmp);
  if (rank != NULL && tmp != NULL) {
    int top = 0, m = 0;
    for (int i = 0; i < n; i++) {
      rank[i] = 0;
      for (int j = 0; j < i; j++)
        rank[i] += core[j] == core[i];
      if (rank[i] > top)
        top = rank[i];
    }
    for (int r = 0; r <= top; r++)
      for (int i = 0; i < n; i++)
        if (rank[i] == r) {
          tmp[m] = order[i];
          tmp[n + m++] = core[i];
        }
    memcpy(order, tmp, (size_t)n * sizeof *order);
    memcpy(core, tmp + n, (size_t)n * sizeof *core);
  }
  free(rank);
  free(tmp);
}

/* The list's order: the caller's current CPU first, then one CPU of each
 * core before a second one of any (see kc__placement_arrange). */
static void arrange(kc__placement *out, int head) {
  int *core = malloc((size_t)out->n * sizeof *core);
  if (core == NULL)
    return;
  for (int i = 0; i < out->n; i++)
    core[i] = core_of(out->order[i]);
  kc__placement_arrange(out->order, core, out->n, head, sched_getcpu());
  free(core);
}

int kc__placement_find(kc__pool_bind bind, kc__placement *out, char *err,
                       size_t errlen) {
  memset(out, 0, sizeof *out);
  cpuset mask = {NULL, 0}, allowed;
  int rc = thread_mask(&mask);
  if (rc != 0) {
    snprintf(err, errlen, "%s: %s",
             rc == -ENOMEM ? "reading the affinity mask" : "sched_getaffinity",
             strerror(-rc));
    return rc;
  }
  allowed.ncpu = mask.ncpu;
  allowed.set = CPU_ALLOC(mask.ncpu);
  if (allowed.set == NULL) {
    CPU_FREE(mask.set);
    snprintf(err, errlen, "cannot allocate a CPU set");
    return -ENOMEM;
  }
  allowed_cpus(&mask, &allowed);
  out->mask = CPU_COUNT_S(set_bytes(&mask), mask.set);
  out->allowed = CPU_COUNT_S(set_bytes(&allowed), allowed.set);
  format_cpus(&mask, out->mask_list, sizeof out->mask_list);
  format_cpus(&allowed, out->allowed_list, sizeof out->allowed_list);

  /* The caller's CPUs first; SPREAD adds the rest of the allowed ones.
   * Then arrange() puts the CPU it runs on first and spreads over cores. */
  out->order = malloc((size_t)(out->allowed > 0 ? out->allowed : 1) *
                      sizeof *out->order);
  if (out->order != NULL) {
    append_cpus(&mask, NULL, out->order, &out->n);
    int head = out->n;
    if (bind == KC__POOL_BIND_SPREAD)
      append_cpus(&allowed, &mask, out->order, &out->n);
    arrange(out, head);
  }
  CPU_FREE(mask.set);
  CPU_FREE(allowed.set);
  if (out->order == NULL) {
    snprintf(err, errlen, "cannot allocate a list of %d CPUs", out->allowed);
    return -ENOMEM;
  }
  if (out->n == 0) { /* an empty mask cannot happen on Linux; be safe */
    out->order[0] = 0;
    out->n = 1;
  }
  return 0;
}

void kc__placement_free(kc__placement *p) {
  free(p->order);
  p->order = NULL;
}
