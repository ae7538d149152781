#include "pb_prof_ctx.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pb_prof_dev.h"

#define DRAIN_BATCH 256
#define WRITER_PERIOD_NS 20000000L /* 20 ms: a ring of 4096 holds 200 k ops/s */
#define NAME_TRIES 1000 /* names tried (-1, -2, ...) before the file counts as unopenable */

uint64_t pb_prof_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void pb_prof_ctx_fail(pb_prof_ctx_t *c, const char *what, int err)
{
    atomic_store(&c->active, 0);
    if (atomic_exchange(&c->failed_logged, 1))
        return;
    if (c->log)
        c->log(PB_NCCL_LOG_WARN, PB_NCCL_PROFILE_SUBSYS, __FILE__, __LINE__,
               "parbench profiler: %s %s: %s; profiling of this communicator is off", what,
               c->path, strerror(err));
    else
        fprintf(stderr, "parbench profiler: %s %s: %s; profiling of this communicator is off\n",
                what, c->path, strerror(err));
}

static long env_long(const char *name, long def, long lo, long hi)
{
    const char *s = getenv(name);
    char *end = NULL;
    long v = s ? strtol(s, &end, 10) : def;
    return s && (end == s || *end != '\0' || v < lo || v > hi) ? def : v;
}

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

pb_prof_ring_t *pb_prof_ctx_ring(pb_prof_ctx_t *c)
{
    pb_prof_ring_t *r = pthread_getspecific(c->key);
    if (r != NULL)
        return r;
    int i = atomic_fetch_add(&c->nrings, 1);
    if (i >= PB_PROF_THREADS) {
        atomic_store(&c->nrings, PB_PROF_THREADS);
        return NULL;
    }
    r = pb_prof_ring_new(c->ring_cap);
    /* published before the writer can see nrings count it: a NULL ring
     * (out of memory) is skipped by the writer */
    atomic_store(&c->ring[i], r);
    if (r != NULL)
        pthread_setspecific(c->key, r);
    return r;
}

int pb_prof_ctx_drain(pb_prof_ctx_t *c)
{
    pb_prof_rec_t buf[DRAIN_BATCH];
    int n = atomic_load(&c->nrings);
    for (int i = 0; i < n && i < PB_PROF_THREADS; i++) {
        pb_prof_ring_t *r = atomic_load(&c->ring[i]);
        size_t k;
        while (r != NULL && (k = pb_prof_ring_pop(r, buf, DRAIN_BATCH)) > 0) {
            if (c->fd < 0 || !atomic_load(&c->active))
                continue; /* off: records are dropped, rings kept from filling */
            if (write_all(c->fd, buf, k * sizeof buf[0]) != 0) {
                pb_prof_ctx_fail(c, "writing", errno ? errno : EIO);
                continue;
            }
            c->written += k;
        }
    }
    return atomic_load(&c->active) ? 0 : -1;
}

static void *writer_main(void *arg)
{
    pb_prof_ctx_t *c = arg;
    while (!atomic_load(&c->stop)) {
        struct timespec ts = {0, WRITER_PERIOD_NS};
        nanosleep(&ts, NULL);
        pb_prof_ctx_drain(c);
    }
    return NULL;
}

/* The file, DIR/parbench-prof-HOST-PID-COMMID-rRANK.bin, and its header.
 * Created, never truncated: one process can hold one communicator's id
 * twice (the ranks of a single-process multi-GPU job share NCCL's
 * commHash; every API v3 context has id 0 and no rank at open), and a
 * restarted job can meet its own pid again (containers), so a name that
 * is taken is passed over for the next (pb_prof_rec.h) - O_EXCL makes
 * the choice safe between threads and processes alike. */
static int open_file(pb_prof_ctx_t *c)
{
    const char *dir = getenv("PARBENCH_PROFILE_DIR");
    dir = dir && *dir ? dir : "parbench-profile";
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(c->path, sizeof c->path, "%s", dir);
        pb_prof_ctx_fail(c, "creating", errno);
        return -1;
    }
    for (int k = 0; k < NAME_TRIES; k++) {
        int n = pb_prof_path_rank(c->path, sizeof c->path, dir, c->head.host, (int)c->head.pid,
                                  c->head.comm_id, c->head.rank, k);
        if (n < 0 || (size_t)n >= sizeof c->path) {
            pb_prof_ctx_fail(c, "naming a file in", ENAMETOOLONG);
            return -1;
        }
        c->fd = open(c->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (c->fd >= 0 || errno != EEXIST)
            break; /* made, or a failure another name would not mend */
    }
    if (c->fd < 0 || write_all(c->fd, &c->head, sizeof c->head) != 0) {
        pb_prof_ctx_fail(c, "opening", errno);
        return -1;
    }
    return 0;
}

/* The first of the launchers' variables that is set and a whole number
 * >= 0; -1 when none is. */
static int32_t env_first(const char *const *names)
{
    for (; *names; names++) {
        const char *v = getenv(*names);
        char *end;
        if (v == NULL || *v == '\0')
            continue;
        long x = strtol(v, &end, 10);
        if (*end == '\0' && x >= 0 && x <= INT32_MAX)
            return (int32_t)x;
    }
    return -1;
}

