/* test_prof_stress.c - the NCCL profiler plugin under load, as issue 49's
 * acceptance asks: "several threads and communicators, pause and resume,
 * finalize and unload".  Three rounds, one per API version NCCL may load
 * (v5, v4, v3), each of which:
 *  - dlopens the built libnccl-profiler-parbench.so;
 *  - runs THREADS application threads; each opens a context of every one
 *    of COMMS communicators (its rank: its thread number; the ranks of a
 *    communicator share its id, as in a single-process multi-GPU job),
 *    all threads at once, and issues OPS operations on each;
 *  - runs PROXIES proxy threads that start and stop every operation's
 *    kernel channels as NCCL's proxy thread does, before or after the
 *    operation's stop as the threads happen to meet; an operation with
 *    no channel count gets one channel all the same;
 *  - has application thread 0 switch recording off and on with the
 *    PARBENCH_PROFILE_SIGNAL signal every PAUSE_EVERY operations;
 *  - once recording is on again for good (a barrier), has each context's
 *    last operation keep a channel that never stops: a job ending with it
 *    in flight (v4, v5: it must be counted as dropped, not recorded);
 *  - finalizes every context (each thread its own, while the others still
 *    run) and dlcloses the library.
 * Then the files: one per context, none lost, each ending with its end
 * record; every operation the plugin took (a handle back) is in a file
 * exactly once or counted in an end record's dropped operations, and no
 * operation it refused (paused) is in any.  Rings of RING records make
 * drops likely; which operations are paused or dropped depends on how the
 * threads interleave, but those counts hold exactly whatever it is, so
 * nothing here waits for time or asserts it.  Each thread keeps at most
 * MAX_INFLIGHT operations waiting for the proxies (a condition variable),
 * so a context never has 64 slots in a row busy: an operation is never
 * refused for want of a slot, which the test could not tell from a pause.
 *
 * Part of the plain ctest run (and so of CI's ASan stage); CI runs it
 * under ThreadSanitizer too (.ci/run). */
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profiler/pb_prof_api.h"
#include "profiler/pb_prof_rec.h"
#include "pb_test.h"

#define THREADS 4
#define COMMS 3
#define OPS 500
#define PROXIES 2
#define PAUSE_EVERY 25
#define MAX_INFLIGHT 8
#define RING "64"
#define NCTX (THREADS * COMMS)
#define OP_ID(ctx, i) ((uint64_t)(ctx) * 1000000 + (uint64_t)(i) + 1) /* never 0 */
#define COMM_ID(c) (0xc0 + (uint64_t)(c))
/* operation i runs on i % 4 channels: the last must wait for some */
_Static_assert((OPS - 1) % 4 != 0, "the last operation has a channel count");

/* One loaded library: the version NCCL would use, and its table. */
typedef struct {
    int api;
    const void *tab;
} plug_t;

/* A proxy's work: the kernel channels of one operation. */
typedef struct item {
    struct item *next;
    void *ctx, *parent;
    int nch, last; /* last: its final channel never stops */
    struct worker *owner;
} item_t;

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    item_t *head, *tail;
    int closed;
    plug_t pl;
} queue_t;

typedef struct worker {
    int t;
    queue_t *q;
    pthread_barrier_t *bar;         /* the last operations wait for recording on */
    plug_t pl;
    void *ctx[COMMS];
    unsigned char taken[COMMS][OPS]; /* 1: the plugin gave a handle */
    int inflight;                    /* items the proxies have not done (q->mu) */
    int raised;
    int failed_init;
} worker_t;

