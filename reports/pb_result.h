/* pb_result.h - one measured row, the unit every report consumes.
 *
 * Plain data: strings are fixed-size arrays so a row can be copied,
 * broadcast over MPI or written to disk without any ownership rules.
 * The field order is the CSV schema's (doc/design.md), which only ever grows
 * at the end. */
#ifndef PB_RESULT_H
#define PB_RESULT_H

#include <stdint.h>

#define PB_RESULT_STR 64
#define PB_RESULT_WRONG_UNCHECKED (-1)
/* What every table shows for a wrong count: the number, or nccl-tests'
 * "N/A" where nothing was verified. */
#define PB_RESULT_WRONG_NA "N/A"

typedef struct pb_result {
    char run_id[PB_RESULT_STR];
    char timestamp[PB_RESULT_STR]; /* ISO 8601, UTC */
    char host[PB_RESULT_STR];      /* rank 0's host name */
    int nodes;
    int world;
    char backend[PB_RESULT_STR];
    char mode[PB_RESULT_STR]; /* latency | throughput | graph */
    char pattern[PB_RESULT_STR];
    char collective[PB_RESULT_STR];
    char group[PB_RESULT_STR];
    int group_size;
    char link_class[PB_RESULT_STR];
    uint64_t bytes;
    char dtype[PB_RESULT_STR];
    int in_place;
    uint64_t iters;
    double time_us_min;
    double time_us_median;
    double time_us_p99;
    double time_us_max;
    double algbw_gbps;
    double busbw_gbps;
    int64_t wrong; /* PB_RESULT_WRONG_UNCHECKED: not verified (empty field) */
    char label[PB_RESULT_STR];
    /* columns added after the first schema */
    char redop[PB_RESULT_STR];
    int slowest_rank; /* the rank slowest in most iterations, -1 unknown */
    /* compute rows (pattern "gemm"): floating-point operations of one
     * operation (2.M.N.K for a GEMM) and the rate achieved at the median
     * time, in 10^12 FLOP/s; 0 on communication rows and in files
     * written before these columns existed */
    uint64_t flops;
    double tflops;
    /* validate rows (pattern "validate"): the bandwidth the pair's link
     * should reach, GB/s per direction (validate/pb_vexpect.h: the line
     * rate from the topology, or --expect), 0 where none is known; and the
     * pair's verdict ("ok", "slow", "cleared", "not judged"; see
     * doc/topology-and-validate.md).  0 and "" on every other row and in
     * files written before these columns existed. */
    double expect_gbps;
    char verdict[PB_RESULT_STR];
} pb_result_t;

#endif
