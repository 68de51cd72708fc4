/* The tool loader: KC_TOOLS_LIBS / KOKKOS_TOOLS_LIBS /
 * KOKKOS_PROFILE_LIBRARY, their precedence, ';'-separated lists (every
 * entry of KC_TOOLS_LIBS, only the first of Kokkos' variables, which a
 * chaining tool then follows), a library that fails to load (one
 * "kc: ..." line with the dlerror() text, the others still load), a
 * library with no callback, the same library named twice, kc's bare-name
 * shorthand, and kc_declare_metadata / kc_profile_event with and without a
 * tool.  Runs once, on whatever backend kc picks. */
#define _POSIX_C_SOURCE 200809L /* setenv, mkstemp */

#include <fcntl.h>

#include "profiling-log.h"

static char *rec, *empty, *chain, *logfile, *errfile;

/* Runs kc_init/kc_finalize with stderr captured; returns what kc wrote
 * there and leaves the recording tool's log in *log. */
static char *cycle(char **log) {
  FILE *f = fopen(logfile, "w");
  if (f)
    fclose(f);
  fflush(stderr);
  int saved = dup(2);
  int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  KC_REQUIRE(saved >= 0 && fd >= 0);
  dup2(fd, 2);
  close(fd);
  int rc = kc_init();
  if (rc == 0) {
    KC_CHECK_OK(kc_declare_metadata("profiling-load", "yes"));
    KC_CHECK_OK(kc_profile_event("profiling-load event"));
    KC_CHECK_OK(kc_profile_event("chain-filtered event"));
    KC_CHECK_OK(kc_finalize());
  }
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  if (rc != 0) {
    printf("FAIL: kc_init: %s: %s\n", kc_err_name(rc), kc_last_error());
    exit(1);
  }
  *log = tl_slurp(logfile);
  return tl_slurp(errfile);
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
    n++;
  return n;
}

static void set(const char *kc, const char *kokkos) {
  if (kc)
    setenv("KC_TOOLS_LIBS", kc, 1);
  else
    unsetenv("KC_TOOLS_LIBS");
  if (kokkos)
    setenv("KOKKOS_TOOLS_LIBS", kokkos, 1);
  else
    unsetenv("KOKKOS_TOOLS_LIBS");
}

