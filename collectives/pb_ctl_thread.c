/* The control world of `--gpus N`: N threads of one process (pb_ctl.h).
 *
 * Every exchange is the same two-step dance over a shared table: each
 * rank posts a pointer to its data in its slot, all meet at a barrier,
 * each reads what it needs straight from the others' memory, and all meet
 * again so that nobody's data changes while another still reads it.  The
 * barrier sleeps on a condition variable, so waiting ranks never take a
 * core from the one being timed.  Reductions combine in rank order on
 * every rank, so a floating-point sum is bitwise the same everywhere. */
#include "pb_ctl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/pb_err.h"

struct pb_ctl_shared {
    int size;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t gen;  /* barrier generation */
    int arrived;
    int refs;      /* handles still open */
    const void **ptr; /* per rank: what it contributes to the exchange under way */
    int *ival;        /* per rank: split's color and key */
    pb_ctl_shared_t **made; /* per rank: the sub-world a split leader made */
};

typedef struct thr_ctl {
    pb_ctl_t pub;
    pb_ctl_shared_t *s;
} thr_ctl_t;

static pb_ctl_shared_t *sh(pb_ctl_t *c) { return ((thr_ctl_t *)c)->s; }

pb_ctl_shared_t *pb_ctl_threads_new(int size)
{
    pb_ctl_shared_t *s = calloc(1, sizeof *s);
    if (s == NULL || size < 1)
        return free(s), NULL;
    s->size = size;
    s->refs = size;
    s->ptr = calloc((size_t)size, sizeof *s->ptr);
    s->ival = calloc((size_t)size * 2, sizeof *s->ival);
    s->made = calloc((size_t)size, sizeof *s->made);
    if (s->ptr == NULL || s->ival == NULL || s->made == NULL ||
        pthread_mutex_init(&s->mu, NULL) != 0) {
        free(s->ptr), free(s->ival), free(s->made), free(s);
        return NULL;
    }
    if (pthread_cond_init(&s->cv, NULL) != 0) {
        pthread_mutex_destroy(&s->mu);
        free(s->ptr), free(s->ival), free(s->made), free(s);
        return NULL;
    }
    return s;
}

void pb_ctl_threads_drop(pb_ctl_shared_t *s)
{
    if (s == NULL)
        return;
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s->ptr);
    free(s->ival);
    free(s->made);
    free(s);
}

