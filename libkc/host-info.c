/* libkc — what the host offers, for host backends' info slots. */
#include <config.h>

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "internal.h"

int kc_backend_block_signals(void *old) {
  /* Synchronous signals stay open (a kernel's fault must still kill or
   * reach its handler on the thread that faulted; SIGPIPE and SIGXFSZ come
   * to the thread whose write caused them), and so do the profiling
   * timers' signals (profilers sample every thread). */
  static const int open_ones[] = {SIGSEGV, SIGBUS,  SIGFPE,   SIGILL,
                                  SIGTRAP, SIGSYS,  SIGABRT,  SIGPIPE,
                                  SIGXFSZ, SIGPROF, SIGVTALRM};
  sigset_t s;
  sigfillset(&s);
  for (size_t i = 0; i < sizeof open_ones / sizeof open_ones[0]; i++)
    sigdelset(&s, open_ones[i]);
  int rc = pthread_sigmask(SIG_BLOCK, &s, (sigset_t *)old);
  return rc == 0 ? 0
                 : kc__error(KC_EINVAL, "kc_backend_block_signals: %s",
                             strerror(rc));
}

int kc_host_cpu_count(void) {
  /* The affinity mask, not the machine: a process bound by taskset, an MPI
   * launcher or OMP_PROC_BIND must not size its pools past its CPUs. */
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0)
      return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* The value of the first "key : value" line of /proc/cpuinfo. */
static int cpuinfo(const char *key, char *out, size_t cap) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return 0;
  char line[512];
  size_t klen = strlen(key);
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    if (strncmp(line, key, klen) != 0)
      continue;
    char *p = line + klen;
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p != ':')
      continue;
    p++;
    while (*p == ' ' || *p == '\t')
      p++;
    size_t n = strcspn(p, "\n");
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
      n--;
    if (n == 0)
      continue;
    snprintf(out, cap, "%.*s", (int)n, p);
    found = 1;
  }
  fclose(f);
  return found;
}

int kc_host_backend_probe(int *ndevices) {
  *ndevices = 1;
  return 0;
}

void kc_host_backend_info(kc_info *out, int nthreads) {
  out->concurrency = nthreads;
  out->num_threads = nthreads;
  out->device_count = 1;
  out->device = -1;
  out->spaces = 1u << KC_SPACE_HOST;
  kc_host_device_info(&out->dev);
  /* A host team has at most the backend's threads (host-team.c). */
  out->dev.max_threads_per_block = nthreads > 1 ? nthreads : 1;
}

void kc_host_device_info(kc_device_info *dev) {
  memset(dev, 0, sizeof *dev);
  if (!cpuinfo("model name", dev->name, sizeof dev->name) &&
      !cpuinfo("Hardware", dev->name, sizeof dev->name)) {
    struct utsname u;
    snprintf(dev->name, sizeof dev->name, "%s CPU",
             uname(&u) == 0 ? u.machine : "host");
  }
  dev->multiprocessors = kc_host_cpu_count();
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && psize > 0)
    dev->total_memory = (size_t)pages * (size_t)psize;
  /* One thread: kc_host_backend_info raises it to the backend's threads. */
  dev->max_threads_per_block = 1;
  dev->warp_size = 1;
  /* A host team's level-0 scratch limit. */
  dev->shared_memory_per_block = KC_HOST_SCRATCH0_MAX;
  dev->shared_memory_per_block_optin = KC_HOST_SCRATCH0_MAX;
  char mhz[64];
  if (cpuinfo("cpu MHz", mhz, sizeof mhz))
    dev->clock_khz = (int)(atof(mhz) * 1000.0);
}
