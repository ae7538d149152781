#include "pb_compare.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../util/pb_stats.h"

typedef struct keyed {
    char key[12 * PB_RESULT_STR];
    size_t idx;
} keyed_t;

static void make_key(const pb_result_t *r, char *k, size_t n)
{
    snprintf(k, n, "%s|%s|%s|%d|%020" PRIu64 "|%s|%s|%d|%d|%s|%s", r->pattern, r->collective,
             r->group, r->group_size, r->bytes, r->dtype, r->backend, r->world, r->in_place,
             r->mode, r->redop);
}

static int by_key(const void *a, const void *b)
{
    const keyed_t *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c != 0)
        return c;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sorted keys with duplicates dropped but the last row of each kept. */
static keyed_t *index_rows(const pb_result_t *rows, size_t n, size_t *out_n)
{
    keyed_t *k = malloc((n ? n : 1) * sizeof *k);
    if (k == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        make_key(&rows[i], k[i].key, sizeof k[i].key);
        k[i].idx = i;
    }
    qsort(k, n, sizeof *k, by_key);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m > 0 && strcmp(k[m - 1].key, k[i].key) == 0)
            k[m - 1] = k[i]; /* same key, later row */
        else
            k[m++] = k[i];
    }
    *out_n = m;
    return k;
}

static void describe(FILE *out, const pb_result_t *r)
{
    fprintf(out, "%-8s %-13s %-6s %4d %12" PRIu64 " %-8s %-6s %5d %-3s %-10s %-4s", r->pattern,
            r->collective, r->group, r->group_size, r->bytes, r->dtype, r->backend, r->world,
            r->in_place ? "in" : "out", r->mode, r->redop);
}

static void head(FILE *out)
{
    fprintf(out, "%-8s %-13s %-6s %4s %12s %-8s %-6s %5s %-3s %-10s %-4s", "#pattern",
            "collective", "group", "n", "bytes", "dtype", "backend", "world", "pl", "mode",
            "op");
}

/* The rows of each side that the other lacks, walking the merge again. */
static void print_unmatched(const pb_result_t *base, const keyed_t *kb, size_t nb,
                            const char *base_name, size_t only_base, const pb_result_t *cur,
                            const keyed_t *kc, size_t nc, const char *cur_name, size_t only_new,
                            FILE *out)
{
    for (int side = 0; side < 2; side++) {
        size_t n = side ? only_new : only_base;
        if (n == 0)
            continue;
        fprintf(out, "# only in %s (%zu row%s):\n", side ? cur_name : base_name, n,
                n == 1 ? "" : "s");
        for (size_t i = 0, j = 0; i < nb || j < nc;) {
            int c = i == nb ? 1 : j == nc ? -1 : strcmp(kb[i].key, kc[j].key);
            if (c == 0) {
                i++;
                j++;
            } else if (c < 0) {
                if (!side) {
                    fputs("  ", out);
                    describe(out, &base[kb[i].idx]);
                    fputc('\n', out);
                }
                i++;
            } else {
                if (side) {
                    fputs("  ", out);
                    describe(out, &cur[kc[j].idx]);
                    fputc('\n', out);
                }
                j++;
            }
        }
    }
}

/* The row's quantile at position p in [0, 1]: the line through (0, min),
 * (0.5, median), (0.99, p99) and (1, max), the four points a row keeps. */
static double row_quantile(const pb_result_t *r, double p)
{
    if (p <= 0.5)
        return r->time_us_min + (r->time_us_median - r->time_us_min) * (p / 0.5);
    if (p <= 0.99)
        return r->time_us_median + (r->time_us_p99 - r->time_us_median) * ((p - 0.5) / 0.49);
    return r->time_us_p99 + (r->time_us_max - r->time_us_p99) * ((p - 0.99) / 0.01);
}

void pb_compare_band(const pb_result_t *r, double *lo, double *hi)
{
    /* the sample count: iters in latency mode only (one operation per
     * sample); elsewhere unknown, and the whole range holds the median's
     * interval whatever n is */
    size_t n = strcmp(r->mode, "latency") == 0 ? (size_t)r->iters : 0;
    double plo = 0.0, phi = 1.0;
    size_t j = 1, k = n;
    /* the ranks every caller uses (util/pb_stats.h); below 6 samples no
     * 95 % interval exists and the band stays the whole range */
    if (pb_median_ci95_ranks(n, &j, &k)) {
        plo = (double)(j - 1) / (double)(n - 1);
        phi = (double)(k - 1) / (double)(n - 1);
    }
    double m = r->time_us_median;
    *lo = row_quantile(r, plo);
    *hi = row_quantile(r, phi);
    /* a row whose quantiles are out of order (a hand-made file) still
     * gets an interval around its median */
    *lo = *lo < m ? *lo : m;
    *hi = *hi > m ? *hi : m;
}

