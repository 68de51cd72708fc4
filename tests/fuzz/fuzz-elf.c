/* Fuzz target: the loader's ELF layout check (libkc/loader-elf.c) on a
 * whole file held in memory.  Besides not crashing, the check must keep
 * its promise: a file it accepts has its program headers and every
 * loadable segment inside the file, and its loadable segments in
 * ascending order without overlap, re-checked here independently; a
 * refusal always comes with a reason. */
#include <config.h>

#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct mem {
  const uint8_t *data;
  size_t size;
} mem;

static int mem_read(void *ctx, uint64_t off, void *buf, size_t n) {
  const mem *m = ctx;
  if (off > m->size || n > m->size - off)
    return -1;
  memcpy(buf, m->data + off, n);
  return 0;
}

/* The promise, checked without the code under test. */
static void check_accepted(const mem *m) {
  ElfW(Ehdr) eh;
  if (m->size < sizeof eh)
    abort();
  memcpy(&eh, m->data, sizeof eh);
  uint64_t phbytes = (uint64_t)eh.e_phnum * sizeof(ElfW(Phdr));
  if (eh.e_phoff > m->size || phbytes > m->size - eh.e_phoff)
    abort();
  /* Loadable segments: inside the file, and in memory in ascending order
   * without overlapping (the end of one, in whole pages, at most the start
   * of the next; pages of 4 KB at least). */
  uint64_t prev_end = 0;
  int any = 0;
  for (unsigned i = 0; i < eh.e_phnum; i++) {
    ElfW(Phdr) ph;
    memcpy(&ph, m->data + eh.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type != PT_LOAD)
      continue;
    if (ph.p_offset > m->size || ph.p_filesz > m->size - ph.p_offset)
      abort();
    if (ph.p_vaddr > UINT64_MAX - 4095 ||
        ph.p_memsz > UINT64_MAX - 4095 - ph.p_vaddr)
      abort();
    if (any && ph.p_vaddr / 4096 * 4096 < prev_end)
      abort();
    prev_end = (ph.p_vaddr + ph.p_memsz + 4095) / 4096 * 4096;
    any = 1;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mem m = {data, size};
  char why[512];
  why[0] = '\0';
  if (kc__elf_check(mem_read, &m, size, why, sizeof why) == 0)
    check_accepted(&m);
  else if (why[0] == '\0' || strlen(why) >= sizeof why)
    abort();
  return 0;
}
