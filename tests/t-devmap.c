/* The device a backend with several devices uses, as the core chooses it
 * (libkc/launcher.c): KC_DEVICE when set; else the node-local rank an MPI
 * or Slurm launcher put in the environment, modulo the device count; else
 * 0.  Runs the real path: kc_init on the test plugin `multidev` (4
 * devices), which reports the device the core handed it; kc_info says
 * what chose it, and so does kc-info.  The launcher variables are set
 * here, no MPI needed.  Then a host backend's share of an unbound node
 * (kc_host_rank_share, and the threads pool's default size). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kc/backend.h>

#include "kc-test.h"

static const char *const launcher_vars[] = {
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "OMPI_COMM_WORLD_LOCAL_SIZE",
    "MV2_COMM_WORLD_LOCAL_RANK",
    "MV2_COMM_WORLD_LOCAL_SIZE",
    "MPI_LOCALRANKID",
    "MPI_LOCALNRANKS",
    "SLURM_LOCALID",
    "SLURM_STEP_TASKS_PER_NODE",
    "SLURM_NTASKS_PER_NODE",
    "PMI_LOCAL_RANK",
    "PMI_LOCAL_SIZE",
    "PALS_LOCAL_RANKID",
    "PALS_LOCAL_SIZE",
    "KC_DEVICE",
    "KC_DEVICE_MAP",
    "KC_NUM_THREADS",
};

static void clear_env(void) {
  for (size_t i = 0; i < sizeof launcher_vars / sizeof *launcher_vars; i++)
    unsetenv(launcher_vars[i]);
}

/* kc_init on multidev with `var`=`value` (NULL: none) set on top of the
 * cleared environment; checks the device and what chose it. */
static void expect(const char *var, const char *value, int device,
                   const char *from) {
  clear_env();
  if (var)
    setenv(var, value, 1);
  if (KC_CHECK_OK(kc_init()) != 0)
    return;
  kc_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  KC_CHECK_OK(kc_get_info(&info));
  KC_INFO("%s=%s: device %d, from '%s'", var ? var : "(none)",
          value ? value : "", info.device, info.device_from);
  KC_CHECK_EQ_INT(info.device_count, 4);
  KC_CHECK_EQ_INT(info.device, device);
  KC_CHECK_EQ_STR(info.device_from, from);
  KC_CHECK_OK(kc_finalize());
}

static void launchers(void) {
  expect(NULL, NULL, 0, "default (no KC_DEVICE, no valid launcher local rank)");
  expect("OMPI_COMM_WORLD_LOCAL_RANK", "2", 2,
         "OMPI_COMM_WORLD_LOCAL_RANK=2 (local rank 2 mod 4 devices)");
  expect("MV2_COMM_WORLD_LOCAL_RANK", "5", 1,
         "MV2_COMM_WORLD_LOCAL_RANK=5 (local rank 5 mod 4 devices)");
  expect("MPI_LOCALRANKID", "3", 3,
         "MPI_LOCALRANKID=3 (local rank 3 mod 4 devices)");
  expect("SLURM_LOCALID", "7", 3,
         "SLURM_LOCALID=7 (local rank 7 mod 4 devices)");
  expect("PMI_LOCAL_RANK", "1", 1,
         "PMI_LOCAL_RANK=1 (local rank 1 mod 4 devices)");
  expect("PALS_LOCAL_RANKID", "4", 0,
         "PALS_LOCAL_RANKID=4 (local rank 4 mod 4 devices)");
  /* A local rank far past the devices wraps around. */
  expect("OMPI_COMM_WORLD_LOCAL_RANK", "1001", 1,
         "OMPI_COMM_WORLD_LOCAL_RANK=1001 (local rank 1001 mod 4 devices)");
}

/* A malformed or out-of-range local rank is skipped for the next
 * launcher's variable (or the default). */
