/* jp_synth.c - synthetic plugin record files (jp_synth.h). */
#include "jp_synth.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profiler/pb_prof_rec.h"

enum { D_TP, D_CP, D_DP, D_PP, D_WORLD, D_N };

typedef struct file {
    pb_prof_head_t head;
    pb_prof_rec_t *rec;
    size_t n, cap;
    uint64_t fseq[8]; /* NCCL's seqNumber counts per function */
} file_t;

typedef struct gen {
    const jp_synth_t *s;
    int world;
    file_t *f; /* [rank * D_N + dim] */
    int64_t t0;
} gen_t;

void jp_synth_defaults(jp_synth_t *s)
{
    memset(s, 0, sizeof *s);
    s->tp = s->cp = s->dp = s->pp = 1;
    s->steps = 2;
    s->micro = 2;
    s->tp_bytes = 8u << 20;
    s->dp_bytes = 64u << 20;
    s->pp_bytes = 4u << 20;
    s->straggler = -1;
    s->api = 5;
    s->loss_bytes = 4096; /* 1 x 1024 tokens x 4 B */
    s->per_proc = 1;
}

/* Stride and size of dimension d's groups in Megatron order. */
static void dim_shape(const gen_t *g, int d, int *stride, int *size)
{
    const jp_synth_t *s = g->s;
    int st[D_N] = {1, s->tp, s->tp * s->cp, s->tp * s->cp * s->dp, 1};
    int sz[D_N] = {s->tp, s->cp, s->dp, s->pp, g->world};
    *stride = st[d];
    *size = sz[d];
}

/* Rank r's place in its group of dimension d, and the group's first rank. */
static int group_rank(const gen_t *g, int d, int r, int *first)
{
    int stride, size;
    dim_shape(g, d, &stride, &size);
    int gr = (r / stride) % size;
    *first = r - gr * stride;
    return gr;
}

static int64_t lateness(const gen_t *g, int r)
{
    return (int64_t)r * 1000 + (r == g->s->straggler ? g->s->straggler_ns : 0);
}

static int add(file_t *f, const pb_prof_rec_t *r)
{
    if (f->n == f->cap) {
        size_t nc = f->cap ? f->cap * 2 : 64;
        pb_prof_rec_t *p = realloc(f->rec, nc * sizeof *p);
        if (p == NULL)
            return -1;
        f->rec = p;
        f->cap = nc;
    }
    f->rec[f->n++] = *r;
    return 0;
}

/* One operation of dimension d issued at slot time `base` by every rank
 * it concerns.  peer_step: 0 a collective; +1/-1 p2p towards the next /
 * previous stage (Send on the rank that has such a stage, Recv on that
 * stage). */
static int emit_on(gen_t *g, int d, const char *func, int fidx, uint64_t bytes, int esize,
                   int peer_step, int64_t base, int stage)
{
    int stride, size;
    dim_shape(g, d, &stride, &size);
    if (size < 2 && d != D_WORLD)
        return 0;
    for (int r = 0; r < g->world; r++) {
        int pfirst;
        if (stage >= 0 && group_rank(g, D_PP, r, &pfirst) != stage)
            continue;
        int first, gr = group_rank(g, d, r, &first);
        int dst = gr + peer_step;
        if (peer_step && (dst < 0 || dst >= size))
            continue;
        /* the operation's members: the group, or the two ends of the p2p */
        int64_t start = 0;
        for (int k = 0; k < size; k++) {
            if (peer_step && k != gr && k != dst)
                continue;
            int64_t t = base + lateness(g, first + k * stride);
            start = t > start ? t : start;
        }
        int64_t end = start + (int64_t)((double)bytes / 100e9 * 1e9) + 10000;
        for (int side = 0; side < (peer_step ? 2 : 1); side++) {
            int me = side ? first + dst * stride : r; /* the receiver is the peer stage */
            file_t *f = &g->f[me * D_N + d];
            pb_prof_rec_t rec;
            memset(&rec, 0, sizeof rec);
            rec.kind = peer_step ? PB_PROF_REC_P2P : PB_PROF_REC_COLL;
            rec.peer = peer_step ? (side ? gr : dst) : -1;
            snprintf(rec.func, sizeof rec.func, "%s", peer_step ? (side ? "Recv" : "Send") : func);
            int fi = peer_step ? 7 : fidx;
            rec.seq = f->fseq[fi]++;
            uint64_t per = (uint64_t)esize * (!peer_step && fidx > 0 ? (uint64_t)size : 1);
            rec.count = bytes / per;
            snprintf(rec.dtype, sizeof rec.dtype, "%s", esize == 2 ? "ncclBfloat16" : "ncclFloat32");
            snprintf(rec.algo, sizeof rec.algo, "%s", peer_step ? "" : "RING");
            snprintf(rec.proto, sizeof rec.proto, "SIMPLE");
            rec.t_enq0 = (uint64_t)(base + lateness(g, me));
            rec.t_enq1 = rec.t_enq0 + 2000;
            rec.t_k0 = (uint64_t)start;
            rec.t_k1 = (uint64_t)end;
            rec.g0 = rec.t_k0 + 1000000000ull;
            rec.g1 = rec.t_k1 + 1000000000ull;
            rec.nchannels = 2;
            rec.nkch = 2;
            rec.nwarps = 16;
            if (add(f, &rec) != 0)
                return -1;
        }
    }
    return 0;
}

static int emit(gen_t *g, int d, const char *func, int fidx, uint64_t bytes, int esize,
                int peer_step, int64_t base)
{
    return emit_on(g, d, func, fidx, bytes, esize, peer_step, base, -1);
}

/* Function indexes (NCCL counts seqNumber per function): AllReduce 0,
 * AllGather 1, ReduceScatter 2 (sizes of these two are n blocks). */
