/* pb_jp_stats.c - per communicator, operation and size bucket (rules:
 * pb_jp_stats.h). */
#include "pb_jp_stats.h"

#include <stdlib.h>
#include <string.h>

#include "../util/pb_grow.h"

int pb_jp_bucket(uint64_t bytes)
{
    int k = 0;
    while (bytes >= 4) {
        bytes >>= 2;
        k++;
    }
    return k;
}

uint64_t pb_jp_bucket_lo(int k)
{
    return k <= 0 ? 0 : (uint64_t)1 << (2 * k);
}

/* The row an instance counts in (bucket -1: the total), found or added. */
static pb_jp_stat_t *row(pb_jp_stats_t *s, size_t *cap, const pb_jp_inst_t *in, int bucket)
{
    for (size_t i = s->n; i-- > 0;) {
        pb_jp_stat_t *r = &s->rows[i];
        if (r->comm == in->comm && r->kind == in->kind && r->known == in->known &&
            r->bucket == bucket && (in->known ? r->coll == in->coll : strcmp(r->func, in->func) == 0))
            return r;
    }
    if (pb_grow((void **)&s->rows, cap, s->n + 1, sizeof *s->rows, 64) != 0)
        return NULL;
    pb_jp_stat_t *r = &s->rows[s->n++];
    memset(r, 0, sizeof *r);
    r->comm = in->comm;
    r->kind = in->kind;
    r->known = in->known;
    r->coll = in->coll;
    memcpy(r->func, in->func, sizeof r->func);
    r->bucket = bucket;
    return r;
}

static void account(pb_jp_stat_t *r, const pb_jp_inst_t *in)
{
    r->count++;
    r->bytes += in->bytes;
    if (in->dur_ns >= 0) {
        r->timed++;
        r->timed_bytes += in->bytes;
        r->time_ns += in->dur_ns;
    }
}

static int cmp_row(const void *pa, const void *pb)
{
    const pb_jp_stat_t *a = pa, *b = pb;
    if (a->comm != b->comm)
        return a->comm < b->comm ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->known != b->known)
        return a->known > b->known ? -1 : 1;
    int c = a->known ? (a->coll > b->coll) - (a->coll < b->coll) : strcmp(a->func, b->func);
    if (c != 0)
        return c;
    return (a->bucket > b->bucket) - (a->bucket < b->bucket);
}

/* Shares and bandwidths, once every instance is counted. */
static void finish(const pb_jobprof_t *jp, pb_jp_stats_t *s)
{
    for (size_t i = 0; i < s->n; i++) {
        pb_jp_stat_t *r = &s->rows[i];
        r->share = s->total_ns > 0 ? (double)r->time_ns / (double)s->total_ns : 0.0;
        if (r->time_ns <= 0)
            continue;
        r->algbw_gbps = (double)r->timed_bytes / (double)r->time_ns; /* B/ns = GB/s */
        if (r->kind != PB_JK_COLL)
            r->busbw_gbps = r->algbw_gbps;
        else if (r->known)
            r->busbw_gbps = r->algbw_gbps * pb_busbw_factor(r->coll, jp->comms[r->comm].nranks);
    }
    if (s->n > 0) /* qsort wants a valid array even for none */
        qsort(s->rows, s->n, sizeof *s->rows, cmp_row);
}

int pb_jp_stats_build(const pb_jobprof_t *jp, const pb_jp_insts_t *in, pb_jp_stats_t *out,
                      pb_err_t *err)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    for (size_t i = 0; i < in->n; i++) {
        const pb_jp_inst_t *x = &in->v[i];
        pb_jp_stat_t *tot = row(out, &cap, x, -1);
        pb_jp_stat_t *b = tot ? row(out, &cap, x, pb_jp_bucket(x->bytes)) : NULL;
        if (b == NULL) {
            pb_jp_stats_free(out);
            return pb_err_set(err, PB_ERUNTIME, "out of memory counting the operations");
        }
        /* every row's time is part of the total: checked there, the sum
         * of any row fits too.  Each duration is at most 2^62 ns as read
         * (pb_jp_bounds.h), but two such make 2^63 */
        if (x->dur_ns > INT64_MAX - out->total_ns) {
            pb_jp_stats_free(out);
            return pb_err_set(err, PB_EINPUT, "the recorded durations sum past 2^63 ns (292 "
                              "years): a duration of %lld ns is not a measurement",
                              (long long)x->dur_ns);
        }
        /* the total row again: adding the bucket row may have moved it */
        account(row(out, &cap, x, -1), x);
        account(b, x);
        if (x->dur_ns >= 0)
            out->total_ns += x->dur_ns;
        else
            out->untimed++;
    }
    finish(jp, out);
    return PB_OK;
}

void pb_jp_stats_free(pb_jp_stats_t *s)
{
    free(s->rows);
    memset(s, 0, sizeof *s);
}

pb_jp_stat_t pb_jp_stats_comm(const pb_jp_stats_t *s, int comm)
{
    pb_jp_stat_t t;
    memset(&t, 0, sizeof t);
    t.comm = comm;
    t.bucket = -1;
    for (size_t i = 0; i < s->n; i++) {
        const pb_jp_stat_t *r = &s->rows[i];
        if (r->comm != comm || r->bucket >= 0)
            continue;
        t.count += r->count;
        t.bytes += r->bytes;
        t.timed += r->timed;
        t.time_ns += r->time_ns;
        t.share += r->share;
    }
    return t;
}
