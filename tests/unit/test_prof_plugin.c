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
 *    from init), and nothing else happens: NCCL's event mask, one for the
 *    process, is left as it was;
 * and issue 49's cases: a signal after the library is unloaded; one file
 * per communicator rank, never one overwritten; v3's channels that come
 * after the operation's stop; operations in flight while recording is
 * paused, and at finalize; the CUDA device each communicator was
 * initialised on, in its header (a stand-in driver, fake_cuda.c); v3's
 * rank, from its first operation. */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profiler/pb_prof_api.h"
#include "profiler/pb_prof_ctx.h"
#include "profiler/pb_prof_rec.h"
#include "pb_test.h"

static char dir[] = "/tmp/pb_prof_XXXXXX";
static const char *cur; /* where the test being run has the plugin write */
static int nlogs;

static void logger(int level, unsigned long flags, const char *file, int line, const char *fmt,
                   ...)
{
    (void)level, (void)flags, (void)file, (void)line, (void)fmt;
    nlogs++;
}

/* The name doc/profiling.md gives the file of communicator `id`, rank
 * `rank` (-1: not known, API v3), written by this process in `cur`, or
 * its clash'th alternative (the name taken): spelt out here, not taken
 * from the plugin's code. */
static void name_of(char *path, size_t len, uint64_t id, int rank, int clash)
{
    char host[64] = "", r[16] = "", k[16] = "";
    gethostname(host, sizeof host - 1);
    if (rank >= 0)
        snprintf(r, sizeof r, "-r%d", rank);
    if (clash > 0)
        snprintf(k, sizeof k, "-%d", clash);
    snprintf(path, len, "%s/parbench-prof-%s-%d-%016llx%s%s.bin", cur, host, (int)getpid(),
             (unsigned long long)id, r, k);
}

/* That file's header and records. */
static size_t read_file(uint64_t id, int rank, int clash, pb_prof_head_t *h, pb_prof_rec_t *rec,
                        size_t cap)
{
    char path[512];
    name_of(path, sizeof path, id, rank, clash);
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
    size_t n = read_file(0x5a, 3, 0, &hd, r, 8);
    CHECK(memcmp(hd.magic, PB_PROF_MAGIC, 8) == 0 && hd.api == 5 && hd.rank == 3);
    CHECK(hd.nranks == 16 && hd.nnodes == 2 && strcmp(hd.comm_name, "tp") == 0);
    CHECK(hd.version == 3 && hd.world_rank == 11 && hd.world_size == 32);
    CHECK(hd.device == -1); /* no CUDA driver in this process (yet: test_device) */
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
    size_t n = read_file(0x4b, 0, 0, &hd, r, 8);
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
    d.rank = 2; /* NCCL puts comm->rank in every operation's descriptor */
    void *h = NULL;
    CHECK(p->startEvent(ctx, &h, &d) == 0 && h != NULL && p->stopEvent(h) == 0);
    CHECK(p->finalize(ctx) == 0);
    pb_prof_head_t hd;
    pb_prof_rec_t r[4];
    size_t n = read_file(0, -1, 0, &hd, r, 4); /* named by the id known at open, no rank */
    CHECK(n == 2 && hd.api == 3 && hd.comm_id == 0x3c && strcmp(hd.comm_name, "pp") == 0);
    CHECK(n == 2 && r[0].seq == 7 && r[0].peer == 1 && r[0].nchannels == 4);
    CHECK(hd.rank == 2 && hd.nranks == -1); /* the rank from the operation (-1 before) */
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
    /* the mask as another communicator's init set it: NCCL keeps one for
     * the process (ncclProfilerEventMask), so clearing it would turn the
     * other communicators' recording off (it was cleared before issue 49) */
    int mask = PB_NCCL_PROF_COLL | PB_NCCL_PROF_P2P | PB_NCCL_PROF_KERNEL_CH;
    nlogs = 0;
    CHECK(p->init(&ctx, 1, &mask, "x", 1, 1, 0, logger) != 0 && ctx == NULL);
    CHECK(mask == (PB_NCCL_PROF_COLL | PB_NCCL_PROF_P2P | PB_NCCL_PROF_KERNEL_CH));
    CHECK(nlogs == 1);
    setenv("PARBENCH_PROFILE_DIR", dir, 1);
}

