#!/bin/sh
# t-queue on a host plugin with the twelve queue and event slots of backend
# ABI 1.1 (tests/testplugins/slots.c): the core's paths for a backend that
# runs each queue itself, as cuda does, on a machine without a GPU.  The
# plugin ends the process when the core hands it a handle that is
# destroyed, or destroys one that another thread's queue_fence or
# event_synchronize still uses (t-queue's destroy_while_waited makes those
# two take a while, through KC_TEST_SLOTS_WAIT_MS, to destroy meanwhile).
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
pdir=$top/tests/testplugins/.libs
test -f "$pdir/libkc-slots.so" || { echo "ERROR: no $pdir/libkc-slots.so"; exit 99; }
KC_BACKEND=slots KC_PLUGIN_PATH=$pdir exec "$top/tests/t-queue"