static void malformed(void) {
  static const char *const bad[] = {"", "-1", "x", "2x", "99999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    clear_env();
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", bad[i], 1);
    setenv("SLURM_LOCALID", "6", 1);
    if (KC_CHECK_OK(kc_init()) != 0)
      continue;
    kc_info info = {.struct_size = sizeof info};
    KC_CHECK_OK(kc_get_info(&info));
    KC_INFO("OMPI_COMM_WORLD_LOCAL_RANK='%s': device %d from '%s'", bad[i],
            info.device, info.device_from);
    KC_CHECK_EQ_INT(info.device, 2);
    KC_CHECK_CONTAINS(info.device_from, "SLURM_LOCALID=6");
    KC_CHECK_OK(kc_finalize());
  }
  /* Every launcher variable malformed: the default, which says so. */
  clear_env();
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "x", 1);
  setenv("SLURM_LOCALID", "-1", 1);
  if (KC_CHECK_OK(kc_init()) == 0) {
    kc_info info = {.struct_size = sizeof info};
    KC_CHECK_OK(kc_get_info(&info));
    KC_CHECK_EQ_INT(info.device, 0);
    KC_CHECK_EQ_STR(info.device_from,
                    "default (no KC_DEVICE, no valid launcher local rank)");
    KC_CHECK_OK(kc_finalize());
  }
}

/* Open MPI's variable wins over Slurm's (mpirun under srun). */
static void precedence(void) {
  clear_env();
  setenv("SLURM_LOCALID", "0", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "3", 1);
  KC_CHECK_OK(kc_init());
  kc_info info = {.struct_size = sizeof info};
  KC_CHECK_OK(kc_get_info(&info));
  KC_CHECK_EQ_INT(info.device, 3);
  KC_CHECK_CONTAINS(info.device_from, "OMPI_COMM_WORLD_LOCAL_RANK=3");
  KC_CHECK_OK(kc_finalize());
}

/* KC_DEVICE wins; KC_DEVICE_MAP=none turns the mapping off. */
static void overrides(void) {
  clear_env();
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
  setenv("KC_DEVICE", "3", 1);
  KC_CHECK_OK(kc_init());
  kc_info info = {.struct_size = sizeof info};
  KC_CHECK_OK(kc_get_info(&info));
  KC_CHECK_EQ_INT(info.device, 3);
  KC_CHECK_EQ_STR(info.device_from, "KC_DEVICE=3");
  KC_CHECK_OK(kc_finalize());

  setenv("KC_DEVICE", "4", 1);
  KC_CHECK_ERR(kc_init(), KC_ENODEV);
  KC_CHECK_CONTAINS(kc_last_error(), "KC_DEVICE=4");
  setenv("KC_DEVICE", "one", 1);
  KC_CHECK_ERR(kc_init(), KC_EINVAL);
  unsetenv("KC_DEVICE");

  setenv("KC_DEVICE_MAP", "none", 1);
  KC_CHECK_OK(kc_init());
  KC_CHECK_OK(kc_get_info(&info));
  KC_CHECK_EQ_INT(info.device, 0);
  KC_CHECK_EQ_STR(info.device_from, "KC_DEVICE_MAP=none");
  KC_CHECK_OK(kc_finalize());
  setenv("KC_DEVICE_MAP", "local-rank", 1);
  KC_CHECK_OK(kc_init());
  KC_CHECK_OK(kc_get_info(&info));
  KC_CHECK_EQ_INT(info.device, 1);
  KC_CHECK_OK(kc_finalize());
  setenv("KC_DEVICE_MAP", "random", 1);
  KC_CHECK_ERR(kc_init(), KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), "KC_DEVICE_MAP='random'");
  /* Checked even when KC_DEVICE decides (doc/mpi.md: any other value
   * fails). */
  setenv("KC_DEVICE", "1", 1);
  setenv("KC_DEVICE_MAP", "bogus", 1);
  KC_CHECK_ERR(kc_init(), KC_EINVAL);
  KC_CHECK_CONTAINS(kc_last_error(), "KC_DEVICE_MAP='bogus'");
  if (kc_is_initialized())
    kc_finalize();
  clear_env();
}

