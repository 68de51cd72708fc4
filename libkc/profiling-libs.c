/* libkc — the list syntax of KC_TOOLS_LIBS and KOKKOS_TOOLS_LIBS.
 *
 * Kept apart from profiling.c, with nothing but libc under it, so that the
 * fuzz target (tests/fuzz/fuzz-tools-libs.c) compiles this file alone and
 * calls the parser directly.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "profiling.h"

char **kc__tools_libs_parse(const char *list, int first_only, int *count) {
  *count = 0;
  if (!list)
    list = "";
  size_t len = strlen(list), n = 0;
  /* Entries are runs of non-';' bytes, as strtok(list, ";") finds them in
   * Kokkos: empty entries (";;", a leading or trailing ';') do not count. */
  for (size_t i = 0; i < len; i++)
    if (list[i] != ';' && (i == 0 || list[i - 1] == ';'))
      n++;
  if (first_only && n > 1)
    n = 1;
  /* One block: the pointer array (NULL terminated), then the copy. */
  char **out = malloc((n + 1) * sizeof *out + len + 1);
  if (!out)
    return NULL;
  char *copy = (char *)(out + n + 1);
  memcpy(copy, list, len + 1);
  size_t k = 0;
  for (char *p = copy; k < n;) {
    p += strspn(p, ";");
    size_t entry = strcspn(p, ";");
    out[k++] = p;
    p += entry;
    if (*p)
      *p++ = '\0';
  }
  out[k] = NULL;
  *count = (int)k;
  return out;
}
