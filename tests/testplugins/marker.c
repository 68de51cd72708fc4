/* A shared object that proves it was loaded: its constructor appends a
 * line to the file named by KC_TEST_MARKER.  Built as libkc-threads.so so
 * that it can stand for a plugin (by name, by path, found in
 * KC_PLUGIN_PATH), a profiling tool and a CUDA driver alike
 * (t-secure-env: none of them may be loaded in a privileged process). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor)) static void marker_loaded(void) {
  const char *f = getenv("KC_TEST_MARKER");
  if (!f || !*f)
    return;
  int fd = open(f, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd < 0)
    return;
  static const char line[] = "loaded\n";
  ssize_t n = write(fd, line, sizeof line - 1);
  (void)n;
  close(fd);
}