int main(void) {
  char buf[8192], *log, *err;
  tl_watchdog();
  setvbuf(stdout, NULL, _IOLBF, 0);
  rec = tl_lib("tests", "kc-tool-record");
  empty = tl_lib("tests", "kc-tool-empty");
  chain = tl_lib("tests", "kc-tool-chain");
  logfile = tl_tmpfile("tools-load-log");
  errfile = tl_tmpfile("tools-load-err");
  setenv("KC_TEST_TOOL_LOG", logfile, 1);
  unsetenv("KC_TOOLS_ARGS");
  unsetenv("KOKKOS_TOOLS_ARGS");
  unsetenv("KOKKOS_PROFILE_LIBRARY");
  unsetenv("KC_VERBOSE"); /* its lines would go to the captured stderr */

  /* Before kc_init the public calls say so. */
  KC_CHECK_ERR(kc_declare_metadata("k", "v"), KC_ENOINIT);
  KC_CHECK_ERR(kc_profile_event("e"), KC_ENOINIT);

  KC_INFO("no tool: nothing loaded, nothing said, the calls still work");
  set(NULL, NULL);
  err = cycle(&log);
  KC_CHECK_EQ_STR(err, "");
  KC_CHECK_EQ_STR(log, "");
  free(err);
  free(log);
  KC_REQUIRE_OK(kc_init());
  KC_CHECK_ERR(kc_declare_metadata(NULL, "v"), KC_EINVAL);
  KC_CHECK_ERR(kc_declare_metadata("k", NULL), KC_EINVAL);
  KC_CHECK_ERR(kc_profile_event(NULL), KC_EINVAL);
  KC_CHECK_OK(kc_finalize());

  KC_INFO("a list: a missing file, a library without callbacks, the tool "
          "twice");
  snprintf(buf, sizeof buf, "/nonexistent/libnope.so;;%s;%s;%s", empty, rec,
           rec);
  set(buf, NULL);
  err = cycle(&log);
  KC_CHECK_CONTAINS(err, "kc: cannot load tool library "
                         "'/nonexistent/libnope.so' (from KC_TOOLS_LIBS): ");
  /* The dlerror() text follows, naming the file. */
  KC_CHECK_EQ_INT(count(err, "/nonexistent/libnope.so"), 2);
  snprintf(buf, sizeof buf,
           "kc: tool library '%s' (from KC_TOOLS_LIBS) defines no "
           "kokkosp_* callback; ignored\n",
           empty);
  KC_CHECK_CONTAINS(err, buf);
  KC_CHECK_EQ_INT(count(err, "\n"), 2); /* one line each, nothing else */
  KC_CHECK_EQ_INT(count(log, "init_library\t"), 1);
  KC_CHECK_CONTAINS(log, "init_library\tseq=0\t");
  KC_CHECK_CONTAINS(log, "declare_metadata\tkey=profiling-load\tvalue=yes\n");
  KC_CHECK_CONTAINS(log, "profile_event\tname=profiling-load event\n");
  KC_CHECK_EQ_INT(count(log, "finalize_library\n"), 1);
  free(err);
  free(log);

  KC_INFO("KOKKOS_TOOLS_LIBS when KC_TOOLS_LIBS is unset");
  set(NULL, rec);
  err = cycle(&log);
  KC_CHECK_EQ_STR(err, "");
  KC_CHECK_EQ_INT(count(log, "init_library\tseq=0\t"), 1);
  free(err);
  free(log);
  set(NULL, "/nonexistent/libkokkos-tool.so");
  err = cycle(&log);
  KC_CHECK_CONTAINS(err, "kc: cannot load tool library "
                         "'/nonexistent/libkokkos-tool.so' (from "
                         "KOKKOS_TOOLS_LIBS): ");
  free(err);
  free(log);

  KC_INFO("KOKKOS_TOOLS_LIBS: only the first entry, load sequence 0; a "
          "chaining tool there loads the next entry itself");
  snprintf(buf, sizeof buf, ";%s;%s", chain, rec);
  set(NULL, buf);
  err = cycle(&log);
  KC_CHECK_EQ_STR(err, "");
  /* Once, from the chaining tool (0 + 1): not again from kc. */
  KC_CHECK_EQ_INT(count(log, "init_library\t"), 1);
  KC_CHECK_CONTAINS(log, "init_library\tseq=1\t");
  KC_CHECK_EQ_INT(count(log, "profile_event\tname=profiling-load event\n"), 1);
  KC_CHECK_EQ_INT(count(log, "chain-filtered"), 0);
  KC_CHECK_EQ_INT(count(log, "declare_metadata\tkey=profiling-load\t"), 1);
  KC_CHECK_EQ_INT(count(log, "finalize_library\n"), 1);
  free(err);
  free(log);
  snprintf(buf, sizeof buf, "%s;%s", rec, empty);
  set(NULL, buf);
  err = cycle(&log);
  KC_CHECK_EQ_STR(err, ""); /* the second entry is not even opened */
  KC_CHECK_EQ_INT(count(log, "init_library\tseq=0\t"), 1);
  free(err);
  free(log);

  KC_INFO("KC_TOOLS_LIBS loads every entry: no chaining there");
  snprintf(buf, sizeof buf, "%s;%s", chain, rec);
  set(buf, NULL);
  err = cycle(&log);
  KC_CHECK_CONTAINS(err, "tools-chain: no library to chain to");
  KC_CHECK_EQ_INT(count(log, "init_library\tseq=1\t"), 1);
  KC_CHECK_EQ_INT(count(log, "profile_event\tname=chain-filtered event\n"), 1);
  free(err);
  free(log);

  KC_INFO("KOKKOS_PROFILE_LIBRARY, deprecated: used with a warning, below "
          "KOKKOS_TOOLS_LIBS, ignored under KC_TOOLS_LIBS");
  static const char deprecated[] =
      "kc: warning: environment variable 'KOKKOS_PROFILE_LIBRARY' is "
      "deprecated; use 'KOKKOS_TOOLS_LIBS' (or 'KC_TOOLS_LIBS') instead";
  set(NULL, NULL);
  setenv("KOKKOS_PROFILE_LIBRARY", rec, 1);
  err = cycle(&log);
  snprintf(buf, sizeof buf, "%s\n", deprecated);
  KC_CHECK_EQ_STR(err, buf);
  KC_CHECK_EQ_INT(count(log, "init_library\tseq=0\t"), 1);
  free(err);
  free(log);
  setenv("KOKKOS_PROFILE_LIBRARY", "/nonexistent/libold-tool.so", 1);
  set(NULL, rec);
  err = cycle(&log);
  KC_CHECK_CONTAINS(err, deprecated);
  KC_CHECK_CONTAINS(err, "KOKKOS_TOOLS_LIBS is set as well and differs");
  KC_CHECK_EQ_INT(count(err, "\n"), 1);
  KC_CHECK_EQ_INT(count(log, "init_library\t"), 1);
  free(err);
  free(log);
  set(rec, NULL);
  err = cycle(&log);
  KC_CHECK_EQ_STR(err, "");
  KC_CHECK_EQ_INT(count(log, "init_library\t"), 1);
  free(err);
  free(log);
  unsetenv("KOKKOS_PROFILE_LIBRARY");

  KC_INFO("KC_TOOLS_LIBS wins over KOKKOS_TOOLS_LIBS, even when empty");
  set(rec, "/nonexistent/libkokkos-tool.so");
  err = cycle(&log);
  KC_CHECK_EQ_STR(err, "");
  KC_CHECK_EQ_INT(count(log, "init_library\t"), 1);
  free(err);
  free(log);
  set("", rec);
  err = cycle(&log);
  KC_CHECK_EQ_STR(err, "");
  KC_CHECK_EQ_STR(log, "");
  free(err);
  free(log);

  KC_INFO("a bare name is libkc-tool-<name>.so in the plugin path");
  const char *top = getenv("KC_TEST_TOP_BUILDDIR");
  const char *pp = getenv("KC_PLUGIN_PATH");
  snprintf(buf, sizeof buf, "%s/tests/.libs%s%s", top, pp && *pp ? ":" : "",
           pp ? pp : "");
  setenv("KC_PLUGIN_PATH", buf, 1);
  set("kc-tool-record", NULL);
  err = cycle(&log);
  /* "kc-tool-record" names libkc-tool-kc-tool-record.so: not there, so it
   * is dlopen()ed as given, and fails. */
  KC_CHECK_CONTAINS(err, "kc: cannot load tool library 'kc-tool-record'");
  free(err);
  free(log);
  set("record", NULL);
  err = cycle(&log);
  KC_CHECK_EQ_STR(err, "");
  KC_CHECK_EQ_INT(count(log, "init_library\t"), 1);
  free(err);
  free(log);

  KC_INFO("... behind plugin directories over 4 KB long (nothing cut)");
  {
    size_t n = strlen(buf), cap = n + 80 * 100 + 1;
    char *longpath = malloc(cap);
    KC_CHECK(longpath != NULL);
    size_t used = 0;
    for (int i = 0; i < 80; i++)
      used += (size_t)snprintf(longpath + used, cap - used,
                               "/nonexistent/kc-tools-%066d:", i);
    snprintf(longpath + used, cap - used, "%s", buf);
    KC_CHECK(strlen(longpath) > 4096);
    setenv("KC_PLUGIN_PATH", longpath, 1);
    free(longpath);
  }
  set("record", NULL);
  err = cycle(&log);
  KC_CHECK_EQ_STR(err, "");
  KC_CHECK_EQ_INT(count(log, "init_library\t"), 1);
  free(err);
  free(log);
  setenv("KC_PLUGIN_PATH", buf, 1);

  remove(logfile);
  remove(errfile);
  free(logfile);
  free(errfile);
  free(rec);
  free(empty);
  free(chain);
  return kc_test_done();
}
