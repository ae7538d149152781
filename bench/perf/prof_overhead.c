/* prof_overhead.c PLUGIN_SO [OPS] [THREADS] [RATE] - what parbench's NCCL
 * profiler plugin costs the thread NCCL calls it on.
 *
 * The plugin is dlopen'ed and driven through its ncclProfiler_v5 as NCCL
 * 2.28 drives it for one all-reduce on two channels: the operation's
 * start and stop (the enqueue path, on the thread that calls
 * ncclAllReduce), then per channel a start, a KernelChStop state and a
 * stop (the proxy thread's path): 8 calls per operation.  OPS operations
 * (default 1,000,000) per thread on THREADS threads (default 1) at once,
 * timed on CLOCK_MONOTONIC, 5 repetitions; printed: the median ns per
 * call and per operation, and the records the writer thread put in the
 * file against those a full ring dropped.  Flat out (RATE 0, the
 * default) the calls' cost is measured, at millions of operations a
 * second, far past any job's, which no 20 ms writer keeps up with; RATE
 * N paces each thread to N operations a second (a job's rate: a
 * training step issues thousands, not millions), where nothing should
 * drop.  A benchmark (numbers printed), not a test. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../profiler/pb_prof_api.h"
#include "../../profiler/pb_prof_rec.h"

typedef struct job {
    const pb_nccl_profiler_v5_t *p;
    void *ctx;
    long ops;
    double rate; /* operations a second, 0: flat out */
    double secs; /* the time inside the plugin's calls */
} job_t;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *run(void *arg)
{
    job_t *j = arg;
    pb_nccl_descr_v5_t d, k;
    memset(&d, 0, sizeof d);
    memset(&k, 0, sizeof k);
    d.type = PB_NCCL_PROF_COLL, d.coll.func = "AllReduce", d.coll.count = 1 << 20;
    d.coll.datatype = "ncclBfloat16", d.coll.nChannels = 2, d.coll.algo = "RING";
    d.coll.proto = "SIMPLE";
    k.type = PB_NCCL_PROF_KERNEL_CH;
    pb_nccl_state_args_v5_t a;
    double t0 = now(), in_calls = 0.0;
    for (long i = 0; i < j->ops; i++) {
        void *op = NULL, *ch[2];
        while (j->rate > 0.0 && now() < t0 + (double)i / j->rate)
            ; /* paced: wait for this operation's turn, outside the timing */
        double c0 = j->rate > 0.0 ? now() : 0.0;
        d.coll.seqNumber = (uint64_t)i;
        j->p->startEvent(j->ctx, &op, &d);
        j->p->stopEvent(op);
        k.parentObj = op;
        for (int c = 0; c < 2; c++) {
            k.kernelCh.pTimer = (uint64_t)i;
            j->p->startEvent(j->ctx, &ch[c], &k);
        }
        for (int c = 0; c < 2; c++) {
            a.kernelCh.pTimer = (uint64_t)i + 1;
            j->p->recordEventState(ch[c], PB_NCCL_PROF_KERNEL_CH_STOP, &a);
            j->p->stopEvent(ch[c]);
        }
        if (j->rate > 0.0)
            in_calls += now() - c0;
    }
    j->secs = j->rate > 0.0 ? in_calls : now() - t0;
    return NULL;
}

/* The closing record of communicator `id`'s file in dir (its rank 0,
 * as init below says): records written (seq) and dropped (count). */
static void end_counts(const char *dir, uint64_t id, uint64_t *written, uint64_t *dropped)
{
    char path[512], host[64] = "";
    gethostname(host, sizeof host - 1);
    pb_prof_path_rank(path, sizeof path, dir, host, (int)getpid(), id, 0, 0);
    FILE *f = fopen(path, "rb");
    pb_prof_rec_t end;
    if (f && fseek(f, -(long)sizeof end, SEEK_END) == 0 && fread(&end, sizeof end, 1, f) == 1 &&
        end.kind == PB_PROF_REC_END) {
        *written += end.seq;
        *dropped += end.count;
    }
    if (f)
        fclose(f);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PLUGIN_SO [OPS] [THREADS]\n", argv[0]);
        return 2;
    }
    long ops = argc > 2 ? atol(argv[2]) : 1000000;
    int nt = argc > 3 ? atoi(argv[3]) : 1;
    double rate = argc > 4 ? atof(argv[4]) : 0.0;
    if (ops < 1 || nt < 1 || nt > 64) {
        fprintf(stderr, "OPS must be >= 1, THREADS 1..64\n");
        return 2;
    }
    char dir[] = "/tmp/pb_prof_bench_XXXXXX";
    if (mkdtemp(dir) == NULL)
        return 1;
    setenv("PARBENCH_PROFILE_DIR", dir, 1);
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    const pb_nccl_profiler_v5_t *p = lib ? dlsym(lib, "ncclProfiler_v5") : NULL;
    if (p == NULL) {
        fprintf(stderr, "cannot load ncclProfiler_v5 from %s: %s\n", argv[1], dlerror());
        return 1;
    }
    double per_call[5];
    uint64_t written = 0, dropped = 0;
    for (int rep = 0; rep < 5; rep++) {
        void *ctx = NULL;
        int mask = 0;
        if (p->init(&ctx, (uint64_t)rep + 1, &mask, "bench", 1, nt, 0, NULL) != 0)
            return 1;
        job_t j[64];
        pthread_t th[64];
        for (int t = 0; t < nt; t++) {
            j[t] = (job_t){p, ctx, ops, rate, 0.0};
            pthread_create(&th[t], NULL, run, &j[t]);
        }
        double worst = 0.0;
        for (int t = 0; t < nt; t++) {
            pthread_join(th[t], NULL);
            worst = j[t].secs > worst ? j[t].secs : worst;
        }
        p->finalize(ctx);
        per_call[rep] = worst / ((double)ops * 8.0) * 1e9;
        end_counts(dir, (uint64_t)rep + 1, &written, &dropped);
    }
    qsort(per_call, 5, sizeof per_call[0], cmp);
    printf("# %ld all-reduces x %d thread%s, 8 plugin calls each (start/stop, 2 channels: "
           "start, KernelChStop, stop), 5 runs, %s\n", ops, nt, nt == 1 ? "" : "s",
           rate > 0.0 ? "paced" : "flat out");
    printf("ns per call: median %.1f (min %.1f, max %.1f); ns per operation: %.1f\n", per_call[2],
           per_call[0], per_call[4], per_call[2] * 8.0);
    printf("records: %llu written, %llu dropped by full rings (%.0f operations a second per "
           "thread; the writer empties the rings every 20 ms)\n",
           (unsigned long long)written, (unsigned long long)dropped,
           rate > 0.0 ? rate : 1e9 / (per_call[2] * 8.0));
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : 1;
}