/* A host backend has no device (kc_info: device -1, "host backend"):
 * KC_DEVICE does not apply to it and is ignored, with a KC_VERBOSE note.
 * A backend that has one device still refuses KC_DEVICE=1. */
static void host_ignores_device(void) {
  const char *built = getenv("KC_TEST_BACKENDS");
  static const char *const hosts[] = {"serial", "threads", "openmp"};
  for (int b = 0; b < 3; b++) {
    if (b > 0 && (!built || !strstr(built, hosts[b])))
      continue;
    clear_env();
    setenv("KC_PLUGIN_PATH", getenv("KC_TEST_PLUGIN_PATH"), 1);
    setenv("KC_BACKEND", hosts[b], 1);
    setenv("KC_DEVICE", "1", 1);
    if (KC_CHECK_OK(kc_init()) != 0) {
      KC_INFO("%s, KC_DEVICE=1: %s", hosts[b], kc_last_error());
      continue;
    }
    kc_info info = {.struct_size = sizeof info};
    KC_CHECK_OK(kc_get_info(&info));
    KC_CHECK_EQ_INT(info.device, -1);
    KC_CHECK_EQ_STR(info.device_from, "host backend");
    KC_CHECK_OK(kc_finalize());
  }
  clear_env();
  setenv("KC_PLUGIN_PATH", getenv("KC_TEST_PLUGIN_DIR"), 1);
  setenv("KC_BACKEND", "multidev", 1);
  setenv("KC_TEST_MULTIDEV_COUNT", "1", 1);
  setenv("KC_DEVICE", "1", 1);
  KC_CHECK_ERR(kc_init(), KC_ENODEV);
  KC_CHECK_CONTAINS(kc_last_error(), "KC_DEVICE=1 but backend 'multidev' (");
  KC_CHECK_CONTAINS(kc_last_error(), "has 1 device(s)");
  if (kc_is_initialized())
    kc_finalize();
  unsetenv("KC_TEST_MULTIDEV_COUNT");
  clear_env();
}

/* kc-info's output (stdout and stderr) with `env` (VAR=value ...) before
 * it on the command line, on the cleared environment; NULL if it did not
 * exit 0. */
static const char *kc_info_run(const char *env) {
  clear_env();
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s KC_VERBOSE=1 '%s/tools/kc-info' 2>&1", env,
           getenv("KC_TEST_TOP_BUILDDIR"));
  FILE *p = popen(cmd, "r");
  KC_REQUIRE(p != NULL);
  static char out[1 << 16];
  size_t n = fread(out, 1, sizeof out - 1, p);
  out[n] = '\0';
  int st = pclose(p);
  KC_CHECK_EQ_INT(st, 0);
  return st == 0 ? out : NULL;
}

/* Occurrences of `what` in `s`. */
static int count_of(const char *s, const char *what) {
  int n = 0;
  for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what))
    n++;
  return n;
}

/* kc-info prints the device and what chose it; KC_VERBOSE says it too. */
static void kc_info_tool(void) {
  const char *out = kc_info_run("OMPI_COMM_WORLD_LOCAL_RANK=5");
  if (!out)
    return;
  KC_CHECK_CONTAINS(out, "\ndevice: 1\n");
  KC_CHECK_CONTAINS(out, "\ndevice-from: OMPI_COMM_WORLD_LOCAL_RANK=5 (local "
                         "rank 5 mod 4 devices)\n");
  KC_CHECK_CONTAINS(out, "kc: device 1 of 4, chosen by "
                         "OMPI_COMM_WORLD_LOCAL_RANK=5");
}

/* What KC_VERBOSE says of launcher variables kc ignores, once per
 * kc_init, on a host backend (which reads them twice: for the device and
 * for its pool's share) and on multidev. */
