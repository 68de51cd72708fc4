#!/bin/sh
# Generates configure and the Makefile.in files.  Needs autoconf, automake,
# libtool, autoconf-archive (AX_PTHREAD) and pkg-config (PKG_CHECK_MODULES).
set -e
cd "$(dirname "$0")"
autoreconf --install --force
