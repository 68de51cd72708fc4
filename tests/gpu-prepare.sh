#!/bin/sh
# gpu-prepare.sh — prepares .devcarry/ for tests/gpu-check.sh.
#
# The GPU machine has the CUDA toolkit, gcc, autoconf, automake and make,
# but no libtool, no autoconf-archive and no libffi headers (libffi.so.8 is
# there).  So the generated build system and the libffi headers travel from
# here, in the ignored folder .devcarry/:
#   .devcarry/gen.tar        configure, every Makefile.in, aclocal.m4,
#                            config.h.in, build-aux/ and m4/ (libtool's and
#                            autoconf-archive's macros included)
#   .devcarry/ffi/include/   ffi.h and ffitarget.h of this machine
#
# Run from anywhere inside the source tree, after the last change to
# configure.ac or a Makefile.am:
#   sh tests/gpu-prepare.sh
# then, with the device tool:
#   run(command="bash tests/gpu-check.sh", carry=[".devcarry"])
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# Regenerate (the shared tree's rule: under the lock).
if command -v flock >/dev/null 2>&1; then
  flock /tmp/kc-autogen.lock ./autogen.sh >/dev/null
else
  ./autogen.sh >/dev/null
fi

rm -rf .devcarry/gen.tar .devcarry/ffi
mkdir -p .devcarry/ffi/include
files=$(find . -name Makefile.in -not -path './.git/*' \
  -not -path './.devcarry/*' -not -path './build*' | sort)
tar -cf .devcarry/gen.tar configure aclocal.m4 config.h.in build-aux m4 \
  $files

ffidir=
for d in /usr/include/x86_64-linux-gnu /usr/include \
  /usr/lib/x86_64-linux-gnu/libffi-*/include; do
  if test -f "$d/ffi.h"; then
    ffidir=$d
    break
  fi
done
if test -z "$ffidir"; then
  echo "gpu-prepare.sh: no ffi.h here (apt-get install libffi-dev)" >&2
  exit 1
fi
cp "$ffidir"/ffi*.h .devcarry/ffi/include/

echo "gpu-prepare.sh: .devcarry ready ($(du -sh .devcarry | cut -f1)):" \
  "$(tar -tf .devcarry/gen.tar | wc -l) generated files, ffi headers from" \
  "$ffidir"
