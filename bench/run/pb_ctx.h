/* pb_ctx.h - one rank of a run: the control world (MPI ranks, or the
 * threads of --gpus N), the backend, the output, and the facts every
 * result row carries (run id, host, nodes).  Nothing in it is shared
 * between ranks, so the threads of --gpus N each hold their own. */
#ifndef PB_CTX_H
#define PB_CTX_H

#include <stdio.h>

#include "../../collectives/pb_ctl.h"

#include "../../collectives/pb_backend.h"
#include "../../reports/pb_csv.h"
#include "../../reports/pb_json.h"
#include "../../reports/pb_samples_csv.h"
#include "../../topo/pb_topo.h"
#include "pb_nodemap.h"
#include "../cli/pb_options.h"
#include "pb_watchdog.h"

typedef struct pb_ctx {
    const pb_options_t *opt;
    const char *csv_path; /* where rows go (rank 0; NULL: no CSV) */
    const char *out_dir;  /* the main job's folder (rank 0; set by pb_app_run) */
    pb_ctl_t *world;  /* the control world: this rank's handle, owned */
    int rank;
    int size;
    int nodes;
    char host[PB_RESULT_STR];
    char run_id[PB_RESULT_STR];
    char version[256];
    pb_backend_t be;
    pb_group_t *world_group;
    pb_csv_writer_t *csv; /* rank 0 only */
    pb_json_writer_t *json; /* rank 0 only: --json, the same rows */
    pb_samples_writer_t *samples; /* rank 0 only: --samples */
    pb_topo_t topo;       /* this node (PCI devices only for topo/validate) */
    pb_nodemap_t map;     /* every rank's node, binding, GPU; pair links */
    pb_watchdog_t *wd;    /* hang watchdog and signal taker (NULL: none) */
    int stopped_by;       /* SIGINT/SIGTERM all ranks agreed to stop on */
    /* the most oversubscribed node: its ranks and cores (0, 0 when every
     * node has a core per rank) */
    int oversub_ranks, oversub_cores;
    uint64_t rows;        /* result rows written (rank 0) */
} pb_ctx_t;

/* Collective over `world`, which the context takes (freed by
 * pb_ctx_fini).  On failure every rank returns the same code, and err holds
 * the message of the lowest failing rank. */
int pb_ctx_init(pb_ctx_t *ctx, const pb_options_t *opt, const char *csv_path, pb_watchdog_t *wd,
                pb_ctl_t *world, pb_err_t *err);

/* Collective, between measurements: has any rank received SIGINT or
 * SIGTERM?  Then every rank returns that signal (and ctx->stopped_by
 * holds it), so all stop at the same measurement. */
int pb_ctx_stopping(pb_ctx_t *ctx);

/* Rank 0's one line after a stop: which signal, how many rows, where. */
void pb_ctx_report_stop(const pb_ctx_t *ctx);
void pb_ctx_fini(pb_ctx_t *ctx);

/* Collective agreement on a status: returns the worst code of all ranks
 * and, where this rank was fine but another was not, copies that rank's
 * message into err so rank 0 can print it.  Used after every step that
 * can fail on some ranks only, so no rank waits alone in a collective. */
int pb_ctx_agree(const pb_ctx_t *ctx, int code, pb_err_t *err);

/* A runtime failure inside a step that others may be blocked in: print
 * it from this rank and abort the whole job with the runtime exit code. */
_Noreturn void pb_ctx_abort(const pb_ctx_t *ctx, const pb_err_t *err);

/* Writes a finished row to every output (--csv, --json); rank 0 holds
 * them, elsewhere this does nothing. */
int pb_ctx_emit(pb_ctx_t *ctx, const pb_result_t *r, pb_err_t *err);

/* --samples: the raw times behind row r (per_rank as pb_timing_t holds
 * it: rank-major, n samples per rank); rank 0 writes, elsewhere (and
 * without --samples) nothing happens. */
int pb_ctx_emit_samples(pb_ctx_t *ctx, const pb_result_t *r, const double *per_rank, uint64_t n,
                        pb_err_t *err);

/* Before allocating: do two buffers of buf_bytes (send and receive) plus
 * `extra` bytes per rank fit in the memory the backend allocates from
 * (host memory is shared by the ranks of a node)?  PB_EINPUT with the
 * amount that would have been needed when not; PB_OK when they fit or the
 * backend cannot tell.  Local: callers agree. */
int pb_ctx_memory_fits(const pb_ctx_t *ctx, uint64_t buf_bytes, uint64_t extra, pb_err_t *err);

/* Rank 0: one header line when ranks outnumber the cores of a node, so
 * that timings which mean little are never printed without saying so. */
void pb_ctx_print_oversub(const pb_ctx_t *ctx, FILE *f);

/* Fills the run-wide fields of a result row. */
void pb_ctx_result_base(const pb_ctx_t *ctx, pb_result_t *r);

#endif