pb_compare_verdict_t pb_compare_verdict(const pb_result_t *base, const pb_result_t *cur,
                                        const pb_compare_rule_t *rule, double *growth)
{
    double a = base->time_us_median, b = cur->time_us_median;
    double d = a > 0.0 ? (b - a) / a : 0.0;
    *growth = d;
    if (d <= rule->threshold && d >= -rule->threshold)
        return PB_CMP_SAME;
    if (rule->ignore_noise)
        return d > 0.0 ? PB_CMP_REGRESSED : PB_CMP_IMPROVED;
    double alo, ahi, blo, bhi;
    pb_compare_band(base, &alo, &ahi);
    pb_compare_band(cur, &blo, &bhi);
    /* Rule 7: only intervals that do not overlap show a difference */
    if (d > 0.0)
        return blo > ahi ? PB_CMP_REGRESSED : PB_CMP_NOISE;
    return bhi < alo ? PB_CMP_IMPROVED : PB_CMP_NOISE;
}

/* The noise the change must beat, in percent of the base median: the
 * half-intervals of the two rows that face each other. */
static double noise_pct(const pb_result_t *a, const pb_result_t *b, double growth)
{
    double alo, ahi, blo, bhi;
    pb_compare_band(a, &alo, &ahi);
    pb_compare_band(b, &blo, &bhi);
    double am = a->time_us_median, bm = b->time_us_median;
    double w = growth >= 0.0 ? (ahi - am) + (bm - blo) : (am - alo) + (bhi - bm);
    return am > 0.0 ? w / am * 100.0 : 0.0;
}

static const char *const marks[] = {"", "  REGRESSED", "  improved", "  within noise"};

/* One matched pair: its line, and its count. */
static void compare_pair(const pb_result_t *a, const pb_result_t *b,
                         const pb_compare_rule_t *rule, FILE *out, pb_compare_sum_t *sum)
{
    double dt;
    pb_compare_verdict_t v = pb_compare_verdict(a, b, rule, &dt);
    double dbw = a->busbw_gbps > 0.0 ? (b->busbw_gbps - a->busbw_gbps) / a->busbw_gbps : 0.0;
    sum->matched++;
    sum->regressed += v == PB_CMP_REGRESSED;
    sum->improved += v == PB_CMP_IMPROVED;
    sum->noise += v == PB_CMP_NOISE;
    if (v == PB_CMP_REGRESSED && (sum->regressed == 1 || dt > sum->worst))
        sum->worst = dt;
    describe(out, a);
    fprintf(out, " %12.3f %12.3f %+7.1f%% %7.1f%% %10.3f %10.3f %+7.1f%%%s\n",
            a->time_us_median, b->time_us_median, dt * 100.0, noise_pct(a, b, dt),
            a->busbw_gbps, b->busbw_gbps, dbw * 100.0, marks[v]);
}

int pb_compare_rows(const pb_result_t *base, size_t nbase, const char *base_name,
                    const pb_result_t *cur, size_t ncur, const char *cur_name,
                    const pb_compare_rule_t *rule, FILE *out, pb_compare_sum_t *sum,
                    pb_err_t *err)
{
    memset(sum, 0, sizeof *sum);
    size_t nb, nc;
    keyed_t *kb = index_rows(base, nbase, &nb);
    keyed_t *kc = index_rows(cur, ncur, &nc);
    if (kb == NULL || kc == NULL) {
        free(kb);
        free(kc);
        return pb_err_set(err, PB_ERUNTIME, "out of memory comparing");
    }
    fprintf(out, "# compare %s (base) -> %s (new): a row regresses when its median time grows "
                 "by more than %.3g %%%s\n",
            base_name, cur_name, rule->threshold * 100.0,
            rule->ignore_noise ? " (--ignore-noise: the threshold alone)"
                               : " and by more than its noise: the 95 % intervals of the two "
                                 "medians do not overlap (noise%: the change they explain)");
    head(out);
    fprintf(out, " %12s %12s %8s %8s %10s %10s %8s\n", "base_us", "new_us", "time%", "noise%",
            "base_busbw", "new_busbw", "busbw%");
    /* both sorted: one merge pass */
    size_t i = 0, j = 0;
    while (i < nb || j < nc) {
        int c = i == nb ? 1 : j == nc ? -1 : strcmp(kb[i].key, kc[j].key);
        if (c < 0) {
            sum->only_base++;
            i++;
        } else if (c > 0) {
            sum->only_new++;
            j++;
        } else {
            compare_pair(&base[kb[i++].idx], &cur[kc[j++].idx], rule, out, sum);
        }
    }
    print_unmatched(base, kb, nb, base_name, sum->only_base, cur, kc, nc, cur_name,
                    sum->only_new, out);
    fprintf(out, "compare: %zu matched, %zu missing (%zu only in %s, %zu only in %s), %zu "
                 "regressed, %zu improved, %zu within noise\n",
            sum->matched, sum->only_base + sum->only_new, sum->only_base, base_name,
            sum->only_new, cur_name, sum->regressed, sum->improved, sum->noise);
    free(kb);
    free(kc);
    return PB_OK;
}