static void *op_start(const plug_t *pl, void *ctx, uint64_t id, int nch, int p2p)
{
    void *h = NULL;
    const char *f = p2p ? "Send" : "AllReduce";
    if (pl->api == 5) {
        const pb_nccl_profiler_v5_t *p = pl->tab;
        pb_nccl_descr_v5_t d;
        memset(&d, 0, sizeof d);
        d.type = p2p ? PB_NCCL_PROF_P2P : PB_NCCL_PROF_COLL;
        if (p2p)
            d.p2p.func = f, d.p2p.count = id, d.p2p.peer = 1000, d.p2p.nChannels = (uint8_t)nch;
        else
            d.coll.func = f, d.coll.count = id, d.coll.seqNumber = id, d.coll.nChannels = (uint8_t)nch;
        CHECK(p->startEvent(ctx, &h, &d) == 0);
    } else if (pl->api == 4) {
        const pb_nccl_profiler_v4_t *p = pl->tab;
        pb_nccl_descr_v4_t d;
        memset(&d, 0, sizeof d);
        d.type = p2p ? PB_NCCL_PROF_P2P : PB_NCCL_PROF_COLL;
        if (p2p)
            d.p2p.func = f, d.p2p.count = id, d.p2p.peer = 1000, d.p2p.nChannels = (uint8_t)nch;
        else
            d.coll.func = f, d.coll.count = id, d.coll.seqNumber = id, d.coll.nChannels = (uint8_t)nch;
        CHECK(p->startEvent(ctx, &h, &d) == 0);
    } else {
        const pb_nccl_profiler_v3_t *p = pl->tab;
        pb_nccl_descr_v3_t d;
        memset(&d, 0, sizeof d);
        d.type = p2p ? PB_NCCL_PROF_P2P : PB_NCCL_PROF_COLL;
        /* v3: the communicator comes with the operation; its id is the
         * count's ctx part's communicator (see run_worker) */
        uint64_t comm = COMM_ID((id / 1000000) % COMMS);
        if (p2p)
            d.p2p.func = f, d.p2p.count = id, d.p2p.peer = 1000, d.p2p.commHash = comm;
        else
            d.coll.func = f, d.coll.count = id, d.coll.seqNumber = id, d.coll.commHash = comm;
        CHECK(p->startEvent(ctx, &h, &d) == 0);
    }
    return h;
}

/* A kernel channel of `parent` (NULL: an operation not recorded, as NCCL
 * still reports it), started and, unless `keep`, stopped. */
static void channel(const plug_t *pl, void *ctx, void *parent, uint64_t t, int keep)
{
    void *h = NULL;
    if (pl->api == 3) {
        const pb_nccl_profiler_v3_t *p = pl->tab;
        pb_nccl_descr_v3_t d;
        memset(&d, 0, sizeof d);
        d.type = PB_NCCL_PROF_KERNEL_CH, d.parentObj = parent;
        CHECK(p->startEvent(ctx, &h, &d) == 0);
        CHECK(keep || p->stopEvent(h) == 0);
        return;
    }
    /* v4 and v5 lay out the channel descriptor's fields alike up to the
     * union, but type's width differs: one descriptor each */
    pb_nccl_state_args_v4_t a;
    a.kernelCh.pTimer = t + 7;
    if (pl->api == 5) {
        const pb_nccl_profiler_v5_t *p = pl->tab;
        pb_nccl_descr_v5_t d;
        memset(&d, 0, sizeof d);
        d.type = PB_NCCL_PROF_KERNEL_CH, d.parentObj = parent, d.kernelCh.pTimer = t;
        CHECK(p->startEvent(ctx, &h, &d) == 0);
        CHECK(keep || (p->recordEventState(h, PB_NCCL_PROF_KERNEL_CH_STOP, &a) == 0 &&
                       p->stopEvent(h) == 0));
    } else {
        const pb_nccl_profiler_v4_t *p = pl->tab;
        pb_nccl_descr_v4_t d;
        memset(&d, 0, sizeof d);
        d.type = PB_NCCL_PROF_KERNEL_CH, d.parentObj = parent, d.kernelCh.pTimer = t;
        CHECK(p->startEvent(ctx, &h, &d) == 0);
        CHECK(keep || (p->recordEventState(h, PB_NCCL_PROF_KERNEL_CH_STOP, &a) == 0 &&
                       p->stopEvent(h) == 0));
    }
}

/* The three tables put stopEvent and finalize in the same places, but
 * each is its own type: called through the one it is. */
static int ev_stop(const plug_t *pl, void *h)
{
    return pl->api == 5   ? ((const pb_nccl_profiler_v5_t *)pl->tab)->stopEvent(h)
           : pl->api == 4 ? ((const pb_nccl_profiler_v4_t *)pl->tab)->stopEvent(h)
                          : ((const pb_nccl_profiler_v3_t *)pl->tab)->stopEvent(h);
}

