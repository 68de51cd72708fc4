/* A program linked with kc, run by t-secure-env as another user, once as
 * is and once as a setuid-root copy.  It prints whether the process runs
 * in secure-execution mode (AT_SECURE) and then
 *
 *   secure-env-prog init             starts kc (KC_BACKEND, KC_PLUGIN_PATH,
 *                                    KC_TOOLS_LIBS, KOKKOS_TOOLS_LIBS apply)
 *   secure-env-prog probe <plugin>   loads a plugin file and calls its probe
 *                                    (the cuda plugin reads KC_CUDA_DRIVER)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

#include <kc/backend.h>
#include <kc/kc.h>

static int probe(const char *file, const char *name) {
  void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("dlopen: %s\n", dlerror());
    return 1;
  }
  char sym[128];
  snprintf(sym, sizeof sym, "kc_backend_%s", name);
  const kc_backend_ops *ops = (const kc_backend_ops *)dlsym(h, sym);
  if (!ops) {
    printf("no symbol %s\n", sym);
    return 1;
  }
  int n = 0;
  int rc = ops->probe(&n);
  printf("probe: %d, %d device(s): %s\n", rc, n, kc_last_error());
  return 0;
}

int main(int argc, char **argv) {
  printf("secure: %lu\n", getauxval(AT_SECURE));
  if (argc == 2 && strcmp(argv[1], "init") == 0) {
    int rc = kc_init();
    printf("backend: %s\n", rc == 0 ? kc_backend_name() : kc_last_error());
    if (rc == 0)
      kc_finalize();
    return rc == 0 ? 0 : 1;
  }
  if (argc == 4 && strcmp(argv[1], "probe") == 0)
    return probe(argv[2], argv[3]);
  fprintf(stderr, "usage: secure-env-prog init | probe <plugin> <name>\n");
  return 2;
}