/* ---- issue 49 ---- */

/* An operation as NCCL 2.28 starts it: a collective on nch channels. */
static void *coll_v5(const pb_nccl_profiler_v5_t *p, void *ctx, uint64_t seq, int nch)
{
    pb_nccl_descr_v5_t d;
    memset(&d, 0, sizeof d);
    d.type = PB_NCCL_PROF_COLL, d.coll.seqNumber = seq, d.coll.func = "AllGather";
    d.coll.count = 8, d.coll.datatype = "ncclInt32", d.coll.nChannels = (uint8_t)nch;
    d.coll.algo = "RING", d.coll.proto = "LL", d.coll.root = -1;
    void *h = NULL;
    CHECK(p->startEvent(ctx, &h, &d) == 0);
    return h;
}

/* One kernel channel of `parent`: its start (GPU timer t0), and its stop
 * (t1) unless t1 is 0. */
static void *chan_v5(const pb_nccl_profiler_v5_t *p, void *ctx, void *parent, uint64_t t0,
                     uint64_t t1)
{
    pb_nccl_descr_v5_t k;
    memset(&k, 0, sizeof k);
    k.type = PB_NCCL_PROF_KERNEL_CH, k.parentObj = parent, k.kernelCh.pTimer = t0;
    void *h = NULL;
    CHECK(p->startEvent(ctx, &h, &k) == 0);
    if (t1 != 0) {
        pb_nccl_state_args_v5_t a;
        a.kernelCh.pTimer = t1;
        CHECK(p->recordEventState(h, PB_NCCL_PROF_KERNEL_CH_STOP, &a) == 0);
        CHECK(p->stopEvent(h) == 0);
    }
    return h;
}

/* An operation as NCCL 2.26 starts it, on communicator `hash`. */
static void *coll_v3(const pb_nccl_profiler_v3_t *p, void *ctx, uint64_t hash, uint64_t seq)
{
    pb_nccl_descr_v3_t d;
    memset(&d, 0, sizeof d);
    d.type = PB_NCCL_PROF_COLL, d.coll.name = "pp", d.coll.commHash = hash;
    d.coll.seqNumber = seq, d.coll.func = "AllReduce", d.coll.count = 1;
    d.coll.datatype = "ncclInt8", d.coll.nMaxChannels = 2;
    void *h = NULL;
    CHECK(p->startEvent(ctx, &h, &d) == 0);
    return h;
}

static void *chan_v3(const pb_nccl_profiler_v3_t *p, void *ctx, void *parent)
{
    pb_nccl_descr_v3_t k;
    memset(&k, 0, sizeof k);
    k.type = PB_NCCL_PROF_KERNEL_CH, k.parentObj = parent;
    void *h = NULL;
    CHECK(p->startEvent(ctx, &h, &k) == 0);
    return h;
}

/* The plugin writes into dir/name (made) until use_dir(NULL). */
static void use_dir(const char *name)
{
    static char sub[512];
    if (name == NULL) {
        cur = dir;
    } else {
        snprintf(sub, sizeof sub, "%s/%s", dir, name);
        CHECK(mkdir(sub, 0777) == 0);
        cur = sub;
    }
    setenv("PARBENCH_PROFILE_DIR", cur, 1);
}

/* Item 1: NCCL dlcloses the plugin when its last communicator is
 * finalized (and after a failed init), while the PARBENCH_PROFILE_SIGNAL
 * handler, code of the library, stays installed.  In a child, before
 * this process loads the library: init, finalize, dlclose, the signal -
 * a SIGSEGV in unmapped memory before the library was linked -z
 * nodelete. */
static void test_signal_after_unload(void)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        setenv("PARBENCH_PROFILE_SIGNAL", "USR1", 1);
        void *lib = dlopen(PB_PROFILER_SO, RTLD_NOW | RTLD_LOCAL);
        const pb_nccl_profiler_v5_t *p = lib ? dlsym(lib, "ncclProfiler_v5") : NULL;
        void *ctx = NULL;
        int mask = 0;
        struct sigaction sa;
        if (p == NULL || p->init(&ctx, 0x1d, &mask, "u", 1, 1, 0, logger) != 0 ||
            p->finalize(ctx) != 0 || sigaction(SIGUSR1, NULL, &sa) != 0 ||
            sa.sa_handler == SIG_DFL || dlclose(lib) != 0)
            _exit(3); /* the handler not installed: nothing would be tested */
        raise(SIGUSR1);
        _exit(0);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    if (WIFSIGNALED(st))
        fprintf(stderr, "the child was killed by signal %d\n", WTERMSIG(st));
}

