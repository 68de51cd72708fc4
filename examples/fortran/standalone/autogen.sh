#!/bin/sh
# Generates configure and Makefile.in.  kc.m4 must be where aclocal finds
# it: in /usr/share/aclocal for a kc installed in /usr, otherwise run
#   ACLOCAL_PATH=<kc-prefix>/share/aclocal ./autogen.sh
set -e
cd "$(dirname "$0")"
autoreconf --install --force