static void fill_head(pb_prof_ctx_t *c, int api, uint64_t comm_id, const char *name, int nnodes,
                      int nranks, int rank)
{
    pb_prof_head_t *h = &c->head;
    memcpy(h->magic, PB_PROF_MAGIC, sizeof h->magic);
    h->version = PB_PROF_VERSION;
    h->rec_size = sizeof(pb_prof_rec_t);
    h->comm_id = comm_id;
    h->nranks = nranks;
    h->nnodes = nnodes;
    h->rank = rank;
    h->pid = (int32_t)getpid();
    h->api = api;
    h->every = c->every;
    h->t0_ns = pb_prof_now();
    static const char *const rank_vars[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                            "SLURM_PROCID", "PMI_RANK", NULL};
    static const char *const size_vars[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE",
                                            "SLURM_NTASKS", "PMI_SIZE", NULL};
    h->world_rank = env_first(rank_vars);
    h->world_size = env_first(size_vars);
    /* init runs on the thread NCCL set to the communicator's device */
    h->device = pb_prof_cuda_device();
    snprintf(h->comm_name, sizeof h->comm_name, "%s", name ? name : "");
    if (gethostname(h->host, sizeof h->host - 1) != 0)
        snprintf(h->host, sizeof h->host, "unknown");
}

pb_prof_ctx_t *pb_prof_ctx_open(int api, uint64_t comm_id, const char *name, int nnodes,
                                int nranks, int rank, pb_nccl_logger_t log,
                                const _Atomic int *paused)
{
    pb_prof_ctx_t *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->fd = -1;
    c->log = log;
    c->paused = paused;
    c->every = (uint32_t)env_long("PARBENCH_PROFILE_EVERY", 1, 1, 1L << 30);
    c->ring_cap = (size_t)env_long("PARBENCH_PROFILE_RING", 4096, 2, 1L << 24);
    atomic_init(&c->active, 1);
    atomic_init(&c->op_rank, -1);
    fill_head(c, api, comm_id, name, nnodes, nranks, rank);
    /* sizeof *c->slot is a multiple of the alignment (_Alignas), as
     * aligned_alloc asks */
    c->slot = aligned_alloc(PB_PROF_OP_ALIGN, PB_PROF_SLOTS * sizeof *c->slot);
    if (c->slot != NULL)
        memset(c->slot, 0, PB_PROF_SLOTS * sizeof *c->slot);
    if (c->slot == NULL || pthread_key_create(&c->key, NULL) != 0) {
        free(c->slot);
        free(c);
        return NULL;
    }
    if (open_file(c) != 0 || pthread_create(&c->writer, NULL, writer_main, c) != 0) {
        if (c->fd >= 0)
            close(c->fd);
        pthread_key_delete(c->key);
        free(c->slot);
        free(c);
        return NULL;
    }
    c->writer_up = 1;
    return c;
}

void pb_prof_ctx_close(pb_prof_ctx_t *c)
{
    if (c == NULL)
        return;
    atomic_store(&c->stop, 1);
    if (c->writer_up)
        pthread_join(c->writer, NULL);
    pb_prof_ctx_drain(c);
    uint64_t dropped = atomic_load(&c->slot_full) + atomic_load(&c->no_ring);
    /* NCCL finalizes a communicator after its last event: what still
     * holds a slot now never completes (a channel never stopped) */
    for (size_t i = 0; i < PB_PROF_SLOTS; i++)
        dropped += atomic_load(&c->slot[i].used) != 0;
    int n = atomic_load(&c->nrings);
    for (int i = 0; i < n && i < PB_PROF_THREADS; i++) {
        pb_prof_ring_t *r = atomic_load(&c->ring[i]);
        dropped += r ? atomic_load(&r->dropped) : 0;
    }
    pb_prof_rec_t end;
    memset(&end, 0, sizeof end);
    end.kind = PB_PROF_REC_END;
    end.seq = c->written;
    end.count = dropped;
    end.t_enq0 = pb_prof_now();
    if (c->fd >= 0 && atomic_load(&c->active) && write_all(c->fd, &end, sizeof end) != 0)
        pb_prof_ctx_fail(c, "writing", errno ? errno : EIO);
    /* the header again: API v3 names the communicator and this rank
     * only in its operations, known now */
    if (c->head.rank < 0 && atomic_load(&c->comm_set))
        c->head.rank = atomic_load(&c->op_rank);
    if (c->fd >= 0 && atomic_load(&c->active) &&
        pwrite(c->fd, &c->head, sizeof c->head, 0) != (ssize_t)sizeof c->head)
        pb_prof_ctx_fail(c, "writing", errno ? errno : EIO);
    if (c->fd >= 0)
        close(c->fd);
    for (int i = 0; i < n && i < PB_PROF_THREADS; i++)
        pb_prof_ring_free(atomic_load(&c->ring[i]));
    pthread_key_delete(c->key);
    free(c->slot);
    free(c);
}
