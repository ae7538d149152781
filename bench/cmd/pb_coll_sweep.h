/* pb_coll_sweep.h - what `parbench coll`'s files share: the sweep's
 * state, and its printed heads (pb_coll_head.c). */
#ifndef PB_COLL_SWEEP_H
#define PB_COLL_SWEEP_H

#include "../run/pb_ctx.h"
#include "../run/pb_exec.h"
#include "../run/pb_progress.h"
#include "../run/pb_wall.h"

typedef struct sweep {
    pb_ctx_t *ctx;
    pb_group_t *g; /* this rank's group */
    const char *group_name;
    char link_class[16]; /* the slowest link inside any group */
    uint64_t *sizes;
    size_t nsizes;
    int from_range; /* range sizes are rounded; listed ones must divide */
    /* several collectives or types: a listed size that one of them cannot
     * take is skipped for that one (and said), not the whole run refused */
    int skip_indivisible;
    /* --buffers, decided once the backend is open (pb_harness.h) */
    int rotate;
    /* --dtype all: refused[t] has bit r set where the backend cannot run
     * type t with reduction r on this group; skipped and named */
    unsigned refused[PB_DTYPE_COUNT];
    char refused_why[PB_DTYPE_COUNT][192];
    pb_bufs_t bufs;
    int64_t wrong_total;
    int stalled; /* the stall fault fires once */
    pb_progress_t progress;
    pb_wall_t ph; /* where the wall time goes (PARBENCH_PHASES prints it) */
} sweep_t;

/* The run's head, rank 0 (collective: every rank's device line is
 * gathered); then, before each table, what it measures and how. */
void pb_coll_run_head(const sweep_t *s);
void pb_coll_table_head(const sweep_t *s, pb_coll_t c, pb_dtype_t t, const char *redop,
                        pb_mode_t mode, int rounded, size_t skipped);

#endif
