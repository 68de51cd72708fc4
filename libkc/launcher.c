/* libkc — the node-local rank a launcher gives this process (launcher.h),
 * the device it maps to, and a host backend's share of an unbound node.
 * Only the environment is read: libkc knows nothing of MPI itself. */
#include <config.h>

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher.h"

/* The launchers kc knows, in the order they are tried: the MPI libraries
 * first, because mpirun inside a Slurm allocation starts its daemons with
 * srun, and every rank a daemon starts then sees SLURM_LOCALID=0.  Slurm
 * gives no single variable for the ranks on this node (see slurm_size). */
static const struct {
  const char *rank, *size;
} launchers[] = {
    {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
    {"MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE"},
    {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
    {"SLURM_LOCALID", NULL},
    {"PMI_LOCAL_RANK", "PMI_LOCAL_SIZE"},
    {"PALS_LOCAL_RANKID", "PALS_LOCAL_SIZE"},
};

/* A non-negative decimal number filling the whole string; -1 if not. */
static int parse_count(const char *v) {
  if (!v || *v < '0' || *v > '9')
    return -1;
  char *end;
  long x = strtol(v, &end, 10);
  return *end || x > INT_MAX ? -1 : (int)x;
}

/* Slurm's tasks of this step per node, "4" or "4(x3)" or "4(x2),3": the
 * count when every node has the same, else 0 (unknown: SLURM_NODEID
 * numbers the job's nodes, not the step's). */
static int slurm_size(void) {
  const char *v = getenv("SLURM_STEP_TASKS_PER_NODE");
  if (!v || !*v)
    return parse_count(getenv("SLURM_NTASKS_PER_NODE")) > 0
               ? parse_count(getenv("SLURM_NTASKS_PER_NODE"))
               : 0;
  int size = -1;
  while (*v) {
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v || n <= 0 || n > INT_MAX || (size >= 0 && n != size))
      return 0;
    size = (int)n;
    v = end + strspn(end, "(x0123456789)");
    if (*v == ',')
      v++;
    else if (*v)
      return 0;
  }
  return size > 0 ? size : 0;
}

void kc__local_rank_get(kc__local_rank *out) {
  memset(out, 0, sizeof *out);
  out->rank = -1;
  for (size_t i = 0; i < sizeof launchers / sizeof *launchers; i++) {
    const char *v = getenv(launchers[i].rank);
    if (!v)
      continue;
    int rank = parse_count(v);
    if (rank < 0) {
      kc__verbose("%s='%s' is not a node-local rank: ignored",
                  launchers[i].rank, v);
      continue;
    }
    out->rank = rank;
    out->var = launchers[i].rank;
    int size = launchers[i].size ? parse_count(getenv(launchers[i].size))
                                 : slurm_size();
    if (size > rank) { /* a size that cannot hold the rank is no size */
      out->size = size;
      out->size_var =
          launchers[i].size ? launchers[i].size : "SLURM_STEP_TASKS_PER_NODE";
    }
    return;
  }
}

int kc__device_choose(const char *backend, const char *path, int ndevices,
                      int *device, char *why, size_t whylen) {
  const char *v = getenv("KC_DEVICE");
  if (v && *v) {
    int d = parse_count(v);
    if (d < 0 || d > 1000000)
      return kc__error(KC_EINVAL, "KC_DEVICE='%s' is not a device number", v);
    if (d >= ndevices)
      return kc__error(KC_ENODEV,
                       "KC_DEVICE=%d but backend '%s' (%s) has %d device(s)", d,
                       backend, path, ndevices);
    *device = d;
    snprintf(why, whylen, "KC_DEVICE=%d", d);
    return 0;
  }
  const char *map = getenv("KC_DEVICE_MAP");
  if (map && *map && strcmp(map, "local-rank") != 0 && strcmp(map, "none"))
    return kc__error(KC_EINVAL,
                     "KC_DEVICE_MAP='%s': use local-rank (the default: the "
                     "node-local rank modulo the devices) or none (device 0)",
                     map);
  *device = 0;
  if (map && strcmp(map, "none") == 0) {
    snprintf(why, whylen, "KC_DEVICE_MAP=none");
    return 0;
  }
  kc__local_rank lr;
  kc__local_rank_get(&lr);
  if (lr.rank < 0) {
    snprintf(why, whylen, "default (no KC_DEVICE, no launcher's local rank)");
    return 0;
  }
  *device = lr.rank % ndevices;
  snprintf(why, whylen, "%s=%d (local rank %d mod %d device%s)", lr.var,
           lr.rank, lr.rank, ndevices, ndevices == 1 ? "" : "s");
  return 0;
}

/* Online CPUs of the machine; 0 if unknown. */
static int online_cpus(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 && n < INT_MAX ? (int)n : 0;
}

int kc_host_rank_share(int ncpus, int *first) {
  *first = 0;
  kc__local_rank lr;
  kc__local_rank_get(&lr);
  /* A mask narrower than the machine is the launcher's binding (or the
   * user's): it is this rank's share already. */
  if (ncpus < 1 || lr.size < 2 || ncpus < online_cpus())
    return ncpus;
  /* Rank r of L takes the r-th of L consecutive slices; the first
   * ncpus % L ranks take one CPU more.  Fewer CPUs than ranks: ranks
   * share CPUs round-robin, one each. */
  int n = 1;
  if (ncpus < lr.size) {
    *first = lr.rank % ncpus;
  } else {
    int base = ncpus / lr.size, extra = ncpus % lr.size;
    *first = lr.rank * base + (lr.rank < extra ? lr.rank : extra);
    n = base + (lr.rank < extra);
  }
  kc__verbose("%s=%d, %s=%d, and the launcher did not bind this rank: it "
              "takes CPUs %d..%d of the %d in its mask",
              lr.var, lr.rank, lr.size_var, lr.size, *first, *first + n - 1,
              ncpus);
  return n;
}
