#include "pb_tplan.h"

#include <stdio.h>
#include <string.h>

/* The largest weight among the operations knob k can change (0: none). */
static double reach(const pb_knob_t *k, const pb_top_t *ops, size_t nops)
{
    double w = 0.0;
    for (size_t i = 0; i < nops; i++)
        if (pb_knob_affects(k, ops[i].op) && ops[i].weight > w)
            w = ops[i].weight;
    return w;
}

size_t pb_tplan_singles(pb_knob_lib_t lib, const pb_top_t *ops, size_t nops, pb_tcand_t *out,
                        size_t cap)
{
    size_t nk = pb_knob_count(), n = 0;
    int done[64] = {0};
    _Static_assert(sizeof done / sizeof done[0] >= 16, "room for every knob of the table");
    for (;;) { /* knobs by reach, largest first; ties in table order */
        const pb_knob_t *best = NULL;
        size_t bi = 0;
        double bw = 0.0;
        for (size_t i = 0; i < nk && i < 64; i++) {
            const pb_knob_t *k = pb_knob_at(i);
            double w = k->lib == lib && !done[i] ? reach(k, ops, nops) : 0.0;
            if (w > bw) {
                bw = w;
                best = k;
                bi = i;
            }
        }
        if (best == NULL)
            return n;
        done[bi] = 1;
        for (size_t v = 0; v < pb_knob_nvalues(best); v++, n++)
            if (n < cap)
                out[n] = (pb_tcand_t){1, {{best, (int)v}}};
    }
}

int pb_tplan_fits(double budget, double spent, double est)
{
    return budget <= 0.0 || spent + est <= budget;
}

/* The single of knob k with the lowest positive score, -1: none. */
static long best_of(const pb_tcand_t *singles, size_t n, const double *score, const pb_knob_t *k)
{
    long b = -1;
    for (size_t i = 0; i < n; i++)
        if (singles[i].n == 1 && singles[i].set[0].knob == k && score[i] > 0.0 &&
            (b < 0 || score[i] < score[b]))
            b = (long)i;
    return b;
}

int pb_tplan_combo(const pb_tcand_t *singles, size_t n, const double *score, pb_tcand_t *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n && out->n < PB_TCAND_SET; i++) {
        const pb_knob_t *k = singles[i].set[0].knob;
        int seen = 0;
        for (int j = 0; j < out->n; j++)
            seen |= out->set[j].knob == k;
        long b = seen || k->apply == PB_APPLY_MPIT ? -1 : best_of(singles, n, score, k);
        if (b >= 0)
            out->set[out->n++] = singles[b].set[0];
    }
    return out->n >= 2;
}

void pb_tcand_format(const pb_tcand_t *c, int label, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    if (c->n == 0) {
        snprintf(buf, len, "default");
        return;
    }
    for (int i = 0; i < c->n && used + 1 < len; i++) {
        char v[64];
        if (label)
            pb_knob_label(c->set[i].knob, (size_t)c->set[i].value, v, sizeof v);
        else
            pb_knob_value(c->set[i].knob, (size_t)c->set[i].value, v, sizeof v);
        int w = snprintf(buf + used, len - used, "%s%s=%s", i ? " " : "", c->set[i].knob->name, v);
        used = w > 0 && used + (size_t)w < len ? used + (size_t)w : len - 1;
    }
}

double pb_tcell_ratio(const pb_tcell_t *c)
{
    return c->state == PB_TCELL_DONE && c->v.v != PB_TV_SAME ? c->v.ratio : 1.0;
}

double pb_tplan_score(const pb_tcell_t *row, const double *weight, size_t n)
{
    double num = 0.0, den = 0.0;
    int faster = 0;
    for (size_t i = 0; i < n; i++) {
        if (row[i].state == PB_TCELL_WRONG)
            return 0.0; /* a setting that breaks results is never chosen */
        faster |= row[i].state == PB_TCELL_DONE && row[i].v.v == PB_TV_FASTER;
        num += weight[i] * pb_tcell_ratio(&row[i]);
        den += weight[i];
    }
    double s = den > 0.0 ? num / den : 1.0;
    return faster && s < 1.0 ? s : 0.0;
}

size_t pb_tplan_choose(pb_knob_lib_t lib, const pb_tcand_t *cands, const double *score,
                       size_t n, size_t *chosen)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (score[i] <= 0.0)
            continue;
        size_t j = 0; /* the chosen one it competes with, if any */
        while (j < k && lib != PB_KNOB_NCCL && cands[chosen[j]].set[0].knob != cands[i].set[0].knob)
            j++;
        if (j == k)
            chosen[k++] = i;
        else if (score[i] < score[chosen[j]])
            chosen[j] = i;
    }
    return k;
}