/* Item 2: one file per (host, pid, communicator, rank), created, never an
 * existing one truncated. */
static void test_names(void *lib)
{
    use_dir("names");
    const pb_nccl_profiler_v5_t *p5 = sym(lib, "ncclProfiler_v5");
    /* two ranks of one communicator in one process (--gpus 2, nccl-tests
     * -g 2): NCCL gives both the same commHash */
    void *c[3] = {NULL, NULL, NULL};
    int mask = 0;
    for (int r = 0; r < 2; r++)
        CHECK(p5->init(&c[r], 0x77, &mask, "tp", 1, 2, r, logger) == 0 && c[r] != NULL);
    for (int r = 0; r < 2; r++)
        CHECK(p5->stopEvent(coll_v5(p5, c[r], 10 + (uint64_t)r, 0)) == 0);
    /* rank 0 again (a restarted job meeting its pid again, as in a
     * container): its first name is taken, so -1 */
    CHECK(p5->init(&c[2], 0x77, &mask, "tp", 1, 2, 0, logger) == 0 && c[2] != NULL);
    CHECK(p5->stopEvent(coll_v5(p5, c[2], 12, 0)) == 0);
    for (int r = 0; r < 3; r++)
        CHECK(p5->finalize(c[r]) == 0);
    pb_prof_head_t hd;
    pb_prof_rec_t rec[4];
    for (int r = 0; r < 3; r++) {
        size_t n = read_file(0x77, r % 2, r / 2, &hd, rec, 4);
        CHECK(n == 2 && hd.rank == r % 2 && hd.comm_id == 0x77 && rec[0].seq == 10 + (uint64_t)r);
        CHECK(n == 2 && rec[1].kind == PB_PROF_REC_END && rec[1].seq == 1);
    }
    /* API v3: no communicator at open, so every context is id 0 there;
     * two at once, two files, each headed by its own communicator */
    const pb_nccl_profiler_v3_t *p3 = sym(lib, "ncclProfiler_v3");
    void *a = NULL, *b = NULL;
    CHECK(p3->init(&a, &mask) == 0 && p3->init(&b, &mask) == 0);
    CHECK(p3->stopEvent(coll_v3(p3, a, 0x31, 1)) == 0);
    CHECK(p3->stopEvent(coll_v3(p3, b, 0x32, 2)) == 0);
    CHECK(p3->finalize(b) == 0 && p3->finalize(a) == 0);
    for (int k = 0; k < 2; k++) {
        size_t n = read_file(0, -1, k, &hd, rec, 4);
        CHECK(n == 2 && hd.comm_id == 0x31 + (uint64_t)k && rec[0].seq == 1 + (uint64_t)k);
    }
    use_dir(NULL);
}

/* Item 3: NCCL's stop of a v3 operation means "enqueued"; its kernel
 * channels come after it.  Each operation is recorded once, and a late
 * channel never completes the operation that took its slot since. */
