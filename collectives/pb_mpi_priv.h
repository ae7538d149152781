/* pb_mpi_priv.h - state shared by the files of the MPI backend. */
#ifndef PB_MPI_PRIV_H
#define PB_MPI_PRIV_H

#include <mpi.h>

#include "pb_backend.h"

#define PB_MPI_MARKS 4

/* Open MPI 4.1 implements MPI 3.1: counts are int.  Calls are split so
 * that none carries more than this many bytes (and never more than
 * INT_MAX elements).  1 GiB stays clear of every 2^31-byte limit inside
 * the transports. */
#define PB_MPI_DEFAULT_CHUNK (UINT64_C(1) << 30)

typedef struct pb_mpi_state {
    MPI_Comm world;
    uint64_t chunk_bytes;
    /* 2- and 1-byte floats have no MPI type: they travel as MPI_UINT16_T
     * or MPI_UINT8_T and are reduced by user-defined operators
     * [f16, bf16, f8e4m3, f8e5m2][redop] */
    MPI_Op small_ops[4][PB_REDOP_COUNT];
    /* memcpy, or a device copy when buffers live on the GPU */
    void (*copy)(void *dst, const void *src, size_t bytes);
    pb_backend_ops_t device_ops; /* --memory device: this instance's table */
} pb_mpi_state_t;

typedef struct pb_mpi_group {
    MPI_Comm comm;
    double marks[PB_MPI_MARKS];
} pb_mpi_group_t;

static inline pb_mpi_state_t *pb_mpi_state(const pb_group_t *g)
{
    return (pb_mpi_state_t *)g->be->priv;
}

static inline MPI_Comm pb_mpi_comm(const pb_group_t *g)
{
    return ((const pb_mpi_group_t *)g->priv)->comm;
}

/* pb_mpi_device.c (CUDA builds): is the MPI CUDA-aware, and the table
 * that runs the backend on device buffers */
int pb_mpi_device_supported(char *why, size_t len);
const pb_backend_ops_t *pb_mpi_device_ops(pb_mpi_state_t *st);

/* pb_mpi_types.c */
MPI_Datatype pb_mpi_datatype(pb_dtype_t t);
int pb_mpi_op(const pb_mpi_state_t *st, pb_dtype_t t, pb_redop_t op, MPI_Op *out, pb_err_t *err);
int pb_mpi_ops_create(pb_mpi_state_t *st, pb_err_t *err);
void pb_mpi_ops_free(pb_mpi_state_t *st);
/* Turns an MPI return code into PB_ERUNTIME naming the call. */
int pb_mpi_fail(int rc, const char *call, pb_err_t *err);

/* pb_mpi_colls.c: the collectives, split into chunks as needed */
int pb_mpi_allreduce(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                     pb_redop_t op, pb_err_t *err);
int pb_mpi_allgather(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                     pb_err_t *err);
int pb_mpi_reduce_scatter(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                          pb_redop_t op, pb_err_t *err);
int pb_mpi_alltoall(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                    pb_err_t *err);
int pb_mpi_alltoallv(pb_group_t *g, const void *s, const uint64_t *scounts,
                     const uint64_t *sdispls, void *r, const uint64_t *rcounts,
                     const uint64_t *rdispls, pb_dtype_t t, pb_err_t *err);
int pb_mpi_broadcast(pb_group_t *g, void *buf, uint64_t count, pb_dtype_t t, int root,
                     pb_err_t *err);
int pb_mpi_reduce(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                  pb_redop_t op, int root, pb_err_t *err);
int pb_mpi_sendrecv(pb_group_t *g, const void *s, int dst, void *r, int src, uint64_t count,
                    pb_dtype_t t, pb_err_t *err);

#endif
