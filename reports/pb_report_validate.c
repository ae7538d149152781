/* pb_report_validate.c - the "Link validation" section: parbench
 * validate's pair rows (pattern validate, group "pair:A-B") as a rank x
 * rank matrix of GB/s, each cell coloured by how close the pair came to
 * what its link should reach, and a table of the pairs that are not ok.
 * The matrix is what shows a pattern at a glance (one bad rank is a slow
 * row and column, one bad cable a single cell); the table is the record. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_report.h"

/* Past 64 ranks a W x W matrix is wider than any page a person reads:
 * the listing alone says what matters.  The listing itself stops at
 * PB_VLIST_MAX rows so that a cluster-wide run cannot make a page of
 * megabytes. */
enum { PB_VMATRIX_MAX = 64, PB_VLIST_MAX = 512 };
/* validate's default --min-ratio: a file written before rows carried a
 * verdict lists the pairs below it, the nearest thing to its verdict */
#define PB_VMIN_RATIO 0.8

typedef enum { V_OK, V_SLOW, V_CLEARED, V_NOTJ, V_NONE, V_OTHER, V_KINDS } vkind_t;

typedef struct vpair {
    const pb_result_t *r;
    size_t idx; /* row order: of two rows of one pair the later wins */
    int a, b;   /* a < b */
    double med; /* median GB/s of the shown pairs of its link class */
    vkind_t kind;
} vpair_t;

typedef struct vset {
    vpair_t *p;
    size_t n;
    int world;
    size_t repeated, unparsed;
} vset_t;

static int is_validate(const pb_result_t *r)
{
    return strcmp(r->pattern, "validate") == 0;
}

/* "pair:A-B" as validate writes it; either order is taken. */
static int parse_pair(const char *g, int *a, int *b)
{
    int n = 0;
    if (sscanf(g, "pair:%d-%d%n", a, b, &n) != 2 || g[n] != '\0' || *a < 0 || *b < 0 ||
        *a == *b)
        return 0;
    if (*a > *b) {
        int t = *a;
        *a = *b;
        *b = t;
    }
    return *b < INT_MAX;
}

/* A verdict is one word or two, possibly followed by ": cause". */
static int verdict_is(const char *v, const char *word)
{
    size_t n = strlen(word);
    return strncmp(v, word, n) == 0 && (v[n] == '\0' || v[n] == ':');
}

static vkind_t verdict_kind(const char *v)
{
    if (v[0] == '\0')
        return V_NONE;
    if (verdict_is(v, "ok"))
        return V_OK;
    if (verdict_is(v, "slow"))
        return V_SLOW;
    if (verdict_is(v, "cleared"))
        return V_CLEARED;
    if (verdict_is(v, "not judged"))
        return V_NOTJ;
    return V_OTHER;
}

static int by_pair(const void *x, const void *y)
{
    const vpair_t *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    return p->idx < q->idx ? -1 : p->idx > q->idx;
}

static int by_class(const void *x, const void *y)
{
    const vpair_t *p = *(const vpair_t *const *)x, *q = *(const vpair_t *const *)y;
    int c = strcmp(p->r->link_class, q->r->link_class);
    if (c != 0)
        return c;
    return p->r->busbw_gbps < q->r->busbw_gbps ? -1 : p->r->busbw_gbps > q->r->busbw_gbps;
}

/* Each pair's class median: what a pair without an expectation is
 * measured against (the same yardstick validate judges by, over the
 * whole file instead of one round). */
