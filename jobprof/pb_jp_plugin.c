/* pb_jp_plugin.c - the plugin's files read and checked (pb_jp_plugin.h; joined:
 * pb_jp_plugin_join.c). */
#include "pb_jp_plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/pb_grow.h"
#include "pb_jp_bounds.h"

int pb_jp_is_plugin(const void *data, size_t len)
{
    return len >= 8 && memcmp(data, PB_PROF_MAGIC, 8) == 0;
}

/* The header's ranks and sizes bounded before anything is sized by them:
 * one past PB_JP_MAX_RANKS, or a rank past its own size, is a damaged
 * file (-1 is "not recorded" in every one of them). */
static int check_head(const char *name, const pb_prof_head_t *h, pb_err_t *err)
{
    if (h->world_size < -1 || h->world_size == 0 || h->world_size > PB_JP_MAX_RANKS)
        return pb_err_set(err, PB_EINPUT, "%s: a job of %d ranks (parbench reads 1 to %d)", name,
                          h->world_size, PB_JP_MAX_RANKS);
    if (h->world_size > 0 && (h->world_rank < -1 || h->world_rank >= h->world_size))
        return pb_err_set(err, PB_EINPUT, "%s: global rank %d in a job of %d ranks", name,
                          h->world_rank, h->world_size);
    if (h->world_rank < -1 || h->world_rank >= PB_JP_MAX_RANKS)
        return pb_err_set(err, PB_EINPUT, "%s: global rank %d (parbench reads 0 to %d)", name,
                          h->world_rank, PB_JP_MAX_RANKS - 1);
    if (h->nranks < -1 || h->nranks == 0 || h->nranks > PB_JP_MAX_RANKS)
        return pb_err_set(err, PB_EINPUT, "%s: a communicator of %d ranks (parbench reads 1 "
                          "to %d)", name, h->nranks, PB_JP_MAX_RANKS);
    if (h->rank < -1 || (h->nranks > 0 && h->rank >= h->nranks))
        return pb_err_set(err, PB_EINPUT, "%s: communicator rank %d of %d", name, h->rank,
                          h->nranks);
    if (h->rank >= PB_JP_MAX_RANKS) /* v3: a rank and no size */
        return pb_err_set(err, PB_EINPUT, "%s: communicator rank %d (parbench reads 0 to %d)",
                          name, h->rank, PB_JP_MAX_RANKS - 1);
    if (h->device < -1)
        return pb_err_set(err, PB_EINPUT, "%s: device %d", name, h->device);
    if (h->every == 0 || h->every > INT32_MAX)
        return pb_err_set(err, PB_EINPUT, "%s: one operation in %u recorded", name, h->every);
    return PB_OK;
}

/* A record's numbers bounded as every reader's are (pb_jp_bounds.h), so
 * that the analysis may add and subtract them: the element count and
 * each time at most 2^62; its number below 2^48 (PB_JP_SEQ_BITS); 0 where
 * the first bad one is named in *what. */
static int in_bounds(const pb_prof_rec_t *r, const char **what, uint64_t *value, int *bits)
{
    const uint64_t t[] = {r->t_enq0, r->t_enq1, r->t_k0, r->t_k1, r->g0, r->g1};
    static const char *const names[] = {"enqueue start", "enqueue end", "kernel start",
                                        "kernel end", "GPU start", "GPU end"};
    *what = "number";
    *value = r->seq;
    *bits = PB_JP_SEQ_BITS;
    if (r->kind != PB_PROF_REC_END && r->seq >> PB_JP_SEQ_BITS != 0)
        return 0;
    *bits = 62;
    *what = "count";
    *value = r->count;
    if (r->count > (uint64_t)PB_JP_MAX_COUNT)
        return 0;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        *what = names[i];
        *value = t[i];
        if (t[i] > (uint64_t)PB_JP_MAX_TIME_NS)
            return 0;
    }
    return 1;
}

/* A record that ends before it starts, on any of its clocks (0: that
 * time was not seen): its times cannot be trusted, so its lag, duration
 * and order would mislead. */
static int impossible(const pb_prof_rec_t *r)
{
    return (r->t_enq1 != 0 && r->t_enq1 < r->t_enq0) ||
           (r->t_k0 != 0 && r->t_k1 != 0 && r->t_k1 < r->t_k0) ||
           (r->g0 != 0 && r->g1 != 0 && r->g1 < r->g0);
}

/* 1: a collective or a point-to-point record whose function, where
 * parbench knows it, is of that kind; 0: a function of the other kind (a
 * collective record of "Send" would be joined as neither); -1: no kind. */
