/* libFuzzer target: the tool-list parser of KC_TOOLS_LIBS /
 * KOKKOS_TOOLS_LIBS / KOKKOS_PROFILE_LIBRARY (libkc/profiling-libs.c), called
 * directly.  The first byte picks the mode (bit 0: first_only, Kokkos'
 * rule); the rest, up to a NUL, is the variable's value, as getenv() would
 * give it.  Besides the sanitizers' findings, a result that breaks the
 * contract in profiling.h traps: entries non-empty and free of ';', in order,
 * together exactly the value's non-';' bytes (all of them, or the first
 * run with first_only), the array NULL-terminated at *count. */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profiling.h"

#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c))                                                                  \
      __builtin_trap();                                                        \
  } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  int first_only = data[0] & 1;
  size_t len = strnlen((const char *)data + 1, size - 1);
  char *value = malloc(len + 1);
  if (!value)
    return 0;
  memcpy(value, data + 1, len);
  value[len] = '\0';

  int count = -1;
  char **list = kc__tools_libs_parse(value, first_only, &count);
  if (list) {
    /* Walk the value the way the contract describes and compare. */
    const char *p = value;
    int k = 0;
    for (;; k++) {
      p += strspn(p, ";");
      if (!*p || (first_only && k == 1))
        break;
      size_t n = strcspn(p, ";");
      CHECK(k < count);
      CHECK(list[k] != NULL);
      CHECK(strlen(list[k]) == n && memcmp(list[k], p, n) == 0);
      CHECK(strchr(list[k], ';') == NULL);
      p += n;
    }
    CHECK(k == count);
    CHECK(list[count] == NULL);
    CHECK(!first_only || count <= 1);
    free(list);
  }
  free(value);
  return 0;
}