static int class_medians(vset_t *s, pb_err_t *err)
{
    vpair_t **q = malloc((s->n ? s->n : 1) * sizeof *q);
    if (q == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory building the report");
    for (size_t i = 0; i < s->n; i++)
        q[i] = &s->p[i];
    qsort(q, s->n, sizeof *q, by_class);
    for (size_t i = 0; i < s->n;) {
        size_t j = i;
        while (j < s->n && strcmp(q[j]->r->link_class, q[i]->r->link_class) == 0)
            j++;
        size_t m = j - i;
        double med = m % 2 ? q[i + m / 2]->r->busbw_gbps
                           : (q[i + m / 2 - 1]->r->busbw_gbps + q[i + m / 2]->r->busbw_gbps) / 2.0;
        for (size_t k = i; k < j; k++)
            q[k]->med = med;
        i = j;
    }
    free(q);
    return PB_OK;
}

/* The shown rows' pairs, one per pair (an --all-runs page may hold a
 * pair twice: the newer row stands, as on the bandwidth curves). */
static int collect(const pb_report_in_t *in, vset_t *s, pb_err_t *err)
{
    memset(s, 0, sizeof *s);
    size_t n = 0;
    for (size_t i = 0; i < in->nrows; i++)
        n += is_validate(&in->rows[i]);
    s->p = malloc((n ? n : 1) * sizeof *s->p);
    if (s->p == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory building the report");
    for (size_t i = 0; i < in->nrows; i++) {
        const pb_result_t *r = &in->rows[i];
        if (!is_validate(r))
            continue;
        vpair_t p = {r, i, 0, 0, 0.0, verdict_kind(r->verdict)};
        if (!parse_pair(r->group, &p.a, &p.b)) {
            s->unparsed++;
            continue;
        }
        s->p[s->n++] = p;
    }
    qsort(s->p, s->n, sizeof *s->p, by_pair);
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (k > 0 && s->p[k - 1].a == s->p[i].a && s->p[k - 1].b == s->p[i].b) {
            s->p[k - 1] = s->p[i];
            s->repeated++;
        } else {
            s->p[k++] = s->p[i];
        }
    }
    s->n = k;
    for (size_t i = 0; i < s->n; i++) {
        if (s->p[i].r->world > s->world)
            s->world = s->p[i].r->world;
        if (s->p[i].b + 1 > s->world)
            s->world = s->p[i].b + 1;
    }
    return class_medians(s, err);
}

/* The cell's measure: the share of the expectation where one is known,
 * else the ratio to the class median. */
static double pair_value(const vpair_t *p)
{
    if (p->r->expect_gbps > 0.0)
        return p->r->busbw_gbps / p->r->expect_gbps;
    return p->med > 0.0 ? p->r->busbw_gbps / p->med : 0.0;
}

/* Five colour steps, not a gradient: a reader compares a cell with the
 * legend, and a test can name the step a pair falls in. */
static int bucket(double v)
{
    return v >= 0.9 ? 4 : v >= 0.75 ? 3 : v >= 0.6 ? 2 : v >= 0.4 ? 1 : 0;
}

static int listed(const vpair_t *p)
{
    return p->kind == V_NONE ? pair_value(p) < PB_VMIN_RATIO : p->kind != V_OK;
}

/* GB/s with as many digits as tell pairs apart, never an exponent for
 * the rates links have (0.001 .. 10,000 GB/s). */
static void gbps_text(char *s, size_t n, double v)
{
    snprintf(s, n, v >= 100.0 ? "%.0f" : "%.3g", v);
}

static const char *cls_name(const pb_result_t *r)
{
    return r->link_class[0] ? r->link_class : "unknown class";
}

/* The cell's title: everything the colour stands for, in words. */
static void describe(const vpair_t *p, pb_sbuf_t *out)
{
    const pb_result_t *r = p->r;
    char g[32], e[32], m[32];
    gbps_text(g, sizeof g, r->busbw_gbps);
    gbps_text(e, sizeof e, r->expect_gbps);
    gbps_text(m, sizeof m, p->med);
    pb_sbuf_printf(out, "pair %d-%d, ", p->a, p->b);
    pb_sbuf_xml(out, cls_name(r));
    if (r->expect_gbps > 0.0) {
        pb_sbuf_printf(out, ": %s GB/s, %.1f %% of the expected %s GB/s; ", g,
                       100.0 * pair_value(p), e);
    } else {
        pb_sbuf_printf(out, ": %s GB/s, %.2f x the ", g, pair_value(p));
        pb_sbuf_xml(out, cls_name(r));
        pb_sbuf_printf(out, " median %s GB/s; ", m);
    }
    pb_sbuf_xml(out, r->verdict[0] ? r->verdict : "no verdict");
}

static void summary(const vset_t *s, pb_sbuf_t *out)
{
    size_t cnt[V_KINDS] = {0}, nexp = 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < s->n; i++) {
        const pb_result_t *r = s->p[i].r;
        cnt[s->p[i].kind]++;
        nexp += r->expect_gbps > 0.0;
        lo = r->bytes < lo ? r->bytes : lo;
        hi = r->bytes > hi ? r->bytes : hi;
    }
    char blo[32] = "-", bhi[32];
    if (s->n > 0)
        pb_report_bytes(blo, sizeof blo, (double)lo);
    pb_report_bytes(bhi, sizeof bhi, (double)hi);
    pb_sbuf_printf(out, "<p id=\"validate-summary\">%zu pairs of %d ranks at %s%s%s per "
                        "exchange: %zu slow, %zu cleared, %zu ok, %zu not judged",
                   s->n, s->world, blo, lo != hi && s->n > 0 ? " .. " : "",
                   lo != hi && s->n > 0 ? bhi : "", cnt[V_SLOW], cnt[V_CLEARED], cnt[V_OK],
                   cnt[V_NOTJ]);
    if (cnt[V_NONE])
        pb_sbuf_printf(out, ", %zu without a verdict", cnt[V_NONE]);
    if (cnt[V_OTHER])
        pb_sbuf_printf(out, ", %zu other", cnt[V_OTHER]);
    pb_sbuf_printf(out, ".  Expected bandwidth known for %zu of them.</p>\n", nexp);
    if (cnt[V_NONE] == s->n && s->n > 0)
        pb_sbuf_printf(out, "<p class=\"note\">No verdicts in this file (written before "
                            "validate recorded them): cells are coloured by the ratio to "
                            "their class median, and the pairs below %.1f of it are listed."
                            "</p>\n", PB_VMIN_RATIO);
    if (s->repeated)
        pb_sbuf_printf(out, "<p class=\"note\">%zu pairs were measured more than once on "
                            "this page: the last row of each is shown.</p>\n", s->repeated);
    if (s->unparsed)
        pb_sbuf_printf(out, "<p class=\"note\">%zu validate rows have no "
                            "<code>pair:A-B</code> group and are not shown.</p>\n",
                       s->unparsed);
}

