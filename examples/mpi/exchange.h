/* examples/mpi: a rank's halo exchange with its neighbours through MPI,
 * the halos packed and unpacked on the device by kc kernels (halo.kc.c).
 * A device buffer reaches MPI in one of two ways: passed directly when the
 * MPI is CUDA-aware, or staged through the host side of a kc mirror. */
#ifndef KC_EXAMPLE_EXCHANGE_H
#define KC_EXAMPLE_EXCHANGE_H

#include <mpi.h>

#include <kc/kc.h>

#include "halo.h"

/* How a device buffer reaches MPI. */
typedef enum halo_mode {
  HALO_AUTO,   /* ask the MPI library (Open MPI: MPIX_Query_cuda_support) */
  HALO_DIRECT, /* MPI reads and writes device memory (CUDA-aware MPI) */
  HALO_STAGED  /* through the host side of a kc mirror */
} halo_mode;

/* The halo exchange of one rank: for each neighbour, the segment of the
 * grid it sends and the one it receives into; the packed buffers are kc
 * mirrors.  Each neighbour appears once (every message has tag 0). */
typedef struct halo {
  MPI_Comm comm;
  int n;
  int peer[HALO_MAX];
  halo_copy send, recv;
  int64_t send_count, recv_count;
  kc_mirror *send_buf, *recv_buf;
  int direct;      /* 1: MPI is given the target (device) side */
  const char *why; /* how `direct` was decided, for the output */
} halo;

/* Parses "auto", "direct" or "staged"; -1 otherwise. */
int halo_parse_mode(const char *s, halo_mode *mode);

/* Starts an empty exchange on `comm` (kc initialised).  Decides how device
 * buffers reach MPI: on a backend whose device memory is host memory,
 * directly; else as `mode` says (HALO_AUTO: direct when the MPI says it
 * is CUDA-aware). */
void halo_init(halo *h, MPI_Comm comm, halo_mode mode);

/* Adds a neighbour (MPI_PROC_NULL: ignored): what it is sent, and where
 * what it sends goes.  The offsets are set here. */
void halo_add(halo *h, int peer, halo_seg send, halo_seg recv);

/* Allocates the packed buffers.  Returns 0 or a kc error. */
int halo_commit(halo *h);

/* Sends the send segments of `grid` (a kc allocation) to the neighbours
 * and writes theirs into its receive segments.  Returns 0 or a kc error. */
int halo_exchange(halo *h, double *grid);

void halo_free(halo *h);

/* Whether the MPI library passes device pointers: 1 yes, 0 no or unknown. */
int halo_mpi_cuda_aware(void);

#endif
