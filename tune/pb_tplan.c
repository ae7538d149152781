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
    /* "not enough pairs" has a median but no verdict: taken as unchanged */
    return c->state == PB_TCELL_DONE && (c->v.v == PB_TV_FASTER || c->v.v == PB_TV_SLOWER)
               ? c->v.ratio : 1.0;
}

int pb_tcell_holds(const pb_tcell_t *c)
{
    return c->state == PB_TCELL_DONE && (c->v.v == PB_TV_FASTER || c->v.v == PB_TV_SAME);
}

double pb_tplan_score_reach(const pb_tcell_t *row, const int *reach, const double *weight,
                            size_t n)
{
    double num = 0.0, den = 0.0;
    int faster = 0;
    for (size_t i = 0; i < n; i++) {
        if (row[i].state == PB_TCELL_WRONG)
            return 0.0; /* a setting that breaks results is never chosen */
        if (reach[i] && !pb_tcell_holds(&row[i]))
            return 0.0; /* it would reach a case it did not win or tie on */
        faster |= reach[i] && row[i].v.v == PB_TV_FASTER;
        num += weight[i] * (reach[i] ? pb_tcell_ratio(&row[i]) : 1.0);
        den += weight[i];
    }
    double s = den > 0.0 ? num / den : 1.0;
    return faster && s < 1.0 ? s : 0.0;
}

double pb_tplan_budget(double before, const double *per_pair, size_t n, uint64_t pairs)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += per_pair[i];
    return before + (double)pairs * sum;
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

/* Whether one of c's knobs can change collective op. */
static int cand_affects(const pb_tcand_t *c, const char *op)
{
    for (int j = 0; j < c->n; j++)
        if (pb_knob_affects(c->set[j].knob, op))
            return 1;
    return 0;
}

/* Whether c holds on every case of NCCL function f (and can change it). */
static int holds_on_func(const pb_tcand_t *c, const char *f, const char *const *ops,
                         const pb_tcell_t *row, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *g = pb_knob_nccl_func(ops[i]);
        if (g != NULL && strcmp(g, f) == 0 &&
            (!cand_affects(c, ops[i]) || !pb_tcell_holds(&row[i])))
            return 0;
    }
    return 1;
}

int pb_tplan_reach(const pb_tcand_t *c, const char *const *ops, const pb_tcell_t *row, size_t n,
                   int per_coll, int *reach, char *funcs, size_t len)
{
    int all = 1, scopable = per_coll && c->n > 0;
    for (int j = 0; j < c->n; j++)
        scopable &= c->set[j].knob->per_coll;
    if (len > 0)
        funcs[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        reach[i] = cand_affects(c, ops[i]);
        all &= !reach[i] || pb_tcell_holds(&row[i]);
    }
    if (all || !scopable)
        return all ? PB_TREACH_ALL : PB_TREACH_NONE;
    /* per NCCL function, in the order of the cases: reach[i] becomes 1
     * where case i's function is exported, -1 where it was refused, 0
     * where it is not looked at yet or NCCL cannot name it */
    size_t used = 0;
    int any = 0;
    for (size_t i = 0; i < n; i++)
        reach[i] = 0;
    for (size_t i = 0; i < n; i++) {
        const char *f = pb_knob_nccl_func(ops[i]);
        if (f == NULL || reach[i] != 0)
            continue;
        int ok = holds_on_func(c, f, ops, row, n);
        for (size_t j = i; j < n; j++) {
            const char *g = pb_knob_nccl_func(ops[j]);
            if (g != NULL && strcmp(g, f) == 0)
                reach[j] = ok ? 1 : -1;
        }
        any |= ok;
        if (ok && used + 1 < len) {
            int w = snprintf(funcs + used, len - used, "%s%s", used ? "," : "", f);
            used = w > 0 && used + (size_t)w < len ? used + (size_t)w : len - 1;
        }
    }
    for (size_t i = 0; i < n; i++)
        reach[i] = reach[i] == 1;
    if (any)
        return PB_TREACH_SCOPED;
    for (size_t i = 0; i < n; i++) /* left out: back to all it would reach */
        reach[i] = cand_affects(c, ops[i]);
    return PB_TREACH_NONE;
}
