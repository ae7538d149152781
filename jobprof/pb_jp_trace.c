/* pb_jp_trace.c - the records as trace events (pb_jp_trace.h). */
#include "pb_jp_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_jp_inst.h"
#include "../reports/pb_report.h"
#include "../reports/pb_trace.h"

void pb_jp_coords(const pb_jp_shape_t *sh, int rank, char *buf, size_t len)
{
    buf[0] = '\0';
    if (sh == NULL || !sh->consistent || len == 0)
        return;
    const char *name[] = {"tp", "cp", "dp", "pp"};
    int size[] = {sh->tp, sh->cp, sh->dp, sh->pp}, rest = rank;
    size_t at = 0;
    for (int d = 0; d < 4; d++) { /* Megatron order: tp fastest */
        int c = rest % size[d];
        rest /= size[d];
        if (size[d] > 1 && at < len)
            at += (size_t)snprintf(buf + at, len - at, "%s%s %d", at ? " " : "", name[d], c);
    }
}

static int64_t origin(const pb_jobprof_t *jp)
{
    int64_t t0 = 0;
    for (size_t i = 0; i < jp->nops; i++) {
        const pb_jop_t *o = &jp->ops[i];
        int64_t t = o->t_issue_ns > 0 ? o->t_issue_ns : o->t_start_ns;
        if (t > 0 && (t0 == 0 || t < t0))
            t0 = t;
    }
    return t0;
}

static void one_event(const pb_jobprof_t *jp, const pb_jop_t *o, int wait, int64_t t0,
                      pb_trace_event_t *e)
{
    memset(e, 0, sizeof *e);
    char size[32];
    pb_report_bytes(size, sizeof size, (double)o->bytes);
    const char *op = pb_jp_op_name(o->known, o->kind, o->coll, o->func);
    e->pid = o->rank;
    e->tid = o->comm;
    e->mb = e->chunk = -1;
    int64_t from = wait ? o->t_issue_ns : o->t_start_ns, to = wait ? o->t_start_ns : o->t_end_ns;
    e->ts_us = (double)(from - t0) / 1e3;
    e->dur_us = (double)(to - from) / 1e3;
    snprintf(e->name, sizeof e->name, "%s%s %s", wait ? "wait " : "", op, size);
    snprintf(e->cat, sizeof e->cat, "%s", wait ? "wait" : pb_jdim_name(jp->comms[o->comm].dim));
    snprintf(e->detail, sizeof e->detail, "comm %d seq %llu", o->comm,
             (unsigned long long)o->seq);
}

int pb_jp_trace_write(const char *path, const pb_jobprof_t *jp, const pb_jp_shape_t *shape,
                      size_t *written, pb_err_t *err)
{
    int world = pb_jp_world(jp);
    int64_t t0 = origin(jp);
    pb_trace_event_t *ev = malloc((2 * jp->nops + 1) * sizeof *ev);
    char(*label)[32] = malloc((size_t)(world > 0 ? world : 1) * sizeof *label);
    if (ev == NULL || label == NULL) {
        free(ev);
        free(label);
        return pb_err_set(err, PB_ERUNTIME, "out of memory for the trace");
    }
    size_t n = 0;
    *written = 0;
    for (size_t i = 0; i < jp->nops; i++) {
        const pb_jop_t *o = &jp->ops[i];
        if (o->t_start_ns <= 0 || o->t_end_ns < o->t_start_ns || o->rank < 0)
            continue;
        if (o->t_issue_ns > 0 && o->t_issue_ns < o->t_start_ns)
            one_event(jp, o, 1, t0, &ev[n++]);
        one_event(jp, o, 0, t0, &ev[n++]);
        (*written)++;
    }
    for (int r = 0; r < world; r++) {
        pb_jp_coords(shape, r, label[r], sizeof label[r]);
        if (label[r][0] == '\0')
            snprintf(label[r], sizeof label[r], "%s", jp->source[0] ? jp->source : "recorded");
    }
    int rc = pb_trace_write(path, ev, n, (const char(*)[32])label, world, err);
    free(ev);
    free(label);
    return rc;
}
