#include "pb_compare.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

int pb_compare_rows(const pb_result_t *base, size_t nbase, const char *base_name,
                    const pb_result_t *cur, size_t ncur, const char *cur_name, double threshold,
                    FILE *out, pb_compare_sum_t *sum, pb_err_t *err)
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
                 "by more than %.3g %%\n",
            base_name, cur_name, threshold * 100.0);
    head(out);
    fprintf(out, " %12s %12s %8s %10s %10s %8s\n", "base_us", "new_us", "time%", "base_busbw",
            "new_busbw", "busbw%");
    /* both sorted: one merge pass */
    size_t i = 0, j = 0;
    while (i < nb || j < nc) {
        int c = i == nb ? 1 : j == nc ? -1 : strcmp(kb[i].key, kc[j].key);
        if (c < 0) {
            sum->only_base++;
            i++;
            continue;
        }
        if (c > 0) {
            sum->only_new++;
            j++;
            continue;
        }
        const pb_result_t *a = &base[kb[i].idx], *b = &cur[kc[j].idx];
        double dt = a->time_us_median > 0.0 ? (b->time_us_median - a->time_us_median) /
                                                  a->time_us_median
                                            : 0.0;
        double dbw = a->busbw_gbps > 0.0 ? (b->busbw_gbps - a->busbw_gbps) / a->busbw_gbps : 0.0;
        int reg = dt > threshold;
        sum->matched++;
        sum->regressed += reg;
        sum->improved += dt < -threshold;
        if (sum->matched == 1 || dt > sum->worst)
            sum->worst = dt;
        describe(out, a);
        fprintf(out, " %12.3f %12.3f %+7.1f%% %10.3f %10.3f %+7.1f%%%s\n", a->time_us_median,
                b->time_us_median, dt * 100.0, a->busbw_gbps, b->busbw_gbps, dbw * 100.0,
                reg ? "  REGRESSED" : "");
        i++;
        j++;
    }
    print_unmatched(base, kb, nb, base_name, sum->only_base, cur, kc, nc, cur_name,
                    sum->only_new, out);
    fprintf(out, "# %zu matched, %zu regressed beyond %.3g %%, %zu improved, %zu only in %s, "
                 "%zu only in %s\n",
            sum->matched, sum->regressed, threshold * 100.0, sum->improved, sum->only_base,
            base_name, sum->only_new, cur_name);
    free(kb);
    free(kc);
    return PB_OK;
}
