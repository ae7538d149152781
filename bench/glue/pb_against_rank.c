/* pb_against's ranking: whether the model orders the configurations of
 * a published sweep as the source timed them (pb_against.h).  `plan`
 * exists to pick the faster layout, so the measure is the share of
 * pairs in the published order, not any run's error: a model 15 % slow
 * on every run of a sweep still ranks it perfectly. */
#include <math.h>
#include <string.h>

#include "pb_against.h"

void pb_rank_run_of(const pb_against_run_t *run, pb_rank_run_t *r)
{
    const pb_model_t *m = &run->job->model;
    /* what stays fixed within a sweep; the layout, batch, recomputation,
     * precision and overlap settings may vary */
    snprintf(r->sweep, sizeof r->sweep,
             "%s|%s|%.0f|%s|%llu|%llu|%llu|%llu|%llu|%llu|%llu|%llu|%llu|%llu|%llu|%llu",
             run->family ? run->family : run->name, run->gpu, run->gpus,
             pb_fw_name(run->job->step.framework), (unsigned long long)m->layers,
             (unsigned long long)m->hidden, (unsigned long long)m->heads,
             (unsigned long long)m->kv_heads, (unsigned long long)m->ffn,
             (unsigned long long)m->vocab, (unsigned long long)m->experts,
             (unsigned long long)m->topk, (unsigned long long)m->moe_ffn,
             (unsigned long long)m->shared_ffn, (unsigned long long)m->dense_first,
             (unsigned long long)m->seq);
    snprintf(r->name, sizeof r->name, "%s", run->name);
    snprintf(r->family, sizeof r->family, "%s", run->family ? run->family : run->name);
    snprintf(r->gpu, sizeof r->gpu, "%s", run->gpu);
    r->gpus = run->gpus;
    r->split = run->split;
    /* per sequence: a sweep's runs may differ in global batch */
    double seqs = (double)(m->gbs ? m->gbs : 1);
    r->published = run->published_s / seqs;
    r->predicted = run->predicted_s / seqs;
}

static void add(pb_against_rank_t *a, int sweeps, int pairs, int in_order)
{
    a->sweeps += sweeps, a->pairs += pairs, a->in_order += in_order;
}

/* One sweep, its runs those of r[first..n) with r[first]'s key: its
 * pairs, the one most out of order (the largest published gap the model
 * reverses) named on its line. */
static void sweep(const pb_rank_run_t *r, size_t first, size_t n, FILE *out,
                  pb_against_sum_t *sum)
{
    const char *key = r[first].sweep;
    int runs = 0, pairs = 0, in_order = 0;
    pb_split_t sp = r[first].split;
    size_t wa = 0, wb = 0;
    double worst = 0.0;
    for (size_t i = first; i < n; i++) {
        if (strcmp(r[i].sweep, key) != 0)
            continue;
        runs++;
        sp = r[i].split == sp ? sp : PB_SPLIT_COUNT; /* mixed */
        for (size_t j = i + 1; j < n; j++) {
            if (strcmp(r[j].sweep, key) != 0 || r[i].published == r[j].published)
                continue;
            pairs++;
            double pub = r[i].published - r[j].published, pred = r[i].predicted - r[j].predicted;
            if (pub * pred > 0.0) {
                in_order++;
                continue;
            }
            /* the gap as a ratio, the slower over the faster */
            double gap = fabs(log(r[i].published / r[j].published));
            if (gap > worst)
                worst = gap, wa = pub < 0.0 ? i : j, wb = pub < 0.0 ? j : i;
        }
    }
    if (runs < 2)
        return;
    add(&sum->rank_all, 1, pairs, in_order);
    if (sp < PB_SPLIT_COUNT)
        add(&sum->rank[sp], 1, pairs, in_order);
    if (out == NULL)
        return;
    fprintf(out, "  %-24s %-5s %6.0f %-44s %4d %5d %5d", r[first].family, r[first].gpu,
            r[first].gpus, r[first].name, runs, pairs, in_order);
    if (worst > 0.0)
        fprintf(out, "  worst: %s published %.1f %% faster than %s, predicted slower",
                r[wa].name, 100.0 * (r[wb].published / r[wa].published - 1.0), r[wb].name);
    fputc('\n', out);
}

static void print_rank(FILE *out, const char *what, const pb_against_rank_t *a)
{
    if (a->sweeps == 0)
        return;
    fprintf(out, "ranking (%s): %d sweep%s, %d pairs, %d in the published order (%.0f %%)\n",
            what, a->sweeps, a->sweeps == 1 ? "" : "s", a->pairs, a->in_order,
            a->pairs ? 100.0 * a->in_order / a->pairs : 0.0);
}

void pb_rank_sum(const pb_rank_run_t *r, size_t n, FILE *out, pb_against_sum_t *sum)
{
    memset(&sum->rank_all, 0, sizeof sum->rank_all);
    memset(sum->rank, 0, sizeof sum->rank);
    if (out)
        fprintf(out,
                "ranking: each sweep (a source's runs of one model and sequence on one GPU "
                "type and count, in one stack) pair by pair, as time per sequence\n"
                "  %-24s %-5s %6s %-44s %4s %5s %5s\n",
                "family", "gpu", "gpus", "first run", "runs", "pairs", "order");
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(r[j].sweep, r[i].sweep) == 0;
        if (!seen)
            sweep(r, i, n, out, sum);
    }
    if (out == NULL)
        return;
    if (sum->rank_all.sweeps == 0)
        fprintf(out, "  no sweep: no two runs share a source, model, GPU count and stack\n");
    print_rank(out, "all", &sum->rank_all);
    print_rank(out, "fit", &sum->rank[PB_SPLIT_FIT]);
    print_rank(out, "test", &sum->rank[PB_SPLIT_TEST]);
}
