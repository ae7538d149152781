/* parbench plan's ties: layouts the model gives the same time, told
 * apart by the parts of their descriptions that differ. */
#include "pb_plan_ties.h"

#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#define TIE_TOKS 16
#define TIE_TOK 160

/* one description ("tp 8 sp, pp 4, dp 32, mbs 1, none, dist-opt") cut at
 * its commas, so that ties can be told apart by the parts that differ */
typedef struct alt {
    char tok[TIE_TOKS][TIE_TOK];
    int n;
} alt_t;

static void alt_split(const char *desc, alt_t *a)
{
    memset(a, 0, sizeof *a);
    const char *p = desc;
    while (*p && a->n < TIE_TOKS) {
        const char *q = strstr(p, ", ");
        size_t len = q ? (size_t)(q - p) : strlen(p);
        snprintf(a->tok[a->n++], TIE_TOK, "%.*s", (int)len, p);
        p = q ? q + 2 : p + len;
    }
}

/* the one part where a and b differ, or -1 (none, or several) */
static int alt_one_diff(const alt_t *a, const alt_t *b)
{
    if (a->n != b->n)
        return -1;
    int k = -1;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->tok[i], b->tok[i]) != 0) {
            if (k >= 0)
                return -1;
            k = i;
        }
    return k;
}

static void alt_join(const alt_t *a, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < a->n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", a->tok[i]);
}

static int cmp_str(const void *pa, const void *pb)
{
    return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* a := the alternatives of a and of b ("none or selective"), each once,
 * in alphabetical order, so that the same choice reads the same wherever
 * it stands */
static void tok_union(char *a, const char *b)
{
    char both[2 * TIE_TOK + 8], *alt[TIE_TOKS];
    int n = 0;
    snprintf(both, sizeof both, "%s or %s", a, b);
    for (char *p = both; p && n < TIE_TOKS;) {
        char *q = strstr(p, " or ");
        if (q)
            *q = '\0';
        alt[n++] = p;
        p = q ? q + 4 : NULL;
    }
    qsort(alt, (size_t)n, sizeof alt[0], cmp_str);
    size_t used = 0;
    a[0] = '\0';
    for (int i = 0; i < n && used < TIE_TOK; i++)
        if (i == 0 || strcmp(alt[i], alt[i - 1]) != 0)
            used += (size_t)snprintf(a + used, TIE_TOK - used, "%s%s", used ? " or " : "",
                                     alt[i]);
}

/* The tied entries e[0..n) as one description: alternatives that differ
 * in one part only merge into "none or selective" there; what stays apart
 * is listed in `others` by the parts that differ from the first. */
void pb_plan_tie_words(const pb_plan_entry_t *e, size_t n, char *desc, size_t dlen, char *others,
                       size_t olen)
{
    alt_t *a = calloc(n, sizeof *a); /* zeroed: GCC cannot tell every entry is split below */
    if (a == NULL) {
        pb_plan_describe(&e[0], desc, dlen);
        snprintf(others, olen, "%zu alternatives of the same time", n - 1);
        return;
    }
    size_t live = n;
    for (size_t i = 0; i < n; i++) {
        char d[256];
        pb_plan_describe(&e[i], d, sizeof d);
        alt_split(d, &a[i]);
    }
    for (int merged = 1; merged;) {
        merged = 0;
        for (size_t i = 0; i < live && !merged; i++)
            for (size_t j = i + 1; j < live && !merged; j++) {
                int k = alt_one_diff(&a[i], &a[j]);
                if (k < 0)
                    continue;
                tok_union(a[i].tok[k], a[j].tok[k]);
                a[j] = a[--live];
                merged = 1;
            }
    }
    alt_join(&a[0], desc, dlen);
    size_t used = 0;
    others[0] = '\0';
    for (size_t j = 1; j < live && used < olen; j++) {
        used += (size_t)snprintf(others + used, olen - used, "%s", j > 1 ? "; " : "");
        int first = 1;
        for (int i = 0; i < a[j].n && used < olen; i++)
            if (i >= a[0].n || strcmp(a[j].tok[i], a[0].tok[i]) != 0) {
                used += (size_t)snprintf(others + used, olen - used, "%s%s", first ? "" : ", ",
                                         a[j].tok[i]);
                first = 0;
            }
    }
    free(a);
}

/* entries i.. that take the same time as e[i] (to a part in 10^9: the
 * same arithmetic, not a near miss) */
size_t pb_plan_tie_run(const pb_plan_result_t *r, size_t i)
{
    size_t j = i + 1;
    while (j < r->n && r->e[j].st.total - r->e[i].st.total <= 1e-9 * r->e[i].st.total)
        j++;
    return j - i;
}
