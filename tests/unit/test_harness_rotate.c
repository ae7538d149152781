/* --buffers rotate (bench/run/pb_harness.c): the k-th timed operation
 * runs at offset (k mod steps) x stride into the buffers, stride = the
 * operation's footprint rounded up to 256 B, steps = capacity / stride,
 * as nccl-tests' startColl shifts its buffers by totalnbytes x
 * (iter % (maxbytes / totalnbytes)).  A fake one-rank backend logs the
 * pointers each all-reduce gets; the harness runs with a fixed batch and
 * sample count, so the offsets are known by hand:
 *   1000 B of float in 4096 B buffers: stride 1024 (1000 up to 256 B),
 *   steps 4; the 3 warm-up operations run at offset 0 (untimed); the
 *   batch is fixed at 3, so no estimate runs; then 2 samples x 3 = 6
 *   timed operations at 0, 1024, 2048, 3072, 0, 1024.
 * fixed: every operation at offset 0.  PB_CAP_ROTATE decides the default
 * (pb_harness_rotate). */
#include <stdlib.h>
#include <string.h>

#include "bench/run/pb_harness.h"
#include "collectives/pb_ctl.h"
#include "pb_test.h"

enum { MAXLOG = 64 };
typedef struct {
    const char *base_s, *base_r;
    long off_s[MAXLOG], off_r[MAXLOG];
    int n;
} log_t;

static int f_allreduce(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                       pb_redop_t op, pb_err_t *err)
{
    (void)count, (void)t, (void)op, (void)err;
    log_t *l = g->be->priv;
    if (l->n < MAXLOG) {
        l->off_s[l->n] = (long)((const char *)s - l->base_s);
        l->off_r[l->n] = (long)((const char *)r - l->base_r);
    }
    l->n++;
    return PB_OK;
}

static int f_ok(pb_group_t *g, pb_err_t *err)
{
    (void)g, (void)err;
    return PB_OK;
}

static int f_mark(pb_group_t *g, int slot, pb_err_t *err)
{
    (void)g, (void)slot, (void)err;
    return PB_OK;
}

static int f_elapsed(pb_group_t *g, int from, int to, double *sec, pb_err_t *err)
{
    (void)g, (void)from, (void)to, (void)err;
    *sec = 1e-6;
    return PB_OK;
}

/* Runs the harness on a fresh log; returns the operations logged. */
static int run(pb_group_t *g, pb_ctl_t *ctl, pb_bufs_t *b, int rotate, log_t *l)
{
    memset(l->off_s, 0, sizeof l->off_s);
    memset(l->off_r, 0, sizeof l->off_r);
    l->n = 0;
    pb_op_t op = {PB_ALLREDUCE, PB_F32, PB_SUM, 0, 0, 1000, {0, 0, 0, 0}, 0, 0, 0, 0.0};
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_op_setup(&op, g, b, &err) == PB_OK);
    pb_harness_cfg_t cfg = {PB_MODE_THROUGHPUT, 3, 2, 1, 2, 3, 0, 0.02, 1.0, NULL, 0, 0.0,
                            rotate};
    pb_timing_t tm;
    CHECK(pb_harness_time(g, g, ctl, &op, b, &cfg, &tm, &err) == PB_OK);
    CHECK(tm.samples == 2 && tm.batch == 3 && tm.iters == 6);
    return l->n;
}

int main(void)
{
    log_t l;
    memset(&l, 0, sizeof l);
    pb_comm_ops_t comm;
    memset(&comm, 0, sizeof comm);
    comm.allreduce = f_allreduce;
    comm.barrier = f_ok;
    comm.sync = f_ok;
    comm.mark = f_mark;
    comm.elapsed = f_elapsed;
    pb_backend_t be;
    memset(&be, 0, sizeof be);
    be.comm = &comm;
    be.priv = &l;
    pb_group_t g;
    memset(&g, 0, sizeof g);
    g.be = &be;
    g.size = 1;
    char *send = malloc(4096), *recv = malloc(4096);
    uint64_t a2av[4] = {0, 0, 0, 0};
    pb_bufs_t b = {send, recv, 4096, a2av};
    l.base_s = send;
    l.base_r = recv;
    pb_ctl_shared_t *sh = pb_ctl_threads_new(1);
    pb_ctl_t *ctl = sh ? pb_ctl_threads_join(sh, 0) : NULL;
    CHECK(ctl != NULL);
    if (ctl == NULL)
        return 1;

    /* rotate: 3 warm-up at 0, the batch is fixed (no estimate), then
     * 6 timed at 0, 1024, 2048, 3072, 0, 1024 */
    CHECK(run(&g, ctl, &b, 1, &l) == 9);
    const long want[9] = {0, 0, 0, 0, 1024, 2048, 3072, 0, 1024};
    for (int i = 0; i < 9; i++) {
        CHECK(l.off_s[i] == want[i]);
        CHECK(l.off_r[i] == want[i]);
    }
    /* fixed: all nine at 0 */
    CHECK(run(&g, ctl, &b, 0, &l) == 9);
    for (int i = 0; i < 9; i++)
        CHECK(l.off_s[i] == 0 && l.off_r[i] == 0);
    /* a footprint that fills the buffers: one slice, nothing moves */
    b.bytes = 1024;
    CHECK(run(&g, ctl, &b, 1, &l) == 9);
    for (int i = 0; i < 9; i++)
        CHECK(l.off_s[i] == 0);

    /* the default follows the backend's capability; an explicit choice wins */
    be.caps = PB_CAP_ROTATE;
    CHECK(pb_harness_rotate(-1, &be) == 1);
    CHECK(pb_harness_rotate(0, &be) == 0);
    be.caps = 0;
    CHECK(pb_harness_rotate(-1, &be) == 0);
    CHECK(pb_harness_rotate(1, &be) == 1);
    pb_ctl_free(ctl); /* the shared part goes with the last handle */
    free(send);
    free(recv);
    PB_TEST_END("unit_harness_rotate");
}
