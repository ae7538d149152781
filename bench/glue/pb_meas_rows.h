/* pb_meas_rows.h - result rows (reports/) into the plain points the model
 * (model/) fits, so model/ never sees the CSV schema. */
#ifndef PB_MEAS_ROWS_H
#define PB_MEAS_ROWS_H

#include <stddef.h>

#include "../../model/pb_calib.h"
#include "../../reports/pb_result.h"

/* Each point keeps its group's ranks per node (pb_meas_t.per_node): the
 * group size within a node; world / nodes for a group of the whole world
 * across nodes; 0 (unknown) for a smaller group across nodes.
 * Communication rows whose collective the patterns issue (allreduce,
 * allgather, reducescatter, alltoall, alltoallv, sendrecv) with a
 * positive median and no wrong elements; others are skipped (counted in
 * *skipped), and so are reductions of a type the model has no name for.
 * *pts is malloc'ed. */
int pb_meas_from_rows(const pb_result_t *rows, size_t n, pb_meas_t **pts, size_t *npts,
                      size_t *skipped, pb_err_t *err);

/* The GEMM rate of `parbench gemm` rows (pattern gemm): total FLOPs over
 * total time, TFLOP/s per GPU; 0 when there are none. */
double pb_meas_gemm_tflops(const pb_result_t *rows, size_t n, size_t *ngemm);

/* Reads several results files into one array (malloc'ed). */
int pb_meas_read_files(const char *const *paths, int npaths, pb_result_t **rows, size_t *n,
                       pb_err_t *err);

#endif
