/* libkc — is a plugin file an ELF shared object this process can map?
 *
 * dlopen() trusts the file it maps: a plugin cut short (a truncated copy)
 * has segments that reach past the end of the file, and the first access to
 * such a page kills the process with SIGBUS inside the dynamic loader.  So
 * the loader reads the ELF header and the program headers itself first and
 * refuses, with the reason, a file of another class, byte order or machine,
 * or whose loadable segments do not lie inside the file.  This checks the
 * layout dlopen() depends on before it can report an error; everything past
 * it (relocations, symbols) is still dlopen()'s to refuse.
 *
 * The check reads through a callback so that it runs the same on a file
 * and on a buffer (tests/fuzz/fuzz-elf.c).
 */
#include <config.h>

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#if defined(__x86_64__)
#define NATIVE_MACHINE EM_X86_64
#elif defined(__i386__)
#define NATIVE_MACHINE EM_386
#elif defined(__aarch64__)
#define NATIVE_MACHINE EM_AARCH64
#elif defined(__arm__)
#define NATIVE_MACHINE EM_ARM
#elif defined(__powerpc64__)
#define NATIVE_MACHINE EM_PPC64
#elif defined(__powerpc__)
#define NATIVE_MACHINE EM_PPC
#elif defined(__riscv)
#define NATIVE_MACHINE EM_RISCV
#elif defined(__s390__)
#define NATIVE_MACHINE EM_S390
#elif defined(__loongarch__)
#define NATIVE_MACHINE 258 /* EM_LOONGARCH */
#else
#define NATIVE_MACHINE 0 /* unknown here: dlopen() judges the machine */
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_DATA ELFDATA2LSB
#else
#define NATIVE_DATA ELFDATA2MSB
#endif

typedef ElfW(Ehdr) ehdr_t;
typedef ElfW(Phdr) phdr_t;

static const char *machine_name(unsigned m) {
  switch (m) {
  case EM_386:
    return "x86 (32-bit)";
  case EM_X86_64:
    return "x86-64";
  case EM_AARCH64:
    return "AArch64";
  case EM_ARM:
    return "ARM (32-bit)";
  case EM_PPC64:
    return "PowerPC64";
  case EM_PPC:
    return "PowerPC";
  case 243: /* EM_RISCV */
    return "RISC-V";
  case EM_S390:
    return "IBM S/390";
  case EM_MIPS:
    return "MIPS";
  case EM_SPARCV9:
    return "SPARC V9";
  case 258: /* EM_LOONGARCH */
    return "LoongArch";
  case 190: /* EM_CUDA */
    return "NVIDIA CUDA";
  case 224: /* EM_AMDGPU */
    return "AMD GPU";
  default:
    return "another machine";
  }
}

static const char *type_name(unsigned t) {
  switch (t) {
  case ET_REL:
    return "a relocatable object (.o)";
  case ET_EXEC:
    return "an executable";
  case ET_CORE:
    return "a core dump";
  default:
    return "of an unknown ELF type";
  }
}

/* Whether [off, off + len) lies inside [0, size), without overflow. */
static int inside(uint64_t off, uint64_t len, uint64_t size) {
  return off <= size && len <= size - off;
}

static int check_ident(const unsigned char *id, char *why, size_t cap) {
  if (memcmp(id, ELFMAG, SELFMAG) != 0) {
    snprintf(why, cap, "not an ELF file (no ELF magic number)");
    return -1;
  }
  if (id[EI_CLASS] != __ELF_NATIVE_CLASS / 32) {
    snprintf(why, cap, "a %s ELF file, but this process is %d-bit",
             id[EI_CLASS] == ELFCLASS32   ? "32-bit"
             : id[EI_CLASS] == ELFCLASS64 ? "64-bit"
                                          : "bad-class",
             __ELF_NATIVE_CLASS);
    return -1;
  }
  if (id[EI_DATA] != NATIVE_DATA) {
    snprintf(why, cap, "an ELF file of the other byte order (%s)",
             id[EI_DATA] == ELFDATA2MSB   ? "big-endian"
             : id[EI_DATA] == ELFDATA2LSB ? "little-endian"
                                          : "unknown");
    return -1;
  }
  if (id[EI_VERSION] != EV_CURRENT) {
    snprintf(why, cap, "an ELF file of unknown version %u",
             (unsigned)id[EI_VERSION]);
    return -1;
  }
  return 0;
}

static int check_header(const ehdr_t *eh, uint64_t size, char *why,
                        size_t cap) {
  if (NATIVE_MACHINE != 0 && eh->e_machine != NATIVE_MACHINE) {
    snprintf(why, cap,
             "an ELF file for %s (ELF machine %u), not for this machine (%s)",
             machine_name(eh->e_machine), (unsigned)eh->e_machine,
             machine_name(NATIVE_MACHINE));
    return -1;
  }
  if (eh->e_type != ET_DYN) {
    snprintf(why, cap, "not a shared object: it is %s", type_name(eh->e_type));
    return -1;
  }
  if (eh->e_phentsize != sizeof(phdr_t)) {
    snprintf(why, cap,
             "a corrupt ELF file: program header entries of %u bytes, "
             "not %zu",
             (unsigned)eh->e_phentsize, sizeof(phdr_t));
    return -1;
  }
  if (eh->e_phnum == 0 || eh->e_phnum == PN_XNUM) {
    snprintf(why, cap, "a corrupt ELF file: %s program headers",
             eh->e_phnum == 0 ? "no" : "an extended count of");
    return -1;
  }
  uint64_t len = (uint64_t)eh->e_phnum * sizeof(phdr_t);
  if (!inside(eh->e_phoff, len, size)) {
    snprintf(why, cap,
             "truncated or corrupt: its program headers (%llu bytes at "
             "offset %llu) do not lie inside its %llu bytes",
             (unsigned long long)len, (unsigned long long)eh->e_phoff,
             (unsigned long long)size);
    return -1;
  }
  return 0;
}