static void test_v3_late_channels(void *lib)
{
    use_dir("v3late");
    const pb_nccl_profiler_v3_t *p = sym(lib, "ncclProfiler_v3");
    void *ctx = NULL;
    int mask = 0;
    CHECK(p->init(&ctx, &mask) == 0 && ctx != NULL);
    void *a = coll_v3(p, ctx, 0x3d, 1); /* NCCL's order: the stop, then 2 channels */
    CHECK(p->stopEvent(a) == 0);
    void *ka = chan_v3(p, ctx, a), *kb = chan_v3(p, ctx, a);
    CHECK(p->stopEvent(ka) == 0 && p->stopEvent(kb) == 0);
    void *b = coll_v3(p, ctx, 0x3d, 2); /* a channel seen before the stop is followed */
    void *k = chan_v3(p, ctx, b);
    CHECK(k != NULL && p->stopEvent(b) == 0 && p->stopEvent(k) == 0);
    void *c = coll_v3(p, ctx, 0x3d, 3); /* C's channel starts late ... */
    CHECK(p->stopEvent(c) == 0);
    void *kc = chan_v3(p, ctx, c);
    for (uint64_t i = 0; i < PB_PROF_SLOTS - 1; i++) /* slots are taken in turn */
        CHECK(p->stopEvent(coll_v3(p, ctx, 0x3d, 100 + i)) == 0);
    void *d = coll_v3(p, ctx, 0x3d, 4); /* ... D has C's slot (slots are >= 256 bytes) ... */
    CHECK(((uintptr_t)d & ~(uintptr_t)255) == ((uintptr_t)c & ~(uintptr_t)255));
    CHECK(p->stopEvent(kc) == 0); /* ... and C's channel stops before D's enqueue ends */
    CHECK(p->stopEvent(d) == 0);
    CHECK(p->finalize(ctx) == 0);
    size_t cap = PB_PROF_SLOTS + 16, want = 4 + (PB_PROF_SLOTS - 1); /* a b c d, the fillers */
    pb_prof_rec_t *r = calloc(cap, sizeof *r);
    pb_prof_head_t hd;
    size_t n = r ? read_file(0, -1, 0, &hd, r, cap) : 0;
    CHECK(n == want + 1 && r[n - 1].kind == PB_PROF_REC_END && r[n - 1].seq == want);
    CHECK(n == want + 1 && r[n - 1].count == 0);
    uint64_t seen[5] = {0, 0, 0, 0, 0}, fill = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        fill += r[i].seq >= 100;
        if (r[i].seq < 5)
            seen[r[i].seq]++;
        if (r[i].seq == 2)
            CHECK(r[i].nkch == 1 && r[i].t_k0 > 0 && r[i].t_k0 <= r[i].t_k1);
        else
            CHECK(r[i].nkch == 0); /* no channel seen before its stop */
        CHECK(r[i].t_enq0 > 0 && r[i].t_enq0 <= r[i].t_enq1); /* D: completed at its stop */
    }
    CHECK(seen[1] == 1 && seen[2] == 1 && seen[3] == 1 && seen[4] == 1);
    CHECK(fill == PB_PROF_SLOTS - 1);
    free(r);
    use_dir(NULL);
}

/* Item 4: pausing (PARBENCH_PROFILE_SIGNAL) stops new operations only;
 * one recorded when it began is completed by its channels while paused,
 * and one still in flight at finalize is counted as dropped. */