static int ctx_init(const plug_t *pl, void **ctx, int c, int rank)
{
    int mask = 0;
    if (pl->api == 5)
        return ((const pb_nccl_profiler_v5_t *)pl->tab)
            ->init(ctx, COMM_ID(c), &mask, "stress", 1, THREADS, rank, NULL);
    if (pl->api == 4)
        return ((const pb_nccl_profiler_v4_t *)pl->tab)
            ->init(ctx, &mask, "stress", COMM_ID(c), 1, THREADS, rank, NULL);
    return ((const pb_nccl_profiler_v3_t *)pl->tab)->init(ctx, &mask);
}

static int ctx_fin(const plug_t *pl, void *ctx)
{
    return pl->api == 5   ? ((const pb_nccl_profiler_v5_t *)pl->tab)->finalize(ctx)
           : pl->api == 4 ? ((const pb_nccl_profiler_v4_t *)pl->tab)->finalize(ctx)
                          : ((const pb_nccl_profiler_v3_t *)pl->tab)->finalize(ctx);
}

static void *proxy_main(void *arg)
{
    queue_t *q = arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (q->head == NULL && !q->closed)
            pthread_cond_wait(&q->cv, &q->mu);
        item_t *it = q->head;
        if (it == NULL)
            break;
        q->head = it->next;
        q->tail = q->head ? q->tail : NULL;
        pthread_mutex_unlock(&q->mu);
        for (int k = 0; k < it->nch; k++)
            channel(&q->pl, it->ctx, it->parent, 100 + (uint64_t)k, it->last && k == it->nch - 1);
        pthread_mutex_lock(&q->mu);
        it->owner->inflight--;
        pthread_cond_broadcast(&q->cv);
        free(it);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

/* Hands an operation's channels to the proxies, once this thread has
 * fewer than MAX_INFLIGHT waiting. */
static void push(worker_t *w, void *ctx, void *parent, int nch, int last)
{
    item_t *it = calloc(1, sizeof *it);
    CHECK(it != NULL);
    if (it == NULL)
        return;
    it->ctx = ctx, it->parent = parent, it->nch = nch, it->last = last, it->owner = w;
    queue_t *q = w->q;
    pthread_mutex_lock(&q->mu);
    while (w->inflight >= MAX_INFLIGHT)
        pthread_cond_wait(&q->cv, &q->mu);
    w->inflight++;
    if (q->tail)
        q->tail->next = it;
    else
        q->head = it;
    q->tail = it;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

/* One application thread: its contexts, its operations, their end. */
static void *worker_main(void *arg)
{
    worker_t *w = arg;
    for (int c = 0; c < COMMS; c++)
        if (ctx_init(&w->pl, &w->ctx[c], c, w->t) != 0 || w->ctx[c] == NULL)
            w->failed_init++;
    for (int i = 0; i < OPS; i++) {
        if (i == OPS - 1) {
            if (w->raised % 2) { /* recording on, for the last operations and the next round */
                CHECK(raise(SIGUSR1) == 0); /* the handler runs before raise returns */
                w->raised++;
            }
            int b = pthread_barrier_wait(w->bar);
            CHECK(b == 0 || b == PTHREAD_BARRIER_SERIAL_THREAD);
        }
        for (int c = 0; c < COMMS && !w->failed_init; c++) {
            int ctx = w->t * COMMS + c, nch = i % 4, last = i == OPS - 1;
            void *h = op_start(&w->pl, w->ctx[c], OP_ID(ctx, i), nch, i % 5 == 4);
            w->taken[c][i] = h != NULL;
            /* no channel count (v3, or 0): NCCL may still report one */
            push(w, w->ctx[c], h, w->pl.api == 3 ? 2 : nch ? nch : 1, last);
            CHECK(ev_stop(&w->pl, h) == 0);
        }
        if (w->t == 0 && i < OPS - 1 && i % PAUSE_EVERY == PAUSE_EVERY - 1) {
            CHECK(raise(SIGUSR1) == 0);
            w->raised++;
        }
    }
    pthread_mutex_lock(&w->q->mu);
    while (w->inflight > 0)
        pthread_cond_wait(&w->q->cv, &w->q->mu);
    pthread_mutex_unlock(&w->q->mu);
    for (int c = 0; c < COMMS; c++)
        CHECK(w->ctx[c] == NULL || ctx_fin(&w->pl, w->ctx[c]) == 0);
    return NULL;
}

/* What the files of one round hold, against what the threads were told. */
typedef struct {
    unsigned char seen[NCTX][OPS];
    int files[NCTX];
    uint64_t rec[NCTX], drop[NCTX]; /* v4, v5: per context (its header names it) */
    uint64_t all_rec, all_drop;
    int nfiles;
} tally_t;

/* The context an operation's id names (OP_ID), and its index; -1 if none. */
static int id_ctx(uint64_t id, int *i)
{
    uint64_t ctx = id / 1000000, k = id % 1000000;
    if (ctx >= NCTX || k < 1 || k > OPS)
        return -1;
    *i = (int)k - 1;
    return (int)ctx;
}

/* The context a v4 or v5 file's header names (its communicator and
 * rank); -1 for v3, whose header names no rank. */
static int head_ctx(const pb_prof_head_t *h, int api)
{
    if (api == 3 || h->rank < 0 || h->rank >= THREADS || h->comm_id < COMM_ID(0) ||
        h->comm_id >= COMM_ID(COMMS))
        return -1;
    return h->rank * COMMS + (int)(h->comm_id - COMM_ID(0));
}

/* One file's records, each an operation taken and seen once. */
static void check_records(const worker_t *w, int api, const pb_prof_head_t *h,
                          const pb_prof_rec_t *r, size_t n, tally_t *t)
{
    int file_ctx = head_ctx(h, api);
    CHECK(api == 3 || file_ctx >= 0);
    for (size_t k = 0; k < n; k++) {
        int i = -1, ctx = id_ctx(r[k].count, &i);
        CHECK(ctx >= 0 && (r[k].kind == PB_PROF_REC_COLL || r[k].kind == PB_PROF_REC_P2P));
        if (ctx < 0)
            continue;
        if (file_ctx < 0) /* v3: the file's context is its first record's */
            file_ctx = ctx;
        CHECK(ctx == file_ctx); /* one context's operations only */
        CHECK(h->comm_id == COMM_ID(ctx % COMMS));
        CHECK(w[ctx / COMMS].taken[ctx % COMMS][i]); /* never one refused */
        CHECK(t->seen[ctx][i]++ == 0);               /* never twice */
    }
}

static void check_file(const char *path, const worker_t *w, int api, tally_t *t)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    pb_prof_head_t h;
    size_t cap = (size_t)OPS + 2, n = 0;
    pb_prof_rec_t *r = calloc(cap, sizeof *r);
    CHECK(r != NULL && fread(&h, sizeof h, 1, f) == 1);
    if (r != NULL)
        n = fread(r, sizeof *r, cap, f);
    fclose(f);
    CHECK(memcmp(h.magic, PB_PROF_MAGIC, 8) == 0 && h.api == api && h.rec_size == sizeof *r);
    /* the end record last, counting the records before it */
    CHECK(n >= 1 && n <= (size_t)OPS + 1 && r[n - 1].kind == PB_PROF_REC_END);
    if (n >= 1 && n <= (size_t)OPS + 1 && r[n - 1].kind == PB_PROF_REC_END) {
        CHECK(r[n - 1].seq == n - 1);
        check_records(w, api, &h, r, n - 1, t);
        int ctx = head_ctx(&h, api);
        if (ctx >= 0) {
            t->files[ctx]++;
            t->rec[ctx] += n - 1;
            t->drop[ctx] += r[n - 1].count;
        }
        t->all_rec += n - 1;
        t->all_drop += r[n - 1].count;
    }
    t->nfiles++;
    free(r);
}

/* Every file of the round in rdir against what the workers were told. */
static void check_round(const char *rdir, const worker_t *w, int api)
{
    tally_t *t = calloc(1, sizeof *t);
    DIR *d = opendir(rdir);
    CHECK(t != NULL && d != NULL);
    if (t == NULL || d == NULL) {
        free(t);
        if (d)
            closedir(d);
        return;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "parbench-prof-", 14) != 0 || len < 4 ||
            strcmp(e->d_name + len - 4, ".bin") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", rdir, e->d_name);
        check_file(path, w, api, t);
    }
    closedir(d);
    uint64_t taken = 0;
    for (int ctx = 0; ctx < NCTX; ctx++) {
        uint64_t n = 0;
        for (int i = 0; i < OPS; i++)
            n += w[ctx / COMMS].taken[ctx % COMMS][i];
        taken += n;
        /* v4, v5: each context's own file accounts for its operations,
         * and its last, in flight at finalize, is dropped, not recorded */
        CHECK(api == 3 || (t->files[ctx] == 1 && t->rec[ctx] + t->drop[ctx] == n));
        CHECK(api == 3 || (w[ctx / COMMS].taken[ctx % COMMS][OPS - 1] &&
                           !t->seen[ctx][OPS - 1] && t->drop[ctx] >= 1));
    }
    CHECK(t->nfiles == NCTX); /* no file lost, none shared */
    CHECK(t->all_rec + t->all_drop == taken);
    printf("v%d: %d files, %llu operations taken: %llu recorded, %llu dropped\n", api, t->nfiles,
           (unsigned long long)taken, (unsigned long long)t->all_rec,
           (unsigned long long)t->all_drop);
    free(t);
}