/* This machine's page size (a power of two; 4096 if sysconf cannot say). */
static uint64_t page_size(void) {
  long p = sysconf(_SC_PAGESIZE);
  return p > 0 && (p & (p - 1)) == 0 ? (uint64_t)p : 4096u;
}

/* The loadable segments and the dynamic segment, one program header at a
 * time (e_phnum is at most 65534). */
static int check_segments(const ehdr_t *eh, kc__elf_read_fn rd, void *ctx,
                          uint64_t size, char *why, size_t cap) {
  int nload = 0;
  /* The page the last loadable segment's memory ends in (rounded up): the
   * dynamic loader reserves the span from the first segment's start to the
   * last one's end and maps each segment at a fixed address in it, so a
   * segment that starts below the end of the one before, or whose memory
   * reaches past the next one's start, is mapped over whatever lies there
   * (other libraries: the process dies in code that is not the plugin's). */
  const uint64_t page = page_size();
  uint64_t prev_end = 0;
  unsigned prev = 0;
  phdr_t dyn;
  int have_dyn = 0;
  memset(&dyn, 0, sizeof dyn);
  for (unsigned i = 0; i < eh->e_phnum; i++) {
    phdr_t ph;
    if (rd(ctx, eh->e_phoff + (uint64_t)i * sizeof ph, &ph, sizeof ph) != 0) {
      snprintf(why, cap, "unreadable: program header %u cannot be read", i);
      return -1;
    }
    if (ph.p_type == PT_DYNAMIC) {
      dyn = ph;
      have_dyn = 1;
    }
    if (ph.p_type != PT_LOAD)
      continue;
    nload++;
    if (!inside(ph.p_offset, ph.p_filesz, size)) {
      snprintf(why, cap,
               "truncated: its loadable segment %u (%llu bytes at offset "
               "%llu) reaches past its end (%llu bytes)",
               i, (unsigned long long)ph.p_filesz,
               (unsigned long long)ph.p_offset, (unsigned long long)size);
      return -1;
    }
    if (ph.p_filesz > ph.p_memsz) {
      snprintf(why, cap,
               "a corrupt ELF file: loadable segment %u has more bytes in "
               "the file (%llu) than in memory (%llu)",
               i, (unsigned long long)ph.p_filesz,
               (unsigned long long)ph.p_memsz);
      return -1;
    }
    uint64_t end;
    if (__builtin_add_overflow(ph.p_vaddr, ph.p_memsz, &end) ||
        __builtin_add_overflow(end, page - 1, &end)) {
      snprintf(why, cap,
               "a corrupt ELF file: loadable segment %u (%llu bytes at "
               "address 0x%llx) wraps around the address space",
               i, (unsigned long long)ph.p_memsz,
               (unsigned long long)ph.p_vaddr);
      return -1;
    }
    end &= ~(page - 1);
    if (nload > 1 && (ph.p_vaddr & ~(page - 1)) < prev_end) {
      snprintf(why, cap,
               "a corrupt ELF file: loadable segment %u (at address 0x%llx) "
               "starts below the end of segment %u (0x%llx, in pages of "
               "%llu bytes): segments must be in ascending order and must "
               "not overlap",
               i, (unsigned long long)ph.p_vaddr, prev,
               (unsigned long long)prev_end, (unsigned long long)page);
      return -1;
    }
    prev_end = end;
    prev = i;
  }
  if (nload == 0) {
    snprintf(why, cap, "not a loadable ELF file: it has no loadable segment");
    return -1;
  }
  if (!have_dyn) {
    snprintf(why, cap, "not a shared library: it has no dynamic section");
    return -1;
  }
  /* The dynamic loader reads the dynamic section through its mapping: it
   * must be file-backed bytes of one loadable segment. */
  for (unsigned i = 0; i < eh->e_phnum; i++) {
    phdr_t ph;
    if (rd(ctx, eh->e_phoff + (uint64_t)i * sizeof ph, &ph, sizeof ph) != 0)
      break;
    if (ph.p_type == PT_LOAD && dyn.p_vaddr >= ph.p_vaddr &&
        inside(dyn.p_vaddr - ph.p_vaddr, dyn.p_filesz, ph.p_filesz))
      return 0;
  }
  snprintf(why, cap,
           "a corrupt ELF file: its dynamic section lies outside its "
           "loadable segments");
  return -1;
}

int kc__elf_check(kc__elf_read_fn rd, void *ctx, uint64_t size, char *why,
                  size_t cap) {
  if (size == 0) {
    snprintf(why, cap, "an empty file");
    return -1;
  }
  unsigned char id[EI_NIDENT];
  if (size < sizeof id || rd(ctx, 0, id, sizeof id) != 0) {
    if (size >= SELFMAG && rd(ctx, 0, id, SELFMAG) == 0 &&
        memcmp(id, ELFMAG, SELFMAG) == 0)
      snprintf(why, cap, "truncated: %llu bytes, less than an ELF header",
               (unsigned long long)size);
    else
      snprintf(why, cap, "not an ELF file (no ELF magic number)");
    return -1;
  }
  if (check_ident(id, why, cap) < 0)
    return -1;
  ehdr_t eh;
  if (size < sizeof eh || rd(ctx, 0, &eh, sizeof eh) != 0) {
    snprintf(why, cap, "truncated: %llu bytes, less than an ELF header",
             (unsigned long long)size);
    return -1;
  }
  if (check_header(&eh, size, why, cap) < 0)
    return -1;
  return check_segments(&eh, rd, ctx, size, why, cap);
}