static void test_pause(void *lib)
{
    use_dir("pause");
    const pb_nccl_profiler_v5_t *p = sym(lib, "ncclProfiler_v5");
    setenv("PARBENCH_PROFILE_SIGNAL", "USR1", 1);
    void *ctx = NULL;
    int mask = 0;
    CHECK(p->init(&ctx, 0x9a, &mask, "dp", 1, 4, 2, logger) == 0 && ctx != NULL);
    unsetenv("PARBENCH_PROFILE_SIGNAL");
    struct sigaction sa;
    int handled = sigaction(SIGUSR1, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL;
    CHECK(handled); /* else raising it would end the test */
    void *e = coll_v5(p, ctx, 0, 2);
    CHECK(e != NULL && p->stopEvent(e) == 0);
    CHECK(handled && raise(SIGUSR1) == 0); /* paused, e's kernel not yet run */
    CHECK(coll_v5(p, ctx, 1, 2) == NULL);  /* begun while paused: not recorded */
    chan_v5(p, ctx, e, 300, 390);
    chan_v5(p, ctx, e, 301, 400);
    CHECK(handled && raise(SIGUSR1) == 0); /* on again */
    void *g = coll_v5(p, ctx, 2, 2);       /* in flight at finalize: */
    CHECK(g != NULL && p->stopEvent(g) == 0);
    chan_v5(p, ctx, g, 500, 510);
    chan_v5(p, ctx, g, 501, 0); /* its second channel never stops */
    CHECK(p->finalize(ctx) == 0);
    pb_prof_head_t hd;
    pb_prof_rec_t r[4];
    size_t n = read_file(0x9a, 2, 0, &hd, r, 4);
    CHECK(n == 2 && r[0].seq == 0 && r[0].nkch == 2 && r[0].g0 == 300 && r[0].g1 == 400);
    CHECK(n == 2 && r[1].kind == PB_PROF_REC_END && r[1].seq == 1 && r[1].count == 1);
    use_dir(NULL);
}

/* Issue 49 follow-up: the device reaches the header.  Each thread of a
 * multi-GPU process sets its device, then NCCL initialises its
 * communicators on it (src/init.cc: cudaSetDevice(comm->cudaDev), then
 * the plugin's init).  With fake_cuda.c loaded as the driver: rank 0 of
 * communicator 0xd1 initialised on a thread whose device is 1, rank 1 on
 * one whose device is 0 (the device is the thread's, not the rank), the
 * main thread with device 3 (communicator 0xd2) and with no context
 * current (0xd0: -1, the driver's CUDA_ERROR_INVALID_CONTEXT).  Before
 * the fix the header had no device: its bytes, padding, read 0. */
typedef struct init_arg {
    const pb_nccl_profiler_v5_t *p;
    void (*set_device)(int);
    int device, rank;
    void *ctx;
} init_arg_t;

static void *init_on_device(void *arg)
{
    init_arg_t *a = arg;
    int mask = 0;
    a->set_device(a->device);
    if (a->p->init(&a->ctx, 0xd1, &mask, "tp", 1, 2, a->rank, logger) != 0)
        a->ctx = NULL;
    return NULL;
}

static void test_device(void *lib)
{
    use_dir("device");
    const pb_nccl_profiler_v5_t *p = sym(lib, "ncclProfiler_v5");
    void *cuda = dlopen(PB_FAKE_CUDA_SO, RTLD_NOW | RTLD_LOCAL);
    CHECK(cuda != NULL);
    void (*set_device)(int) = NULL;
    void *f = cuda ? sym(cuda, "pb_fake_cuda_set_device") : NULL;
    memcpy(&set_device, &f, sizeof f); /* POSIX: a dlsym result is callable */
    if (set_device == NULL) {
        use_dir(NULL);
        return;
    }
    void *c0 = NULL, *c2 = NULL;
    int mask = 0;
    CHECK(p->init(&c0, 0xd0, &mask, "x", 1, 1, 0, logger) == 0 && c0 != NULL);
    set_device(3);
    CHECK(p->init(&c2, 0xd2, &mask, "y", 1, 1, 0, logger) == 0 && c2 != NULL);
    set_device(-1);
    init_arg_t a[2] = {{p, set_device, 1, 0, NULL}, {p, set_device, 0, 1, NULL}};
    pthread_t t[2];
    for (int r = 0; r < 2; r++)
        CHECK(pthread_create(&t[r], NULL, init_on_device, &a[r]) == 0);
    for (int r = 0; r < 2; r++)
        CHECK(pthread_join(t[r], NULL) == 0 && a[r].ctx != NULL);
    CHECK(p->finalize(c0) == 0 && p->finalize(c2) == 0);
    for (int r = 0; r < 2; r++)
        CHECK(a[r].ctx == NULL || p->finalize(a[r].ctx) == 0);
    pb_prof_head_t hd;
    pb_prof_rec_t rec[2];
    read_file(0xd0, 0, 0, &hd, rec, 2);
    CHECK(hd.version == 3 && hd.device == -1);
    read_file(0xd2, 0, 0, &hd, rec, 2);
    CHECK(hd.device == 3);
    for (int r = 0; r < 2; r++) {
        read_file(0xd1, r, 0, &hd, rec, 2);
        CHECK(hd.rank == r && hd.device == 1 - r);
    }
    CHECK(dlclose(cuda) == 0);
    use_dir(NULL);
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
    cur = dir;
    setenv("PARBENCH_PROFILE_DIR", dir, 1);
    unsetenv("PARBENCH_PROFILE_SIGNAL");
    test_signal_after_unload(); /* first: this process has not loaded the library yet */
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
    test_names(lib);
    test_v3_late_channels(lib);
    test_pause(lib);
    test_device(lib); /* last: it loads a CUDA driver's stand-in */
    dlclose(lib);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    PB_TEST_END("unit_prof_plugin");
}
