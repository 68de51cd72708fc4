/* libkc.so opened with dlopen() by a program that is already running, as
 * Python's ctypes, Julia, R and every other FFI open it: the program is not
 * linked with libkc, so everything libkc needs (its thread-local storage
 * above all) must be allocatable after start-up.  glibc refuses a library
 * built with initial-exec TLS that does not fit the small static surplus
 * ("cannot allocate memory in static TLS block"). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef KC_TEST_LIBKC
#error "KC_TEST_LIBKC (the built libkc.so) must be defined"
#endif

int main(void) {
  void *h = dlopen(KC_TEST_LIBKC, RTLD_NOW | RTLD_GLOBAL);
  if (!h) {
    printf("FAIL: dlopen(%s): %s\n", KC_TEST_LIBKC, dlerror());
    return 1;
  }
  int (*init)(void) = (int (*)(void))dlsym(h, "kc_init");
  int (*fini)(void) = (int (*)(void))dlsym(h, "kc_finalize");
  const char *(*name)(void) =
      (const char *(*)(void))dlsym(h, "kc_backend_name");
  if (!init || !fini || !name) {
    printf("FAIL: kc_init/kc_finalize/kc_backend_name missing: %s\n",
           dlerror());
    return 1;
  }
  int rc = init();
  if (rc != 0) {
    printf("FAIL: kc_init() = %d after dlopen\n", rc);
    return 1;
  }
  printf("# dlopen'ed libkc runs backend %s\n", name());
  if (fini() != 0) {
    printf("FAIL: kc_finalize()\n");
    return 1;
  }
  printf("PASS\n");
  return 0;
}
