#!/bin/sh
# Generates configure and Makefile.in.  Needs autoconf, automake, libtool
# and pkg-config (for PKG_CHECK_MODULES).
set -e
cd "$(dirname "$0")"
autoreconf --install --force
