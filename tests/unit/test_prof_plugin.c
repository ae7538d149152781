/* test_prof_plugin.c - the NCCL profiler plugin driven as NCCL drives it,
 * with no GPU and no NCCL: the built libnccl-profiler-parbench.so is
 * dlopen'ed, its ncclProfiler_v5/_v4/_v3 looked up (and nothing else of
 * it visible), and each version's ops are called with event descriptors
 * laid out as that NCCL version lays them out.  The files written are
 * read back: every number checked below is one this test passed in.
 *
 *  - v5: 3 all-reduces (seq 0..2) with 2 kernel channels each, GPU timer
 *    1000 + 10 i .. 1100 + 10 i, and 1 send; PARBENCH_PROFILE_EVERY=1;
 *  - v4: the same shapes, communicator from init; sampling every 2nd
 *    operation records 2 of 4;
 *  - v3: the communicator arrives with the operation (name, hash) and is
 *    in the header; no GPU timer;
 *  - a ring of 2 records and 6 operations finished before the writer
 *    runs: the overflow is counted in the end record, never blocks;
 *  - a failing write (the file replaced by /dev/full): logged once, the
 *    context turns itself off, later events are no-ops, nothing fails;
 *  - init with a directory that cannot be made: NCCL is told (an error
 *    from init), and nothing else happens. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profiler/pb_prof_api.h"
#include "profiler/pb_prof_ctx.h"
#include "profiler/pb_prof_rec.h"
#include "pb_test.h"

static char dir[] = "/tmp/pb_prof_XXXXXX";
static int nlogs;

static void logger(int level, unsigned long flags, const char *file, int line, const char *fmt,
                   ...)
{
    (void)level, (void)flags, (void)file, (void)line, (void)fmt;
    nlogs++;
}

/* The one file of communicator `id` in dir: its header and records. */
static size_t read_file(uint64_t id, pb_prof_head_t *h, pb_prof_rec_t *rec, size_t cap)
{
    char path[512], host[64] = "";
    gethostname(host, sizeof host - 1);
    pb_prof_path(path, sizeof path, dir, host, (int)getpid(), id);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (f == NULL)
        return 0;
    CHECK(fread(h, sizeof *h, 1, f) == 1);
    size_t n = fread(rec, sizeof *rec, cap, f);
    fclose(f);
    return n;
}

static void *sym(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    CHECK(p != NULL);
    return p;
}

/* One all-reduce as NCCL reports it to a v5 plugin: enqueue (start,
 * stop) and two kernel channels with GPU timers; the enqueue's stop comes
 * before the channels', or after them with late_stop (either order). */
static void allreduce_v5(const pb_nccl_profiler_v5_t *p, void *ctx, uint64_t seq, int late_stop)
{
    pb_nccl_descr_v5_t d;
    memset(&d, 0, sizeof d);
    d.type = PB_NCCL_PROF_COLL;
    d.coll.seqNumber = seq, d.coll.func = "AllReduce", d.coll.count = 1048576;
    d.coll.datatype = "ncclBfloat16", d.coll.nChannels = 2, d.coll.nWarps = 16;
    d.coll.algo = "RING", d.coll.proto = "SIMPLE", d.coll.root = -1;
    void *op = NULL, *ch[2] = {NULL, NULL};
    CHECK(p->startEvent(ctx, &op, &d) == 0 && op != NULL);
    if (!late_stop)
        CHECK(p->stopEvent(op) == 0); /* enqueued; the kernel still runs */
    for (int c = 0; c < 2; c++) {
        pb_nccl_descr_v5_t k;
        memset(&k, 0, sizeof k);
        k.type = PB_NCCL_PROF_KERNEL_CH, k.parentObj = op, k.kernelCh.channelId = (uint8_t)c;
        k.kernelCh.pTimer = 1000 + 10 * seq + (uint64_t)c;
        CHECK(p->startEvent(ctx, &ch[c], &k) == 0 && ch[c] != NULL);
    }
    for (int c = 0; c < 2; c++) {
        pb_nccl_state_args_v5_t a;
        a.kernelCh.pTimer = 1100 + 10 * seq - (uint64_t)c;
        CHECK(p->recordEventState(ch[c], PB_NCCL_PROF_KERNEL_CH_STOP, &a) == 0);
        CHECK(p->stopEvent(ch[c]) == 0);
    }
    if (late_stop)
        CHECK(p->stopEvent(op) == 0);
}