static void verbose_notes(void) {
  const char *built = getenv("KC_TEST_BACKENDS");
  const char *host = built && strstr(built, "threads") ? "threads" : "serial";
  char env[1024];
  snprintf(env, sizeof env, "KC_PLUGIN_PATH='%s' KC_BACKEND=%s",
           getenv("KC_TEST_PLUGIN_PATH"), host);
  const char *const backends[] = {env, "KC_BACKEND=multidev"};
  for (int b = 0; b < 2; b++) {
    char cmd[2048];
    /* A rank past its launcher's size: the size is ignored, and said. */
    snprintf(cmd, sizeof cmd,
             "%s OMPI_COMM_WORLD_LOCAL_RANK=5 OMPI_COMM_WORLD_LOCAL_SIZE=2",
             backends[b]);
    const char *out = kc_info_run(cmd);
    if (out) {
      KC_INFO("%s:\n%s", cmd, out);
      KC_CHECK_EQ_INT(count_of(out, "OMPI_COMM_WORLD_LOCAL_SIZE=2 cannot "
                                    "hold OMPI_COMM_WORLD_LOCAL_RANK=5: "
                                    "ignored"),
                      1);
    }
    /* A malformed rank: one note per kc_init. */
    snprintf(cmd, sizeof cmd,
             "%s OMPI_COMM_WORLD_LOCAL_RANK=x SLURM_LOCALID=1 "
             "SLURM_STEP_TASKS_PER_NODE=2x",
             backends[b]);
    if ((out = kc_info_run(cmd)) != NULL) {
      KC_INFO("%s:\n%s", cmd, out);
      KC_CHECK_EQ_INT(
          count_of(out,
                   "OMPI_COMM_WORLD_LOCAL_RANK='x' is not a node-local rank: "
                   "ignored"),
          1);
      KC_CHECK_EQ_INT(count_of(out, "SLURM_STEP_TASKS_PER_NODE='2x' is not "
                                    "a Slurm task count"),
                      1);
    }
    /* Nodes of different task counts: this node's is unknown, said. */
    snprintf(cmd, sizeof cmd,
             "%s SLURM_LOCALID=1 SLURM_STEP_TASKS_PER_NODE='2(x3),1'",
             backends[b]);
    if ((out = kc_info_run(cmd)) != NULL) {
      KC_INFO("%s:\n%s", cmd, out);
      KC_CHECK_EQ_INT(count_of(out, "SLURM_STEP_TASKS_PER_NODE='2(x3),1' "
                                    "gives the nodes different task counts"),
                      1);
    }
  }
  /* KC_DEVICE on a host backend. */
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s KC_DEVICE=1", env);
  const char *out = kc_info_run(cmd);
  if (out) {
    KC_CHECK_CONTAINS(out, "\ndevice-from: host backend\n");
    KC_CHECK_CONTAINS(out, "kc: KC_DEVICE=1 does not apply to host backend");
  }
}

