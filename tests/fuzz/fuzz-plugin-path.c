/* Fuzz target: KC_PLUGIN_PATH's parser (kc__plugin_path_parse).  Every
 * directory it returns is non-empty, holds no ':', ends in '/' only when
 * it is "/", and appears in the input. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = strndup((const char *)data, size);
  if (!s)
    return 0;
  size_t colons = 0;
  for (const char *p = s; *p; p++)
    colons += *p == ':';
  char **v;
  int n = kc__plugin_path_parse(s, &v);
  if (n < 0 || (size_t)n > colons + 1)
    abort();
  for (int i = 0; i < n; i++) {
    size_t len = strlen(v[i]);
    if (len == 0 || strchr(v[i], ':') || (len > 1 && v[i][len - 1] == '/') ||
        !strstr(s, v[i]))
      abort();
  }
  kc__strv_free(v, n);
  free(s);
  return 0;
}