static void test_v5(void *lib)
{
    const pb_nccl_profiler_v5_t *p = sym(lib, "ncclProfiler_v5");
    void *ctx = NULL;
    int mask = 0;
    /* torchrun's variables name the process's global rank in the header;
     * the first of the launchers' that is set wins */
    setenv("RANK", "11", 1);
    setenv("WORLD_SIZE", "32", 1);
    setenv("OMPI_COMM_WORLD_RANK", "7", 1);
    CHECK(p->init(&ctx, 0x5a, &mask, "tp", 2, 16, 3, logger) == 0 && ctx != NULL);
    unsetenv("RANK");
    unsetenv("WORLD_SIZE");
    unsetenv("OMPI_COMM_WORLD_RANK");
    CHECK(mask == (PB_NCCL_PROF_COLL | PB_NCCL_PROF_P2P | PB_NCCL_PROF_KERNEL_CH));
    for (uint64_t s = 0; s < 3; s++)
        allreduce_v5(p, ctx, s, s == 2);
    pb_nccl_descr_v5_t d;
    memset(&d, 0, sizeof d);
    d.type = PB_NCCL_PROF_P2P, d.p2p.func = "Send", d.p2p.count = 4096, d.p2p.peer = 5;
    d.p2p.datatype = "ncclFloat32", d.p2p.nChannels = 1;
    void *h = NULL, *k = NULL;
    CHECK(p->startEvent(ctx, &h, &d) == 0 && h != NULL && p->stopEvent(h) == 0);
    pb_nccl_descr_v5_t kd;
    memset(&kd, 0, sizeof kd);
    kd.type = PB_NCCL_PROF_KERNEL_CH, kd.parentObj = h, kd.kernelCh.pTimer = 5000;
    CHECK(p->startEvent(ctx, &k, &kd) == 0 && k != NULL && p->stopEvent(k) == 0);
    /* a send to itself (peer 3 = this rank): NCCL makes no proxy op for
     * it (enqueue.cc, nProxyOps = selfSend ? 0 : 2), so no channel event
     * follows; recorded at its stop all the same (it was lost, with its
     * slot, until the H200 run of 2026-12-04 recorded 0 operations) */
    d.p2p.peer = 3, d.p2p.count = 256, d.p2p.nChannels = 2;
    CHECK(p->startEvent(ctx, &h, &d) == 0 && h != NULL && p->stopEvent(h) == 0);
    d.type = PB_NCCL_PROF_PROXY_OP; /* not asked for: no handle */
    CHECK(p->startEvent(ctx, &h, &d) == 0 && h == NULL);
    CHECK(p->finalize(ctx) == 0);
    pb_prof_head_t hd;
    pb_prof_rec_t r[8];
    size_t n = read_file(0x5a, &hd, r, 8);
    CHECK(memcmp(hd.magic, PB_PROF_MAGIC, 8) == 0 && hd.api == 5 && hd.rank == 3);
    CHECK(hd.nranks == 16 && hd.nnodes == 2 && strcmp(hd.comm_name, "tp") == 0);
    CHECK(hd.version == 2 && hd.world_rank == 11 && hd.world_size == 32);
    CHECK(n == 6); /* 3 all-reduces, 2 sends, the end record */
    for (size_t i = 0; i < 3 && n == 6; i++) {
        CHECK(r[i].kind == PB_PROF_REC_COLL && r[i].seq == i && r[i].count == 1048576);
        CHECK(strcmp(r[i].func, "AllReduce") == 0 && strcmp(r[i].algo, "RING") == 0);
        CHECK(strcmp(r[i].proto, "SIMPLE") == 0 && strcmp(r[i].dtype, "ncclBfloat16") == 0);
        CHECK(r[i].g0 == 1000 + 10 * i && r[i].g1 == 1100 + 10 * i); /* min start, max stop */
        CHECK(r[i].nkch == 2 && r[i].nchannels == 2 && r[i].nwarps == 16);
        CHECK(r[i].t_enq0 > 0 && r[i].t_enq0 <= r[i].t_enq1 && r[i].t_k0 <= r[i].t_k1);
    }
    CHECK(n == 6 && r[3].kind == PB_PROF_REC_P2P && r[3].peer == 5 && r[3].count == 4096);
    CHECK(n == 6 && r[3].g0 == 5000 && r[3].g1 == 0); /* no stop timer given: 0, unknown */
    CHECK(n == 6 && r[4].kind == PB_PROF_REC_P2P && r[4].peer == 3 && r[4].count == 256);
    CHECK(n == 6 && r[4].nkch == 0 && r[4].g0 == 0); /* no channel: no GPU time */
    CHECK(n == 6 && r[5].kind == PB_PROF_REC_END && r[5].seq == 5 && r[5].count == 0);
}

static void test_v4_sampling(void *lib)
{
    setenv("PARBENCH_PROFILE_EVERY", "2", 1);
    const pb_nccl_profiler_v4_t *p = sym(lib, "ncclProfiler_v4");
    void *ctx = NULL;
    int mask = 0;
    CHECK(p->init(&ctx, &mask, "dp", 0x4b, 1, 8, 0, logger) == 0 && ctx != NULL);
    int recorded = 0;
    for (uint64_t s = 0; s < 4; s++) {
        pb_nccl_descr_v4_t d;
        memset(&d, 0, sizeof d);
        d.type = PB_NCCL_PROF_COLL, d.coll.seqNumber = s, d.coll.func = "ReduceScatter";
        d.coll.count = 64, d.coll.datatype = "ncclFloat32", d.coll.algo = "RING";
        d.coll.proto = "LL";
        void *h = NULL;
        CHECK(p->startEvent(ctx, &h, &d) == 0);
        recorded += h != NULL;
        CHECK(p->stopEvent(h) == 0); /* NULL: a no-op */
    }
    CHECK(recorded == 2);
    CHECK(p->finalize(ctx) == 0);
    unsetenv("PARBENCH_PROFILE_EVERY");
    pb_prof_head_t hd;
    pb_prof_rec_t r[8];
    size_t n = read_file(0x4b, &hd, r, 8);
    CHECK(n == 3 && hd.api == 4 && hd.every == 2 && r[0].seq == 0 && r[1].seq == 2);
    CHECK(n == 3 && r[0].g0 == 0 && r[0].nkch == 0); /* no kernel channel seen */
}