static int meet(pb_ctl_t *c)
{
    pb_ctl_shared_t *s = sh(c);
    pthread_mutex_lock(&s->mu);
    uint64_t gen = s->gen;
    if (++s->arrived == s->size) {
        s->arrived = 0;
        s->gen++;
        pthread_cond_broadcast(&s->cv);
    } else {
        while (s->gen == gen)
            pthread_cond_wait(&s->cv, &s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    return PB_OK;
}

static size_t elt_size(pb_ctl_type_t t)
{
    return t == PB_CTL_INT ? sizeof(int) : t == PB_CTL_BYTE ? 1 : 8;
}

#define COMBINE(T, A, B, OP)                                                                   \
    do {                                                                                       \
        T *a_ = (T *)(A);                                                                      \
        const T *b_ = (const T *)(B);                                                          \
        for (uint64_t i_ = 0; i_ < n; i_++)                                                    \
            a_[i_] = OP == PB_CTL_SUM ? a_[i_] + b_[i_]                                        \
                     : OP == PB_CTL_MAX ? (b_[i_] > a_[i_] ? b_[i_] : a_[i_])                  \
                                        : (b_[i_] < a_[i_] ? b_[i_] : a_[i_]);                 \
    } while (0)

static void combine(void *acc, const void *in, uint64_t n, pb_ctl_type_t t, pb_ctl_op_t op)
{
    if (t == PB_CTL_BYTE) {
        unsigned char *a = acc;
        const unsigned char *b = in;
        for (uint64_t i = 0; i < n; i++)
            a[i] = op == PB_CTL_BOR ? (unsigned char)(a[i] | b[i]) : a[i];
    } else if (t == PB_CTL_INT) {
        COMBINE(int, acc, in, op);
    } else if (t == PB_CTL_I64) {
        COMBINE(int64_t, acc, in, op);
    } else {
        COMBINE(double, acc, in, op);
    }
}

/* What one reduction folds: n elements of type t under op, or (loc) n
 * value-rank pairs under MAXLOC's rule. */
typedef struct fold {
    uint64_t n;
    pb_ctl_type_t t;
    pb_ctl_op_t op;
    int loc;
} fold_t;

static void fold_in(void *acc, const void *in, const fold_t *f)
{
    if (!f->loc) {
        combine(acc, in, f->n, f->t, f->op);
        return;
    }
    pb_ctl_loc_t *a = acc;
    const pb_ctl_loc_t *b = in;
    for (uint64_t i = 0; i < f->n; i++)
        if (b[i].v > a[i].v || (b[i].v == a[i].v && b[i].rank < a[i].rank))
            a[i] = b[i];
}

/* Every rank folds all contributions in rank order into its own copy,
 * then (after the second meeting: nobody reads buf any more) takes it. */
static int reduce(pb_ctl_t *c, void *buf, size_t bytes, const fold_t *f)
{
    pb_ctl_shared_t *s = sh(c);
    s->ptr[c->rank] = buf;
    meet(c);
    void *acc = malloc(bytes ? bytes : 1);
    if (acc != NULL) {
        memcpy(acc, s->ptr[0], bytes);
        for (int r = 1; r < s->size; r++)
            fold_in(acc, s->ptr[r], f);
    }
    meet(c);
    if (acc != NULL)
        memcpy(buf, acc, bytes);
    free(acc);
    return acc != NULL ? PB_OK : PB_ERUNTIME;
}

static int thr_allreduce(pb_ctl_t *c, void *buf, uint64_t n, pb_ctl_type_t t, pb_ctl_op_t op)
{
    fold_t f = {n, t, op, 0};
    return reduce(c, buf, (size_t)n * elt_size(t), &f);
}

static int thr_maxloc(pb_ctl_t *c, pb_ctl_loc_t *v, uint64_t n)
{
    fold_t f = {n, PB_CTL_DOUBLE, PB_CTL_MAX, 1};
    return reduce(c, v, (size_t)n * sizeof *v, &f);
}

/* Every rank's `bytes` in rank order into all, on root (-1: on every
 * rank). */
static int collect(pb_ctl_t *c, const void *mine, void *all, uint64_t bytes, int root)
{
    pb_ctl_shared_t *s = sh(c);
    s->ptr[c->rank] = mine;
    meet(c);
    if (root < 0 || c->rank == root)
        for (int r = 0; r < s->size; r++)
            memmove((char *)all + (size_t)r * bytes, s->ptr[r], (size_t)bytes);
    return meet(c);
}

static int thr_allgather(pb_ctl_t *c, const void *mine, void *all, uint64_t bytes)
{
    return collect(c, mine, all, bytes, -1);
}

static int thr_gather(pb_ctl_t *c, const void *mine, void *all, uint64_t bytes, int root)
{
    return collect(c, mine, all, bytes, root);
}

static int thr_gatherv(pb_ctl_t *c, const void *mine, uint64_t bytes, void *all,
                       const uint64_t *counts, const uint64_t *displs, int root)
{
    (void)bytes; /* root's counts say it, as MPI_Gatherv's do */
    pb_ctl_shared_t *s = sh(c);
    s->ptr[c->rank] = mine;
    meet(c);
    if (c->rank == root)
        for (int r = 0; r < s->size; r++)
            memmove((char *)all + displs[r], s->ptr[r], (size_t)counts[r]);
    return meet(c);
}

static int thr_bcast(pb_ctl_t *c, void *buf, uint64_t bytes, int root)
{
    pb_ctl_shared_t *s = sh(c);
    s->ptr[c->rank] = buf;
    meet(c);
    if (c->rank != root)
        memcpy(buf, s->ptr[root], (size_t)bytes);
    return meet(c);
}

static int thr_barrier(pb_ctl_t *c) { return meet(c); }

static void thr_free(pb_ctl_t *c)
{
    pb_ctl_shared_t *s = sh(c);
    pthread_mutex_lock(&s->mu);
    int last = --s->refs == 0;
    pthread_mutex_unlock(&s->mu);
    if (last)
        pb_ctl_threads_drop(s);
    free(c);
}

/* (key, rank) order, as MPI_Comm_split ranks a color's members */
static int before(const int *iv, int a, int b)
{
    return iv[2 * a + 1] < iv[2 * b + 1] || (iv[2 * a + 1] == iv[2 * b + 1] && a < b);
}

static int thr_split(pb_ctl_t *c, int color, int key, pb_ctl_t **out)
{
    pb_ctl_shared_t *s = sh(c);
    *out = NULL;
    s->ival[2 * c->rank] = color < 0 ? -1 : color;
    s->ival[2 * c->rank + 1] = key;
    meet(c);
    int n = 0, idx = 0, leader = -1;
    for (int r = 0; color >= 0 && r < s->size; r++) {
        if (s->ival[2 * r] != color)
            continue;
        n++;
        idx += before(s->ival, r, c->rank);
        if (leader < 0 || before(s->ival, r, leader))
            leader = r;
    }
    if (leader == c->rank)
        s->made[c->rank] = pb_ctl_threads_new(n);
    meet(c);
    int code = PB_OK;
    if (color >= 0) {
        pb_ctl_shared_t *sub = s->made[leader];
        *out = sub ? pb_ctl_threads_join(sub, idx) : NULL;
        code = *out ? PB_OK : PB_ERUNTIME;
    }
    /* agreed, so that a failure on one rank fails the split everywhere */
    int ok = code == PB_OK;
    thr_allreduce(c, &ok, 1, PB_CTL_INT, PB_CTL_MIN);
    if (!ok && *out != NULL) {
        thr_free(*out);
        *out = NULL;
    }
    return ok ? PB_OK : PB_ERUNTIME;
}

static int thr_split_node(pb_ctl_t *c, pb_ctl_t **out)
{
    return thr_split(c, 0, c->rank, out); /* one process: one host */
}

static _Noreturn void thr_abort(pb_ctl_t *c, int code)
{
    (void)c;
    /* as MPI_Abort: every rank ends now, nothing more is written */
    fflush(stderr);
    _exit(code);
}

static void thr_host(const pb_ctl_t *c, char *buf, size_t len)
{
    (void)c;
    char name[256] = "";
    if (gethostname(name, sizeof name - 1) != 0)
        snprintf(name, sizeof name, "localhost");
    snprintf(buf, len, "%s", name);
}

static const pb_ctl_ops_t thread_ctl_ops = {
    "threads", thr_allreduce, thr_maxloc, thr_allgather, thr_gather, thr_gatherv, thr_bcast,
    thr_barrier, thr_split, thr_split_node, thr_free, thr_abort, thr_host,
};

pb_ctl_t *pb_ctl_threads_join(pb_ctl_shared_t *s, int rank)
{
    thr_ctl_t *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->s = s;
    t->pub.ops = &thread_ctl_ops;
    t->pub.rank = rank;
    t->pub.size = s->size;
    return &t->pub;
}