static int one_step(gen_t *g, int64_t t, int *slot)
{
    const jp_synth_t *s = g->s;
    int rc = 0;
#define AT() (t + (int64_t)(*slot)++ * 1000000)
    for (int m = 0; m < s->micro && rc == 0; m++)
        for (int dir = 0; dir < 2 && rc == 0; dir++) { /* forward, backward */
            rc |= emit(g, D_TP, "AllReduce", 0, s->tp_bytes, 2, 0, AT());
            rc |= emit(g, D_TP, "AllReduce", 0, s->tp_bytes, 2, 0, AT());
            rc |= emit(g, D_CP, "AllGather", 1, s->tp_bytes, 2, 0, AT());
            rc |= emit(g, D_PP, "", 0, s->pp_bytes, 2, dir ? -1 : 1, AT());
            if (!s->ends)
                continue;
            if (dir == 0) { /* the embedding's output; the loss's three */
                rc |= emit_on(g, D_TP, "AllReduce", 0, s->tp_bytes, 2, 0, AT(), 0);
                for (int k = 0; k < 3; k++)
                    rc |= emit_on(g, D_TP, "AllReduce", 0, s->loss_bytes, 4, 0, AT(), s->pp - 1);
            } else { /* the output layer's input gradient */
                rc |= emit_on(g, D_TP, "AllReduce", 0, s->tp_bytes, 2, 0, AT(), s->pp - 1);
            }
        }
    rc |= emit(g, D_DP, "ReduceScatter", 2, s->dp_bytes, 2, 0, AT());
    rc |= emit(g, D_DP, "AllGather", 1, s->dp_bytes, 2, 0, AT());
    rc |= emit(g, D_WORLD, "AllReduce", 0, 4, 4, 0, AT());
#undef AT
    return rc;
}

static void heads(gen_t *g)
{
    for (int r = 0; r < g->world; r++)
        for (int d = 0; d < D_N; d++) {
            pb_prof_head_t *h = &g->f[r * D_N + d].head;
            int stride, size, first, gr = group_rank(g, d, r, &first);
            dim_shape(g, d, &stride, &size);
            memcpy(h->magic, PB_PROF_MAGIC, sizeof h->magic);
            h->version = PB_PROF_VERSION;
            h->rec_size = sizeof(pb_prof_rec_t);
            h->comm_id = ((uint64_t)(d + 1) << 40) | (uint64_t)first | 0x5000000000000000ull;
            h->nranks = g->s->api >= 4 ? size : -1;
            h->rank = g->s->api >= 4 ? gr : -1;
            h->nnodes = g->s->api >= 4 ? 1 : -1;
            int pp = g->s->per_proc;
            h->pid = 1000 + r / pp;
            h->device = pp > 1 ? r % pp : r % 8;
            h->api = g->s->api;
            h->every = 1;
            h->t0_ns = (uint64_t)g->t0;
            h->world_rank = r / pp;
            h->world_size = g->world / pp;
            snprintf(h->comm_name, sizeof h->comm_name, "synth-%d-%d", d, first);
            snprintf(h->host, sizeof h->host, "synth-node%d", r / 8);
        }
}

static int write_files(gen_t *g, const char *dir)
{
    for (int i = 0; i < g->world * D_N; i++) {
        file_t *f = &g->f[i];
        int stride, size;
        dim_shape(g, i % D_N, &stride, &size);
        if ((size < 2 && i % D_N != D_WORLD) || (i % D_N == D_WORLD && g->s->no_world))
            continue;
        char path[4096];
        /* the ranks of one communicator in one process share its id: told
         * apart by rank, or (v3: no rank at open) as the plugin does, by
         * the next free name */
        pb_prof_path_rank(path, sizeof path, dir, f->head.host, f->head.pid, f->head.comm_id,
                          g->s->per_proc > 1 ? f->head.rank : -1,
                          g->s->per_proc > 1 && f->head.rank < 0 ? f->head.device : 0);
        FILE *fp = fopen(path, "wb");
        if (fp == NULL)
            return -1;
        pb_prof_rec_t end;
        memset(&end, 0, sizeof end);
        end.kind = PB_PROF_REC_END;
        end.seq = f->n;
        int bad = fwrite(&f->head, sizeof f->head, 1, fp) != 1 ||
                  (f->n && fwrite(f->rec, sizeof *f->rec, f->n, fp) != f->n) ||
                  fwrite(&end, sizeof end, 1, fp) != 1;
        if (fclose(fp) != 0 || bad)
            return -1;
    }
    return 0;
}

int jp_synth_write(const char *dir, const jp_synth_t *s)
{
    gen_t g;
    memset(&g, 0, sizeof g);
    g.s = s;
    g.world = s->tp * s->cp * s->dp * s->pp;
    g.t0 = 1700000000000000000LL; /* 2023-11-14, a plausible CLOCK_REALTIME */
    if (g.world < 1 || s->steps < 1 || s->micro < 1 || s->per_proc < 1 ||
        g.world % s->per_proc != 0) {
        errno = EINVAL;
        return -1;
    }
    g.f = calloc((size_t)g.world * D_N, sizeof *g.f);
    if (g.f == NULL)
        return -1;
    heads(&g);
    int rc = 0, slot = 0;
    for (int st = 0; st < s->steps && rc == 0; st++) {
        rc = one_step(&g, g.t0 + (int64_t)st * 200000000, &slot);
        slot = 0;
    }
    if (rc == 0)
        rc = write_files(&g, dir);
    for (int i = 0; i < g.world * D_N; i++)
        free(g.f[i].rec);
    free(g.f);
    return rc;
}

void jp_synth_remove(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[4096];
    while (d && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}
