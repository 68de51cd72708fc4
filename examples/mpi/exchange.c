/* examples/mpi: the halo exchange (exchange.h).  Each exchange is: one
 * kernel packs every outgoing segment into the send buffer; MPI moves the
 * buffers (from device memory, or from its host mirror after a copy);
 * one kernel unpacks the received buffer into the grid. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support */
#endif

#include <kc/kernel.h>

#include "exchange.h"

KC_KERNEL_DECLARE(halo_pack);
KC_KERNEL_DECLARE(halo_unpack);

int halo_parse_mode(const char *s, halo_mode *mode) {
  static const char *const names[] = {"auto", "direct", "staged"};
  for (int m = 0; m < 3; m++)
    if (strcmp(s, names[m]) == 0) {
      *mode = (halo_mode)m;
      return 0;
    }
  return -1;
}

int halo_mpi_cuda_aware(void) {
  /* Open MPI built without CUDA defines the macro as 0; built with it, the
   * library still answers at run time (it may have been started without
   * its CUDA component). */
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support();
#else
  return 0;
#endif
}

void halo_init(halo *h, MPI_Comm comm, halo_mode mode) {
  memset(h, 0, sizeof *h);
  h->comm = comm;
  kc_info info = {.struct_size = sizeof info};
  kc_get_info(&info);
  if (mode == HALO_DIRECT) {
    h->direct = 1;
    h->why = "direct from device memory (asked for)";
  } else if (mode == HALO_STAGED) {
    /* On a host backend the mirror's two sides are one buffer: the same
     * calls, no copies. */
    h->why = "staged through a host mirror (asked for)";
  } else if (!(info.spaces & (1u << KC_SPACE_DEVICE))) {
    h->direct = 1;
    h->why = "direct (the backend's device memory is host memory)";
  } else if (halo_mpi_cuda_aware()) {
    h->direct = 1;
    h->why = "direct from device memory (the MPI is CUDA-aware)";
  } else {
    h->why = "staged through a host mirror (the MPI is not CUDA-aware)";
  }
}

void halo_add(halo *h, int peer, halo_seg send, halo_seg recv) {
  if (peer == MPI_PROC_NULL || h->n == HALO_MAX)
    return;
  send.offset = h->send_count;
  recv.offset = h->recv_count;
  h->send.seg[h->n] = send;
  h->recv.seg[h->n] = recv;
  h->send_count += send.count;
  h->recv_count += recv.count;
  h->peer[h->n++] = peer;
  h->send.nseg = h->recv.nseg = h->n;
}

int halo_commit(halo *h) {
  /* MPI counts a message in an int: transfer() passes each segment as
   * one message. */
  for (int k = 0; k < h->n; k++)
    if (h->send.seg[k].count > INT_MAX || h->recv.seg[k].count > INT_MAX) {
      fprintf(stderr,
              "halo: a segment of %lld values to rank %d is more than one "
              "MPI message can count (%d)\n",
              (long long)(h->send.seg[k].count > INT_MAX
                              ? h->send.seg[k].count
                              : h->recv.seg[k].count),
              h->peer[k], INT_MAX);
      return KC_EINVAL;
    }
  int rc = kc_mirror_create(
      &h->send_buf, (size_t)h->send_count * sizeof(double), "halo send");
  if (rc == 0)
    rc = kc_mirror_create(&h->recv_buf, (size_t)h->recv_count * sizeof(double),
                          "halo recv");
  return rc;
}

/* MPI's side: every receive posted, then every send, then wait. */
static int transfer(halo *h, double *out, double *in) {
  MPI_Request req[2 * HALO_MAX];
  for (int k = 0; k < h->n; k++)
    MPI_Irecv(in + h->recv.seg[k].offset, (int)h->recv.seg[k].count, MPI_DOUBLE,
              h->peer[k], 0, h->comm, &req[k]);
  for (int k = 0; k < h->n; k++)
    MPI_Isend(out + h->send.seg[k].offset, (int)h->send.seg[k].count,
              MPI_DOUBLE, h->peer[k], 0, h->comm, &req[h->n + k]);
  return MPI_Waitall(2 * h->n, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS
             ? 0
             : KC_EINTERNAL;
}

int halo_exchange(halo *h, double *grid) {
  if (h->n == 0)
    return 0;
  int rc;
  h->send.grid = h->recv.grid = grid;
  h->send.buf = kc_mirror_target(h->send_buf);
  h->recv.buf = kc_mirror_target(h->recv_buf);
  kc_policy out = kc_range(0, h->send_count), in = kc_range(0, h->recv_count);
  if ((rc = kc_parallel_for("halo pack", KC_KERNEL(halo_pack), &out, &h->send,
                            sizeof h->send)) < 0)
    return rc;
  if (h->direct) {
    /* Launches may be asynchronous: the packed halo must be in memory
     * before MPI reads it. */
    if ((rc = kc_fence()) < 0 ||
        (rc = transfer(h, h->send.buf, h->recv.buf)) < 0)
      return rc;
  } else {
    if ((rc = kc_mirror_modify_target(h->send_buf)) < 0 ||
        (rc = kc_mirror_sync_host(h->send_buf)) < 0 ||
        (rc = transfer(h, kc_mirror_host(h->send_buf),
                       kc_mirror_host(h->recv_buf))) < 0 ||
        (rc = kc_mirror_modify_host(h->recv_buf)) < 0 ||
        (rc = kc_mirror_sync_target(h->recv_buf)) < 0)
      return rc;
  }
  return kc_parallel_for("halo unpack", KC_KERNEL(halo_unpack), &in, &h->recv,
                         sizeof h->recv);
}

void halo_free(halo *h) {
  kc_mirror_destroy(h->send_buf);
  kc_mirror_destroy(h->recv_buf);
  h->send_buf = h->recv_buf = NULL;
}