static void cell(const vpair_t *p, pb_sbuf_t *out)
{
    char g[32];
    gbps_text(g, sizeof g, p->r->busbw_gbps);
    pb_sbuf_printf(out, "<td class=\"q%d%s\" title=\"", bucket(pair_value(p)),
                   p->kind == V_SLOW ? " bad" : p->kind == V_CLEARED ? " clr" : "");
    describe(p, out);
    pb_sbuf_printf(out, "\">%s</td>", g);
}

static int matrix(const vset_t *s, pb_sbuf_t *out, pb_err_t *err)
{
    size_t w = (size_t)s->world;
    const vpair_t **at = calloc(w > 0 ? w * w : 1, sizeof *at);
    if (at == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory building the report");
    for (size_t i = 0; i < s->n; i++) {
        at[(size_t)s->p[i].a * w + (size_t)s->p[i].b] = &s->p[i];
        at[(size_t)s->p[i].b * w + (size_t)s->p[i].a] = &s->p[i];
    }
    pb_sbuf_puts(out, "<table class=\"vmatrix\" id=\"validate-matrix\">\n<tr><th>rank</th>");
    for (size_t j = 0; j < w; j++)
        pb_sbuf_printf(out, "<th>%zu</th>", j);
    pb_sbuf_puts(out, "</tr>\n");
    for (size_t i = 0; i < w; i++) {
        pb_sbuf_printf(out, "<tr><th>%zu</th>", i);
        for (size_t j = 0; j < w; j++) {
            if (i == j)
                pb_sbuf_puts(out, "<td>X</td>");
            else if (at[i * w + j] == NULL)
                pb_sbuf_puts(out, "<td></td>");
            else
                cell(at[i * w + j], out);
        }
        pb_sbuf_puts(out, "</tr>\n");
    }
    pb_sbuf_puts(out, "</table>\n<p class=\"note\">Colour, the share of the expected "
                      "bandwidth (of the class median where none is known): "
                      "<span class=\"q4\">90 % or more</span> <span class=\"q3\">75 to 90 %"
                      "</span> <span class=\"q2\">60 to 75 %</span> <span class=\"q1\">40 to "
                      "60 %</span> <span class=\"q0\">under 40 %</span>; outlined bold: slow, "
                      "dashed: cleared.  Hover a cell for its class, share and verdict.</p>\n");
    free(at);
    return PB_OK;
}

static void list_row(const vpair_t *p, pb_sbuf_t *out)
{
    const pb_result_t *r = p->r;
    char g[32], e[32] = "-", sh[32] = "-";
    gbps_text(g, sizeof g, r->busbw_gbps);
    if (r->expect_gbps > 0.0) {
        gbps_text(e, sizeof e, r->expect_gbps);
        snprintf(sh, sizeof sh, "%.1f %%", 100.0 * r->busbw_gbps / r->expect_gbps);
    }
    pb_sbuf_printf(out, "<tr%s><td class=\"l\">%d-%d</td><td class=\"l\">",
                   p->kind == V_SLOW ? " class=\"bad\"" : "", p->a, p->b);
    pb_sbuf_xml(out, r->link_class);
    pb_sbuf_printf(out, "</td><td>%s</td><td>%s</td><td>%s</td><td>%.2f</td><td class=\"l\">",
                   g, e, sh, p->med > 0.0 ? r->busbw_gbps / p->med : 0.0);
    pb_sbuf_xml(out, r->verdict[0] ? r->verdict : "no verdict");
    pb_sbuf_puts(out, "</td></tr>\n");
}

/* The pairs that need a look, slow ones first (what an operator acts on),
 * then cleared, not judged and anything else, in rank order. */
static void listing(const vset_t *s, pb_sbuf_t *out)
{
    size_t total = 0, shown = 0;
    for (size_t i = 0; i < s->n; i++)
        total += listed(&s->p[i]);
    if (total == 0) {
        pb_sbuf_puts(out, s->n ? "<p>Every pair is ok.</p>\n" : "");
        return;
    }
    pb_sbuf_puts(out, "<h3 id=\"validate-pairs\">Pairs that are not ok</h3>\n<table>\n"
                      "<tr><th class=\"l\">pair</th><th class=\"l\">link</th><th>GB/s</th>"
                      "<th>expected (GB/s)</th><th>share of expected</th>"
                      "<th>x class median</th><th class=\"l\">verdict</th></tr>\n");
    for (int slow = 1; slow >= 0; slow--)
        for (size_t i = 0; i < s->n && shown < PB_VLIST_MAX; i++)
            if (listed(&s->p[i]) && (s->p[i].kind == V_SLOW) == slow) {
                list_row(&s->p[i], out);
                shown++;
            }
    pb_sbuf_puts(out, "</table>\n");
    if (shown < total)
        pb_sbuf_printf(out, "<p class=\"note\">%zu more not shown (at most %d are listed)."
                            "</p>\n", total - shown, PB_VLIST_MAX);
}

int pb_report_validate(const pb_report_in_t *in, pb_sbuf_t *out, pb_err_t *err)
{
    int any = 0;
    for (size_t i = 0; i < in->nrows && !any; i++)
        any = is_validate(&in->rows[i]);
    if (!any)
        return PB_OK;
    vset_t s;
    int rc = collect(in, &s, err);
    if (rc == PB_OK) {
        pb_sbuf_puts(out, "<h2 id=\"validate\">Link validation</h2>\n<p>Send/recv bandwidth "
                          "of rank pairs from <code>parbench validate</code>, GB/s per "
                          "direction.  A cell's colour is its share of the bandwidth its link "
                          "should reach where that is known, else its ratio to the median of "
                          "the pairs of its link class.  Verdicts: slow (confirmed when "
                          "measured again alone), cleared (slow in its round, fast alone: "
                          "noise), not judged (nothing to compare with).</p>\n");
        summary(&s, out);
        if (s.n > 0 && s.world <= PB_VMATRIX_MAX)
            rc = matrix(&s, out, err);
        else if (s.n > 0)
            pb_sbuf_printf(out, "<p class=\"note\">%d ranks: a %d x %d matrix is too large "
                                "to read, so it is not drawn; the pairs that are not ok are "
                                "listed instead.</p>\n", s.world, s.world, s.world);
    }
    if (rc == PB_OK)
        listing(&s, out);
    free(s.p);
    return rc;
}
