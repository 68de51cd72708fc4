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

/* A count of Slurm's list grammar: decimal digits, no sign or blank, at
 * least 1 and at most INT_MAX; advances *v past it.  -1 if not one. */
static int slurm_count(const char **v) {
  const char *s = *v;
  long long x = 0;
  while (*s >= '0' && *s <= '9' && x <= INT_MAX)
    x = x * 10 + (*s++ - '0');
  if (s == *v || x < 1 || x > INT_MAX)
    return -1;
  *v = s;
  return (int)x;
}

/* Slurm's tasks of this step per node, N(xK)?(,N(xK)?)* as in "4",
 * "4(x3)" or "4(x2),3": the count when every node has the same, else 0
 * (unknown: SLURM_NODEID numbers the job's nodes, not the step's).  Only
 * the step's variable says it: SLURM_NTASKS_PER_NODE is also set in an
 * sbatch script, whose lone process is no rank of a step.  A value of
 * another grammar, or a list of different counts, is ignored, with a
 * KC_VERBOSE note when `notes`. */
static int slurm_size(int notes) {
  const char *var = "SLURM_STEP_TASKS_PER_NODE", *v = getenv(var);
  if (!v)
    return 0;
  int size = 0, same = 1;
  const char *s = v;
  for (;;) {
    int n = slurm_count(&s);
    if (n > 0 && strncmp(s, "(x", 2) == 0) {
      s += 2;
      if (slurm_count(&s) < 0 || *s++ != ')')
        n = -1;
    }
    if (n < 0 || (*s && *s != ',')) {
      if (notes)
        kc__verbose("%s='%s' is not a Slurm task count list (N or N(xK), "
                    "comma-separated): ignored",
                    var, v);
      return 0;
    }
    same = same && (size == 0 || n == size);
    size = n;
    if (!*s++) {
      if (!same && notes)
        kc__verbose("%s='%s' gives the nodes different task counts: the "
                    "count of this node is unknown (SLURM_NODEID numbers the "
                    "job's nodes), ignored",
                    var, v);
      return same ? size : 0;
    }
  }
}

void kc__local_rank_get(kc__local_rank *out, int notes) {
  memset(out, 0, sizeof *out);
  out->rank = -1;
  for (size_t i = 0; i < sizeof launchers / sizeof *launchers; i++) {
    const char *v = getenv(launchers[i].rank);
    if (!v)
      continue;
    int rank = parse_count(v);
    if (rank < 0) {
      if (notes)
        kc__verbose("%s='%s' is not a node-local rank: ignored",
                    launchers[i].rank, v);
      continue;
    }
    out->rank = rank;
    out->var = launchers[i].rank;
    const char *size_var =
        launchers[i].size ? launchers[i].size : "SLURM_STEP_TASKS_PER_NODE";
    const char *sv = getenv(size_var);
    int size = launchers[i].size ? parse_count(sv) : slurm_size(notes);
    if (size > rank) {
      out->size = size;
      out->size_var = size_var;
    } else if (notes && launchers[i].size && sv && size < 0) {
      kc__verbose("%s='%s' is not a count of ranks: ignored", size_var, sv);
    } else if (notes && sv && (size > 0 || launchers[i].size)) {
      /* (Slurm's 0 is a list kc cannot use, said by slurm_size.) */
      kc__verbose("%s=%d cannot hold %s=%d: ignored", size_var, size, out->var,
                  rank);
    }
    return;
  }
}

int kc__device_choose(const char *backend, const char *path, int ndevices,
                      int *device, char *why, size_t whylen) {
  /* KC_DEVICE_MAP is checked even when KC_DEVICE wins (doc/mpi.md: any
   * other value fails), so that a typo in it shows at once, not on the
   * day KC_DEVICE is dropped from the job script. */
  const char *map = getenv("KC_DEVICE_MAP");
  if (map && *map && strcmp(map, "local-rank") != 0 && strcmp(map, "none"))
    return kc__error(KC_EINVAL,
                     "KC_DEVICE_MAP='%s': use local-rank (the default: the "
                     "node-local rank modulo the devices) or none (device 0)",
                     map);
  /* The launcher's variables are read (and their notes printed) here, once
   * per backend started: kc_host_rank_share reads them again quietly. */
  kc__local_rank lr;
  kc__local_rank_get(&lr, 1);
  const char *v = getenv("KC_DEVICE");
  *device = 0;
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
  if (map && strcmp(map, "none") == 0) {
    snprintf(why, whylen, "KC_DEVICE_MAP=none");
    return 0;
  }
  if (lr.rank < 0) {
    snprintf(why, whylen,
             "default (no KC_DEVICE, no valid launcher local rank)");
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
  kc__local_rank_get(&lr, 0);
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
