/* Helper of t-threads-bind.sh: starts kc (the script chooses the backend,
 * KC_NUM_THREADS and KC_THREADS_BIND, and narrows the affinity with
 * taskset or an OpenMP binding) and prints where each thread may run:
 *
 *   main: <Cpus_allowed_list of the calling thread>
 *   kc-worker-<k>: <Cpus_allowed_list of worker k>
 *
 * read back from /proc/self/task/<tid>/{comm,status}.  kc_init failing
 * prints "kc_init: <KC_E name>: <detail>" and exits 1.  Built a second
 * time with OpenMP (t-threads-bind-omp), where it touches the OpenMP
 * runtime first so that the runtime is loaded and binds this thread as
 * OMP_PROC_BIND asks. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <kc/kc.h>

/* The first line of /proc/self/task/<tid>/<file> that starts with `key`
 * (any line if key is ""), without its key and newline, into out. */
static int task_line(const char *tid, const char *file, const char *key,
                     char *out, size_t cap) {
  char path[300], line[512];
  snprintf(path, sizeof path, "/proc/self/task/%s/%s", tid, file);
  FILE *f = fopen(path, "r");
  int found = 0;
  while (f && !found && fgets(line, sizeof line, f)) {
    if (strncmp(line, key, strlen(key)) != 0)
      continue;
    const char *v = line + strlen(key);
    while (*v == ' ' || *v == '\t')
      v++;
    snprintf(out, cap, "%s", v);
    out[strcspn(out, "\n")] = '\0';
    found = 1;
  }
  if (f)
    fclose(f);
  return found;
}

int main(void) {
#ifdef _OPENMP
  printf("openmp: %d threads\n", omp_get_max_threads());
#endif
  int rc = kc_init();
  if (rc != 0) {
    printf("kc_init: %s: %s\n", kc_err_name(rc), kc_last_error());
    return 1;
  }
  char self[32], comm[64], cpus[256];
  snprintf(self, sizeof self, "%ld", (long)getpid());
  DIR *d = opendir("/proc/self/task");
  if (d == NULL) {
    printf("SKIP: no /proc/self/task here\n");
    return 77;
  }
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.' ||
        !task_line(e->d_name, "status", "Cpus_allowed_list:", cpus,
                   sizeof cpus))
      continue;
    if (strcmp(e->d_name, self) == 0)
      printf("main: %s\n", cpus);
    else if (task_line(e->d_name, "comm", "", comm, sizeof comm) &&
             strncmp(comm, "kc-worker-", 10) == 0)
      printf("%s: %s\n", comm, cpus);
  }
  closedir(d);
  return kc_finalize() == 0 ? 0 : 1;
}
