/* pb_import_io.h - what an import of another tool's log is asked (the
 * tool, --partial, the process count) and what it fills (the rows, the
 * lines refused, the benchmarks left out); the import itself: pb_import.h.
 *
 * A header of its own because two parts use it: the entry points
 * (pb_import.h) and the three log parsers (pb_import_priv.h), which the
 * entry points call.  Each part's header includes this one, never the
 * other's. */
#ifndef PB_IMPORT_IO_H
#define PB_IMPORT_IO_H

#include <stddef.h>

#include "pb_result.h"

typedef enum pb_import_tool {
    PB_IMPORT_AUTO,
    PB_IMPORT_NCCL, /* nccl-tests: all_reduce_perf and friends */
    PB_IMPORT_OSU,  /* OSU micro-benchmarks: osu_allreduce, osu_bw, ... */
    PB_IMPORT_IMB   /* Intel MPI Benchmarks: IMB-MPI1 */
} pb_import_tool_t;

typedef struct pb_import_opts {
    pb_import_tool_t tool;
    int partial; /* keep the rows that parse; count the lines that do not */
    int world;   /* processes, for logs that do not say (OSU); 0: unknown */
    /* how the processes were placed, for logs that do not say (OSU, IMB,
     * nccl-tests without its rank lines): nodes, or processes per node
     * (block placement: a table of p processes spans ceil(p / per_node)
     * nodes); 0: unknown */
    int nodes, per_node;
    /* the collective (parbench's name), for logs that do not name it
     * (nccl-tests without its banner, OSU without its title) where the
     * file name does not either; NULL: none given */
    const char *coll;
} pb_import_opts_t;

/* The link class of rows whose placement the log does not say and no
 * option gave: within one node or across nodes is unknown, and calibrate
 * refuses to take it for either. */
#define PB_IMPORT_LINK_UNKNOWN "?"

typedef struct pb_import_out {
    pb_result_t *rows;
    size_t n, cap;
    size_t skipped;        /* lines refused under partial */
    char first_skip[240];  /* "file:line: why" of the first one */
    /* benchmarks in the log that parbench has no collective for (IMB's
     * Gather, OSU's Barrier, ...): left out, named here once each */
    char ignored[240];
    /* a failed run (nccl-tests' "Test NCCL failure", ...) under partial:
     * "file:line: the line", the table closed there; or its data check
     * failed ("Out of bounds values : 7 FAILED", rows with wrong
     * elements): "file:line: why", every row kept, the wrong ones with
     * their wrong count (calibrate leaves them out): then failed_check */
    char failure[240];
    int failed_check;
    /* nccl-tests' footer beside the mean of the busbw column it prints
     * (so a log cut short or edited shows) */
    int have_avg;
    double avg_busbw_stated, avg_busbw_rows;
} pb_import_out_t;

#endif