/* Host backends: L unbound ranks on a node take a slice each. */
static void host_share(void) {
  clear_env();
  int online = (int)sysconf(_SC_NPROCESSORS_ONLN), first = -1;
  KC_CHECK_EQ_INT(kc_host_rank_share(online, &first), online);
  KC_CHECK_EQ_INT(first, 0);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1);
  /* Rank 1 of 2 takes the second half (the first rank the odd CPU). */
  KC_CHECK_EQ_INT(kc_host_rank_share(online, &first),
                  online > 1 ? online / 2 : 1);
  KC_CHECK_EQ_INT(first, online > 1 ? online / 2 + online % 2 : 0);
  /* A mask narrower than the machine is the launcher's binding. */
  if (online > 1) {
    KC_CHECK_EQ_INT(kc_host_rank_share(online - 1, &first), online - 1);
    KC_CHECK_EQ_INT(first, 0);
  }
  /* More ranks than CPUs: one CPU each, round-robin. */
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "1000", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "999", 1);
  KC_CHECK_EQ_INT(kc_host_rank_share(online, &first), 1);
  KC_CHECK_EQ_INT(first, 999 % online);
  /* A size that cannot hold the rank is ignored. */
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "2", 1);
  KC_CHECK_EQ_INT(kc_host_rank_share(online, &first), online);
  /* Slurm: the tasks per node of the step, when every node has the same. */
  clear_env();
  setenv("SLURM_LOCALID", "0", 1);
  setenv("SLURM_STEP_TASKS_PER_NODE", "2(x3)", 1);
  KC_CHECK_EQ_INT(kc_host_rank_share(online, &first), online / 2 + online % 2);
  static const char *const same[] = {"2", "2,2", "2(x3),2", "02"};
  for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
    setenv("SLURM_STEP_TASKS_PER_NODE", same[i], 1);
    KC_CHECK_EQ_INT(kc_host_rank_share(online, &first),
                    online / 2 + online % 2);
  }
  setenv("SLURM_STEP_TASKS_PER_NODE", "2(x3),1", 1);
  KC_CHECK_EQ_INT(kc_host_rank_share(online, &first), online);
  /* Not Slurm's grammar N(xK)?(,N(xK)?)*: ignored, the whole node. */
  static const char *const bad[] = {
      "",     "2x", "2)))",      "2(x3)9",        " 2",        "+2", "2 ",
      "2,",   ",2", "2(x)",      "2(3)",          "2(x3",      "0",  "2(x0)",
      "2,,2", "-2", "2(x3)(x3)", "9999999999999", "2147483648"};
  setenv("SLURM_LOCALID", "1", 1);
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    setenv("SLURM_STEP_TASKS_PER_NODE", bad[i], 1);
    int n = kc_host_rank_share(online, &first);
    if (n != online || first != 0)
      KC_FAIL("SLURM_STEP_TASKS_PER_NODE='%s': %d CPUs from %d, want all %d",
              bad[i], n, first, online);
  }
  /* SLURM_NTASKS_PER_NODE is the job's, set in an sbatch script too, whose
   * lone process is no rank of a step: it takes the whole node. */
  clear_env();
  setenv("SLURM_LOCALID", "0", 1);
  setenv("SLURM_NTASKS_PER_NODE", "2", 1);
  KC_CHECK_EQ_INT(kc_host_rank_share(online, &first), online);
  KC_CHECK_EQ_INT(first, 0);
}

/* The host backends' default size: two unbound ranks on this node get
 * half of it each (rank 0 the odd CPU); one bound to fewer CPUs than the
 * machine has keeps its mask.  KC_NUM_THREADS still wins. */
static void host_pools(void) {
  const char *built = getenv("KC_TEST_BACKENDS");
  int online = (int)sysconf(_SC_NPROCESSORS_ONLN);
  int mask = kc_host_cpu_count();
  setenv("KC_PLUGIN_PATH", getenv("KC_TEST_PLUGIN_PATH"), 1);
  static const char *const hosts[] = {"threads", "openmp"};
  for (int b = 0; b < 2; b++) {
    if (!built || !strstr(built, hosts[b])) {
      KC_INFO("backend %s not built: not checked", hosts[b]);
      continue;
    }
    /* An OMP_NUM_THREADS the runtime ignores (empty, not a number) is no
     * choice of the user's: the rank still takes its share (openmp took
     * the whole node). */
    static const char *const omp[] = {NULL, "", "abc"};
    for (int k = 0; k < 6; k++) {
      const int rank = k % 2;
      if (k >= 2 && b == 0)
        break;
      clear_env();
      if (omp[k / 2])
        setenv("OMP_NUM_THREADS", omp[k / 2], 1);
      else
        unsetenv("OMP_NUM_THREADS");
      setenv("KC_BACKEND", hosts[b], 1);
      char r[8];
      snprintf(r, sizeof r, "%d", rank);
      setenv("OMPI_COMM_WORLD_LOCAL_RANK", r, 1);
      setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1);
      int want = mask < online ? mask
                 : online < 2  ? 1
                               : online / 2 + (rank == 0 ? online % 2 : 0);
      if (KC_CHECK_OK(kc_init()) != 0)
        continue;
      kc_info info = {.struct_size = sizeof info};
      KC_CHECK_OK(kc_get_info(&info));
      KC_INFO("%s, local rank %d of 2, %d of %d CPUs in the mask, "
              "OMP_NUM_THREADS %s: %d thread(s)",
              hosts[b], rank, mask, online, omp[k / 2] ? omp[k / 2] : "unset",
              info.num_threads);
      KC_CHECK_EQ_INT(info.num_threads, want);
      KC_CHECK_OK(kc_finalize());
    }
    unsetenv("OMP_NUM_THREADS");
    setenv("KC_NUM_THREADS", "3", 1);
    if (KC_CHECK_OK(kc_init()) == 0) {
      kc_info info = {.struct_size = sizeof info};
      KC_CHECK_OK(kc_get_info(&info));
      KC_CHECK_EQ_INT(info.num_threads, 3);
      KC_CHECK_OK(kc_finalize());
    }
  }
  clear_env();
}

