/* Fuzz target: KC_BACKEND's parser (kc__backend_list_parse).  Every
 * element it returns is non-empty, holds no ',' and has no blank at either
 * end, and there are no more elements than commas plus one. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = strndup((const char *)data, size);
  if (!s)
    return 0;
  size_t commas = 0;
  for (const char *p = s; *p; p++)
    commas += *p == ',';
  char **v;
  int n = kc__backend_list_parse(s, &v);
  if (n < 0 || (size_t)n > commas + 1)
    abort();
  for (int i = 0; i < n; i++) {
    size_t len = strlen(v[i]);
    if (len == 0 || strchr(v[i], ',') || v[i][0] == ' ' || v[i][0] == '\t' ||
        v[i][len - 1] == ' ' || v[i][len - 1] == '\t' || !strstr(s, v[i]))
      abort();
  }
  kc__strv_free(v, n);
  free(s);
  return 0;
}
