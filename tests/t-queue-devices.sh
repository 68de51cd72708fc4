#!/bin/sh
# The conformance test of queues (t-queue) on cuda with three devices:
# KC_CUDA_VIRTUAL_DEVICES=3 makes the plugin offer three devices on however
# many GPUs there are, each with its own state, modules and streams, so
# that test_every_device exercises the code for several devices (queues,
# allocations, kernels, reductions and scans on each device, copies and
# events between devices) on a machine with one GPU.  SKIPs (77) where
# cuda cannot run, as t-queue.cuda does.
: "${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}"
KC_BACKEND=cuda
KC_CUDA_VIRTUAL_DEVICES=3
export KC_BACKEND KC_CUDA_VIRTUAL_DEVICES
exec ./t-queue