static int kind_fits(const pb_prof_rec_t *r)
{
    pb_jkind_t k;
    pb_coll_t c;
    if (r->kind != PB_PROF_REC_COLL && r->kind != PB_PROF_REC_P2P)
        return -1;
    return pb_jp_func(r->func, &k, &c) != 0 || (k == PB_JK_COLL) == (r->kind == PB_PROF_REC_COLL);
}

/* Record i of file f kept (or counted: END, impossible); a damaged one
 * PB_EINPUT. */
static int take_rec(pb_jp_plugin_t *pl, pb_jp_pfile_t *f, size_t i, pb_prof_rec_t *r,
                    pb_err_t *err)
{
    const char *what;
    uint64_t value;
    int bits;
    if (!in_bounds(r, &what, &value, &bits))
        return pb_err_set(err, PB_EINPUT, "%s: record %zu: %s %llu, past 2^%d", f->name, i + 1,
                          what, (unsigned long long)value, bits);
    if (r->kind == PB_PROF_REC_END) {
        pl->dropped += r->count;
        return PB_OK;
    }
    r->func[sizeof r->func - 1] = '\0';
    int fits = kind_fits(r);
    if (fits < 0)
        return pb_err_set(err, PB_EINPUT, "%s: record %zu is of no known kind (%u)", f->name,
                          i + 1, r->kind);
    if (fits == 0)
        return pb_err_set(err, PB_EINPUT, "%s: record %zu: a %s record of %s", f->name, i + 1,
                          r->kind == PB_PROF_REC_COLL ? "collective" : "point-to-point", r->func);
    if (impossible(r)) {
        pl->impossible++;
        return PB_OK;
    }
    r->dtype[sizeof r->dtype - 1] = '\0';
    r->algo[sizeof r->algo - 1] = r->proto[sizeof r->proto - 1] = '\0';
    f->recs[f->n++] = *r;
    return PB_OK;
}

int pb_jp_plugin_read(pb_jp_plugin_t *pl, const char *name, const void *data, size_t len,
                      pb_err_t *err)
{
    pb_prof_head_t h;
    if (!pb_jp_is_plugin(data, len) || len < sizeof h)
        return pb_err_set(err, PB_EINPUT, "%s: not a parbench profiler record file", name);
    memcpy(&h, data, sizeof h);
    /* A file written on a machine of the other byte order reads its small
     * version number as a huge one. */
    if (h.version > 0xffffu)
        return pb_err_set(err, PB_EINPUT, "%s: written on a machine of the other byte order",
                          name);
    if (h.version < 1 || h.version > PB_PROF_VERSION || h.rec_size != sizeof(pb_prof_rec_t))
        return pb_err_set(err, PB_EINPUT,
                          "%s: record format %u with %u-byte records; this parbench reads "
                          "formats 1-%d with %zu-byte records",
                          name, h.version, h.rec_size, PB_PROF_VERSION, sizeof(pb_prof_rec_t));
    if (h.version < 2) /* format 1 had no world rank: its bytes were padding */
        h.world_rank = h.world_size = -1;
    if (h.version < 3) /* nor format 2 a device */
        h.device = -1;
    h.comm_name[sizeof h.comm_name - 1] = '\0';
    h.host[sizeof h.host - 1] = '\0';
    if (check_head(name, &h, err) != PB_OK)
        return err->code;
    if (pb_grow((void **)&pl->files, &pl->cap, pl->n + 1, sizeof *pl->files, 16) != 0)
        return pb_err_set(err, PB_ERUNTIME, "out of memory reading %s", name);
    size_t nrec = (len - sizeof h) / sizeof(pb_prof_rec_t);
    pl->truncated += (len - sizeof h) % sizeof(pb_prof_rec_t) != 0;
    pb_jp_pfile_t *f = &pl->files[pl->n];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    f->head = h;
    f->recs = nrec ? malloc(nrec * sizeof *f->recs) : NULL;
    if (nrec && f->recs == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory reading %s", name);
    const unsigned char *p = (const unsigned char *)data + sizeof h;
    for (size_t i = 0; i < nrec; i++) {
        pb_prof_rec_t r;
        memcpy(&r, p + i * sizeof r, sizeof r);
        if (take_rec(pl, f, i, &r, err) != PB_OK) {
            free(f->recs);
            return err->code;
        }
    }
    pl->n++;
    return PB_OK;
}

void pb_jp_plugin_free(pb_jp_plugin_t *pl)
{
    for (size_t i = 0; i < pl->n; i++)
        free(pl->files[i].recs);
    free(pl->files);
    memset(pl, 0, sizeof *pl);
}