/* One round: load, run, finalize, unload, check. */
static void run_round(int api, const char *rdir)
{
    void *lib = dlopen(PB_PROFILER_SO, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "dlopen %s: %s\n", PB_PROFILER_SO, dlerror());
        CHECK(lib != NULL);
        return;
    }
    char name[32];
    snprintf(name, sizeof name, "ncclProfiler_v%d", api);
    plug_t pl = {api, dlsym(lib, name)};
    queue_t q = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, 0, pl};
    worker_t *w = calloc(THREADS, sizeof *w);
    pthread_barrier_t bar;
    CHECK(pthread_barrier_init(&bar, NULL, THREADS) == 0);
    CHECK(pl.tab != NULL && w != NULL);
    pthread_t px[PROXIES], wt[THREADS];
    int np = 0, nw = 0;
    for (; pl.tab && w && np < PROXIES; np++)
        if (pthread_create(&px[np], NULL, proxy_main, &q) != 0)
            break;
    for (; pl.tab && w && np == PROXIES && nw < THREADS; nw++) {
        w[nw].t = nw, w[nw].q = &q, w[nw].pl = pl, w[nw].bar = &bar;
        if (pthread_create(&wt[nw], NULL, worker_main, &w[nw]) != 0)
            break;
    }
    CHECK(!pl.tab || !w || (np == PROXIES && nw == THREADS));
    for (int k = 0; k < nw; k++)
        CHECK(pthread_join(wt[k], NULL) == 0 && w[k].failed_init == 0);
    pthread_mutex_lock(&q.mu);
    q.closed = 1;
    pthread_cond_broadcast(&q.cv);
    pthread_mutex_unlock(&q.mu);
    for (int k = 0; k < np; k++)
        CHECK(pthread_join(px[k], NULL) == 0);
    CHECK(pthread_barrier_destroy(&bar) == 0);
    CHECK(dlclose(lib) == 0); /* the plugin unloaded, as NCCL unloads it */
    if (w && nw == THREADS)
        check_round(rdir, w, api);
    free(w);
}

int main(void)
{
    char dir[] = "/tmp/pb_prof_stress_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    setenv("PARBENCH_PROFILE_SIGNAL", "USR1", 1);
    setenv("PARBENCH_PROFILE_RING", RING, 1);
    unsetenv("PARBENCH_PROFILE_EVERY");
    static const int apis[] = {5, 4, 3};
    for (size_t k = 0; k < sizeof apis / sizeof apis[0]; k++) {
        char rdir[256];
        snprintf(rdir, sizeof rdir, "%s/v%d", dir, apis[k]);
        CHECK(mkdir(rdir, 0777) == 0);
        setenv("PARBENCH_PROFILE_DIR", rdir, 1);
        run_round(apis[k], rdir);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    PB_TEST_END("unit_prof_stress");
}
