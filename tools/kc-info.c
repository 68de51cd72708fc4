/* kc-info — what kc is installed, which plugins load (and why others do
 * not), and what the backend chosen now offers.
 *
 * The output is line oriented, `key: value`, one fact per line, so that
 * scripts and tests can grep it; doc/man/kc-info.1 documents every key.  The
 * exit status is 0 when a backend could be initialised, 1 when not (the
 * reason is on the `backend-error:` line), 2 on a usage error.
 */
#include <stdio.h>
#include <string.h>

#include <kc/backend.h>
#include <kc/kc.h>

#include "loader.h"

/* Text from file names and plugins, kept on one line: a control character
 * is written as \n, \t or \xHH, and a backslash as \\. */
static void put_text(const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '\n')
      fputs("\\n", stdout);
    else if (c == '\t')
      fputs("\\t", stdout);
    else if (c == '\\')
      fputs("\\\\", stdout);
    else if (c < 0x20 || c == 0x7f)
      printf("\\x%02x", c);
    else
      putchar(c);
  }
}

static void print_dir(const char *dir, const char *origin, int exists,
                      void *arg) {
  (void)arg;
  printf("plugin-dir: ");
  put_text(dir);
  printf(" (%s%s)\n", origin, exists ? "" : ", missing");
}

static void print_plugin(const kc__plugin_report *r, void *arg) {
  int *accepted = arg;
  printf("plugin: ");
  put_text(r->path);
  if (r->shadowed_by) {
    printf(": shadowed by ");
    put_text(r->shadowed_by);
  } else if (r->code == 0) {
    ++*accepted;
    printf(": accepted: %s, ABI %u.%u, %d device(s)", r->name, r->abi_major,
           r->abi_minor, r->ndevices);
    if (r->description && *r->description) {
      printf(": ");
      put_text(r->description);
    }
  } else {
    printf(": refused: %s: ", kc_err_name(r->code));
    put_text(r->detail);
  }
  printf("\n");
}

static void print_error(int rc) {
  printf("backend-error: %s: ", kc_err_name(rc));
  put_text(kc_last_error());
  printf("\n");
}

static void print_spaces(unsigned spaces) {
  printf("memory-spaces:");
  for (int s = 0; s < KC_SPACE_COUNT; s++)
    if (spaces & (1u << s))
      printf(" %s", kc_space_name((kc_space)s));
  printf("\n");
}

static void usage(FILE *f) {
  fprintf(f, "usage: kc-info [--help]\n"
             "Prints kc's version, plugin search path, every plugin found\n"
             "and why it is accepted or refused, and the backend KC_BACKEND\n"
             "selects now with what it offers.  KC_VERBOSE=1 explains the\n"
             "choice on stderr.\n");
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    }
    fprintf(stderr, "kc-info: unknown argument '%s'\n", argv[i]);
    usage(stderr);
    return 2;
  }

  printf("version: %s\n", kc_version());
  printf("backend-abi: %d.%d\n", KC_BACKEND_ABI_MAJOR, KC_BACKEND_ABI_MINOR);
  kc__plugin_dirs(print_dir, NULL);
  int accepted = 0;
  int nfound = kc__plugin_list(print_plugin, &accepted);
  printf("plugins-found: %d\n", nfound < 0 ? 0 : nfound);
  printf("plugins-accepted: %d\n", accepted);

  int rc = kc_init();
  if (rc < 0) {
    printf("backend: none\n");
    print_error(rc);
    return 1;
  }
  kc_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  rc = kc_get_info(&info);
  if (rc < 0) {
    printf("backend: %s\n", kc_backend_name());
    print_error(rc);
    kc_finalize();
    return 1;
  }
  const kc_device_info *d = &info.dev;
  printf("backend: %s\n", info.backend);
  printf("backend-path: ");
  put_text(info.path);
  printf("\n");
  printf("backend-plugin-abi: %d.%d\n", info.abi_major, info.abi_minor);
  printf("num-threads: %d\n", info.num_threads);
  printf("concurrency: %d\n", info.concurrency);
  printf("device-count: %d\n", info.device_count);
  printf("device: %d\n", info.device);
  printf("device-from: %s\n", info.device_from);
  print_spaces(info.spaces);
  printf("device-name: %s\n", d->name);
  printf("device-compute-capability: %d.%d\n", d->compute_major,
         d->compute_minor);
  printf("device-multiprocessors: %d\n", d->multiprocessors);
  printf("device-total-memory: %zu\n", d->total_memory);
  printf("device-max-threads-per-block: %d\n", d->max_threads_per_block);
  printf("device-shared-memory-per-block: %zu\n", d->shared_memory_per_block);
  printf("device-shared-memory-per-block-optin: %zu\n",
         d->shared_memory_per_block_optin);
  printf("device-constant-memory: %zu\n", d->constant_memory);
  printf("device-warp-size: %d\n", d->warp_size);
  printf("device-max-param-bytes: %zu\n", d->max_param_bytes);
  printf("device-clock-khz: %d\n", d->clock_khz);
  printf("device-memory-clock-khz: %d\n", d->memory_clock_khz);
  printf("device-memory-bus-width: %d\n", d->memory_bus_width);
  kc_finalize();
  return 0;
}