static void test_v3(void *lib)
{
    const pb_nccl_profiler_v3_t *p = sym(lib, "ncclProfiler_v3");
    void *ctx = NULL;
    int mask = 0;
    CHECK(p->init(&ctx, &mask) == 0 && ctx != NULL);
    pb_nccl_descr_v3_t d;
    memset(&d, 0, sizeof d);
    d.type = PB_NCCL_PROF_COLL, d.coll.name = "pp", d.coll.commHash = 0x3c;
    d.coll.seqNumber = 7, d.coll.func = "Broadcast", d.coll.count = 10, d.coll.root = 1;
    d.coll.datatype = "ncclInt8", d.coll.nMaxChannels = 4;
    void *h = NULL;
    CHECK(p->startEvent(ctx, &h, &d) == 0 && h != NULL && p->stopEvent(h) == 0);
    CHECK(p->finalize(ctx) == 0);
    pb_prof_head_t hd;
    pb_prof_rec_t r[4];
    size_t n = read_file(0, &hd, r, 4); /* named by the id known at open */
    CHECK(n == 2 && hd.api == 3 && hd.comm_id == 0x3c && strcmp(hd.comm_name, "pp") == 0);
    CHECK(n == 2 && r[0].seq == 7 && r[0].peer == 1 && r[0].nchannels == 4 && hd.rank == -1);
    CHECK(hd.world_rank == -1 && hd.world_size == -1); /* no launcher said */
}

static void test_overflow_and_failure(void *lib)
{
    const pb_nccl_profiler_v5_t *p = sym(lib, "ncclProfiler_v5");
    setenv("PARBENCH_PROFILE_RING", "2", 1);
    void *ctx = NULL;
    int mask = 0;
    CHECK(p->init(&ctx, 0x6d, &mask, "ep", 1, 2, 0, logger) == 0 && ctx != NULL);
    unsetenv("PARBENCH_PROFILE_RING");
    pb_prof_ctx_t *c = ctx;
    atomic_store(&c->stop, 1); /* the writer stops draining: the ring fills */
    pthread_join(c->writer, NULL);
    c->writer_up = 0;
    for (uint64_t s = 0; s < 6; s++)
        allreduce_v5(p, ctx, s, 0);
    pb_prof_ring_t *r0 = atomic_load(&c->ring[0]);
    CHECK(r0 != NULL && atomic_load(&r0->dropped) == 4); /* 2 kept, 4 counted, none waited for */
    /* the disk fails: one message, the context off, events no-ops */
    int full = open("/dev/full", O_WRONLY);
    CHECK(full >= 0 && dup2(full, c->fd) == c->fd);
    close(full);
    nlogs = 0;
    CHECK(pb_prof_ctx_drain(c) == -1 && nlogs == 1 && atomic_load(&c->active) == 0);
    void *h = (void *)1;
    pb_nccl_descr_v5_t d;
    memset(&d, 0, sizeof d);
    d.type = PB_NCCL_PROF_COLL, d.coll.func = "AllReduce";
    CHECK(p->startEvent(ctx, &h, &d) == 0 && h == NULL);
    CHECK(p->finalize(ctx) == 0 && nlogs == 1); /* still one message */
}

static void test_no_dir(void *lib)
{
    const pb_nccl_profiler_v5_t *p = sym(lib, "ncclProfiler_v5");
    setenv("PARBENCH_PROFILE_DIR", "/proc/parbench-cannot-be-made", 1);
    void *ctx = (void *)1;
    int mask = -1;
    nlogs = 0;
    CHECK(p->init(&ctx, 1, &mask, "x", 1, 1, 0, logger) != 0 && ctx == NULL && mask == 0);
    CHECK(nlogs == 1);
    setenv("PARBENCH_PROFILE_DIR", dir, 1);
}

int main(void)
{
    /* no launcher's rank variables but the ones a test sets */
    static const char *const vars[] = {"RANK", "WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
                                       "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "SLURM_PROCID",
                                       "SLURM_NTASKS", "PMI_RANK", "PMI_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    CHECK(mkdtemp(dir) != NULL);
    setenv("PARBENCH_PROFILE_DIR", dir, 1);
    void *lib = dlopen(PB_PROFILER_SO, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "dlopen %s: %s\n", PB_PROFILER_SO, dlerror());
        return 1;
    }
    CHECK(dlsym(lib, "pb_prof_start") == NULL); /* internals stay hidden */
    test_v5(lib);
    test_v4_sampling(lib);
    test_v3(lib);
    test_overflow_and_failure(lib);
    test_no_dir(lib);
    dlclose(lib);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    PB_TEST_END("unit_prof_plugin");
}