/* Allocations on every device of a backend with mem_alloc_on: the core
 * passes the device to the plugin (which fills the memory with its
 * number), records it (kc_pointer_device), and the default device's
 * allocations go through mem_alloc.  A queue on another device needs
 * queue slots, which multidev lacks: KC_ENOTSUP. */
static void devices_alloc(void) {
  clear_env();
  setenv("KC_PLUGIN_PATH", getenv("KC_TEST_PLUGIN_DIR"), 1);
  setenv("KC_BACKEND", "multidev", 1);
  setenv("KC_DEVICE", "1", 1);
  if (KC_CHECK_OK(kc_init()) != 0)
    return;
  for (int d = 0; d < 4; d++) {
    unsigned char *p = NULL;
    int dev = -5;
    KC_CHECK_OK(kc_malloc_on((void **)&p, 16, KC_SPACE_DEVICE, d, "on"));
    KC_CHECK(p && p[0] == d && p[15] == d);
    KC_CHECK_OK(kc_pointer_device(p + 15, &dev));
    KC_CHECK_EQ_INT(dev, d);
    KC_CHECK_OK(kc_free(p));
  }
  unsigned char *p = NULL, *h = NULL;
  int dev = -5;
  KC_CHECK_OK(kc_malloc((void **)&p, 8, KC_SPACE_DEVICE, "default"));
  KC_CHECK(p && p[0] == 1);
  KC_CHECK_OK(kc_pointer_device(p, &dev));
  KC_CHECK_EQ_INT(dev, 1);
  KC_CHECK_OK(kc_malloc_on((void **)&h, 8, KC_SPACE_HOST, 3, "host"));
  KC_CHECK(h && h[0] == 3);
  KC_CHECK_OK(kc_pointer_device(h, &dev));
  KC_CHECK_EQ_INT(dev, -1);
  KC_CHECK_ERR(kc_malloc_on((void **)&h, 8, KC_SPACE_DEVICE, 4, "none"),
               KC_EINVAL);
  kc_queue *q = NULL;
  KC_CHECK_ERR(kc_queue_create(&q, 2), KC_ENOTSUP);
  KC_CHECK(strstr(kc_last_error(), "drives only device 1") != NULL);
  KC_CHECK_OK(kc_queue_create(&q, 1));
  KC_CHECK_OK(kc_queue_destroy(q));
  KC_CHECK_OK(kc_free(p));
  KC_CHECK_OK(kc_free(h));
  KC_CHECK_OK(kc_finalize());
  clear_env();
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *dir = getenv("KC_TEST_PLUGIN_DIR");
  if (!dir || !getenv("KC_TEST_TOP_BUILDDIR")) {
    printf("ERROR: run me through tests/run-backend (make check)\n");
    return KC_TEST_HARD_ERROR;
  }
  setenv("KC_PLUGIN_PATH", dir, 1);
  setenv("KC_BACKEND", "multidev", 1);
  unsetenv("KC_TEST_MULTIDEV_COUNT");
  launchers();
  malformed();
  precedence();
  overrides();
  kc_info_tool();
  verbose_notes();
  host_ignores_device();
  host_share();
  host_pools();
  devices_alloc();
  return kc_test_done();
}
