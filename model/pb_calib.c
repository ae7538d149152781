#include "pb_calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void pb_calib_init(pb_calib_t *k)
{
    memset(k, 0, sizeof *k);
}

void pb_calib_free(pb_calib_t *k)
{
    free(k->c);
    memset(k, 0, sizeof *k);
}

int pb_calib_add(pb_calib_t *k, const pb_curve_t *c, pb_err_t *err)
{
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 8;
        pb_curve_t *p = realloc(k->c, cap * sizeof *p);
        if (p == NULL)
            return pb_err_set(err, PB_ERUNTIME, "out of memory for the calibration");
        k->c = p;
        k->cap = cap;
    }
    k->c[k->n++] = *c;
    return PB_OK;
}

int pb_calib_coll_parse(const char *s, pb_coll_t *out)
{
    pb_coll_t c;
    if (pb_coll_parse(s, &c) != 0 || c == PB_BROADCAST || c == PB_REDUCE)
        return -1;
    *out = c;
    return 0;
}

/* a least-squares numerator within this fraction of its two products has
 * cancelled to rounding (a double's 2.2e-16, summed over the points, far
 * below it; a term that small is no time any measurement resolves) */
#define PB_CALIB_CANCEL 1e-9

/* Weighted least squares of alpha*u + beta*v = 1 with u = 1/t, v = x/t:
 * the relative error of alpha + beta*x against t.  Non-negative. */
static void fit_line(const uint64_t *x, const double *t, size_t n, pb_piece_t *p)
{
    double suu = 0, suv = 0, svv = 0, su = 0, sv = 0;
    for (size_t i = 0; i < n; i++) {
        double u = 1.0 / t[i], v = (double)x[i] / t[i];
        suu += u * u, suv += u * v, svv += v * v, su += u, sv += v;
    }
    double det = suu * svv - suv * suv;
    double a = 0, b = 0;
    if (n >= 2 && det > 1e-12 * suu * svv) {
        double na = su * svv - sv * suv, nb = suu * sv - suv * su;
        a = na / det;
        b = nb / det;
        /* A numerator that cancels to rounding is a term the times do not
         * show: equal times at six sizes left b at +8e-18 us/B, printed as
         * 1.2e14 GB/s and taken for a bandwidth term (pb_curve_reach).
         * Within PB_CALIB_CANCEL of its parts it is zero: the one-term
         * law below. */
        if (fabs(nb) <= PB_CALIB_CANCEL * (fabs(suu * sv) + fabs(suv * su)))
            b = -1;
        else if (fabs(na) <= PB_CALIB_CANCEL * (fabs(su * svv) + fabs(sv * suv)))
            a = -1;
    } else {
        a = -1; /* one size: a pure latency */
    }
    if (a < 0 || b < 0) {
        /* the best of the two one-parameter laws */
        double a1 = su / suu, b1 = svv > 0 ? sv / svv : 0;
        double e_a = 0, e_b = 0;
        for (size_t i = 0; i < n; i++) {
            double ra = a1 / t[i] - 1, rb = b1 * (double)x[i] / t[i] - 1;
            e_a += ra * ra, e_b += rb * rb;
        }
        if (svv > 0 && e_b < e_a)
            a = 0, b = b1;
        else
            a = a1, b = 0;
    }
    p->alpha_us = a;
    p->beta_us_b = b;
    p->lo = x[0];
    p->hi = x[n - 1];
    p->npts = (int)n;
    double mx = 0, ss = 0;
    for (size_t i = 0; i < n; i++) {
        double r = fabs((a + b * (double)x[i]) / t[i] - 1.0);
        mx = r > mx ? r : mx;
        ss += r * r;
    }
    p->max_err = mx;
    p->rms_err = sqrt(ss / (double)n);
}

/* Isotonic regression (pool adjacent violators), equal weights: the
 * non-decreasing sequence nearest to t in squared error, into y. */
static void isotonic(const double *t, size_t n, double *y, double *w)
{
    size_t m = 0; /* blocks: mean y[b], size w[b] */
    for (size_t i = 0; i < n; i++) {
        y[m] = t[i], w[m] = 1.0, m++;
        while (m > 1 && y[m - 2] > y[m - 1]) {
            double tw = w[m - 2] + w[m - 1];
            y[m - 2] = (y[m - 2] * w[m - 2] + y[m - 1] * w[m - 1]) / tw;
            w[m - 2] = tw;
            m--;
        }
    }
    /* expand the blocks back to one value per size, from the end */
    size_t j = n;
    for (size_t b = m; b-- > 0;) {
        size_t len = (size_t)(w[b] + 0.5);
        for (size_t k = 0; k < len; k++)
            y[--j] = y[b];
    }
}

/* the piece's errors against the measured times */
static void piece_err(const uint64_t *x, const double *t, size_t n, pb_piece_t *p)
{
    double mx = 0, ss = 0;
    for (size_t i = 0; i < n; i++) {
        double r = fabs((p->alpha_us + p->beta_us_b * (double)x[i]) / t[i] - 1.0);
        mx = r > mx ? r : mx;
        ss += r * r;
    }
    p->max_err = mx;
    p->rms_err = sqrt(ss / (double)n);
}

int pb_curve_fit(const uint64_t *x, const double *t_meas, size_t n, double tol, pb_curve_t *c,
                 pb_err_t *err)
{
    if (n == 0)
        return pb_err_set(err, PB_EINPUT, "no points to fit");
    for (size_t i = 0; i < n; i++)
        if (!(t_meas[i] > 0) || (i && x[i] <= x[i - 1]))
            return pb_err_set(err, PB_EINPUT,
                              "fit needs positive times at increasing sizes (size %llu)",
                              (unsigned long long)x[i]);
    /* best[j]: fewest pieces covering points 0..j-1, then least error */
    int *cnt = malloc((n + 1) * sizeof *cnt);
    double *sse = malloc((n + 1) * sizeof *sse);
    size_t *from = malloc((n + 1) * sizeof *from);
    double *t = malloc(2 * n * sizeof *t);
    if (!cnt || !sse || !from || !t) {
        free(cnt), free(sse), free(from), free(t);
        return pb_err_set(err, PB_ERUNTIME, "out of memory fitting a curve");
    }
    isotonic(t_meas, n, t, t + n);
    cnt[0] = 0, sse[0] = 0;
    for (size_t j = 1; j <= n; j++) {
        cnt[j] = -1;
        for (size_t i = 0; i < j; i++) {
            size_t len = j - i;
            if (cnt[i] < 0 || (len == 1 && n > 1))
                continue;
            pb_piece_t p;
            fit_line(x + i, t + i, len, &p);
            if (len >= PB_CALIB_TOL_PTS && p.max_err > tol)
                continue;
            double s = sse[i] + p.rms_err * p.rms_err * (double)len;
            int k = cnt[i] + 1;
            if (cnt[j] < 0 || k < cnt[j] || (k == cnt[j] && s < sse[j]))
                cnt[j] = k, sse[j] = s, from[j] = i;
        }
    }
    int ok = cnt[n] > 0 && cnt[n] <= PB_CURVE_PIECES;
    if (ok) {
        c->npieces = cnt[n];
        c->tol = tol;
        size_t j = n;
        for (int k = cnt[n] - 1; k >= 0; k--) {
            size_t i = from[j];
            fit_line(x + i, t + i, j - i, &c->p[k]);
            /* what the piece is judged by: the measurements, not the
             * monotone values it was fitted to */
            piece_err(x + i, t_meas + i, j - i, &c->p[k]);
            j = i;
        }
    }
    int pieces = cnt[n];
    free(cnt), free(sse), free(from), free(t);
    if (!ok)
        return pb_err_set(err, PB_EINPUT, "the curve needs %d pieces, more than %d", pieces,
                          PB_CURVE_PIECES);
    return PB_OK;
}

static double law(const pb_piece_t *p, double x)
{
    return p->alpha_us + p->beta_us_b * x;
}

double pb_curve_eval(const pb_curve_t *c, uint64_t bytes, double *alpha_part, double *beta_part)
{
    double x = (double)bytes > 1.0 ? (double)bytes : 1.0;
    if (c->npieces <= 0) {
        if (alpha_part)
            *alpha_part = 0;
        if (beta_part)
            *beta_part = 0;
        return 0;
    }
    /* floor: the curve's value where the last piece before x ends (the
     * running maximum over the pieces passed), so no piece answers below
     * a smaller size's time */
    double floor = 0;
    int k = 0;
    while (k + 1 < c->npieces && x > (double)c->p[k].hi) {
        double end = law(&c->p[k], (double)c->p[k].hi);
        floor = end > floor ? end : floor;
        k++;
    }
    const pb_piece_t *p = &c->p[k];
    double a = p->alpha_us, b = p->beta_us_b * x;
    if (k > 0 && x < (double)p->lo) {
        /* in the gap between two pieces: the algorithm switch lies
         * somewhere in it, so blend the two laws geometrically by where x
         * sits between the last size of one and the first of the next */
        const pb_piece_t *q = &c->p[k - 1];
        double lq = log((double)q->hi), lp = log((double)p->lo);
        double w = (log(x) - lq) / (lp - lq);
        double tq = law(q, x), tp = a + b, t;
        if (law(p, (double)q->hi) >= law(q, (double)q->hi) &&
            law(p, (double)p->lo) >= law(q, (double)p->lo)) {
            /* the next law is above the last over the whole gap (both are
             * straight lines): the blend rises with x */
            t = exp((1.0 - w) * log(tq) + w * log(tp));
        } else {
            /* the next law falls below the last: blend the values at the
             * gap's two ends instead, the upper at least the lower */
            double t1 = law(q, (double)q->hi), t2 = law(p, (double)p->lo);
            t1 = t1 > floor ? t1 : floor;
            t2 = t2 > t1 ? t2 : t1;
            /* t1 x (t2/t1)^w: exactly t1 where the two are equal, and
             * never falling with w in floating point */
            t = t1 * pow(t2 / t1, w);
        }
        /* split the blend in the proportions of the two laws */
        double fa = ((1.0 - w) * q->alpha_us / tq + w * a / tp);
        a = t * fa;
        b = t - a;
    }
    double t = a + b;
    if (t < floor) {
        /* below an earlier size's time: held at it, the bandwidth part
         * taking the difference (a slower law than measured up to here is
         * not a faster link) */
        b += floor - t;
        t = floor;
    }
    if (alpha_part)
        *alpha_part = a;
    if (beta_part)
        *beta_part = b;
    return t;
}

int pb_piece_loose(const pb_curve_t *c, int k)
{
    if (k < 0 || k >= c->npieces)
        return 0;
    const pb_piece_t *p = &c->p[k];
    if (p->npts < 2)
        return 0;
    if (c->tol > 0)
        return p->max_err > c->tol;
    return p->npts < PB_CALIB_TOL_PTS && p->max_err > PB_CALIB_TOL_DEFAULT;
}

double pb_curve_err(const pb_curve_t *c, uint64_t bytes)
{
    if (c->npieces <= 0)
        return 0;
    int k = 0;
    while (k + 1 < c->npieces && bytes > c->p[k].hi)
        k++;
    double e = c->p[k].max_err;
    if (k > 0 && bytes < c->p[k].lo && c->p[k - 1].max_err > e)
        e = c->p[k - 1].max_err;
    return e;
}

uint64_t pb_curve_lo(const pb_curve_t *c)
{
    return c->npieces > 0 ? c->p[0].lo : 0;
}

uint64_t pb_curve_hi(const pb_curve_t *c)
{
    return c->npieces > 0 ? c->p[c->npieces - 1].hi : 0;
}

int pb_curve_single(const pb_curve_t *c)
{
    return c->npieces > 0 && pb_curve_lo(c) == pb_curve_hi(c);
}

/* one of dt's curves' measured sizes against c (pb_calib_dtype_ratio) */
static void ratio_at(const pb_curve_t *d, const pb_curve_t *c, uint64_t s, uint64_t x,
                     double *best_d, double *ratio, uint64_t *at)
{
    if (pb_curve_reach(c, s) != PB_REACH_IN)
        return;
    double dist = fabs(log((double)(s ? s : 1) / (double)(x ? x : 1)));
    double tc = pb_curve_eval(c, s, NULL, NULL);
    if (!(tc > 0) || (*at && dist >= *best_d))
        return;
    *best_d = dist;
    *ratio = pb_curve_eval(d, s, NULL, NULL) / tc;
    *at = s;
}

double pb_calib_dtype_ratio(const pb_calib_t *k, const pb_curve_t *c, pb_dtype_t dt,
                            uint64_t x, uint64_t *at)
{
    double ratio = 1.0, best = 0;
    uint64_t where = 0;
    for (size_t i = 0; k && i < k->n; i++) {
        const pb_curve_t *d = &k->c[i];
        if (d == c || d->any_dtype || d->dtype != dt || d->coll != c->coll || d->n != c->n ||
            d->per_node != c->per_node || strcmp(d->link, c->link) != 0)
            continue;
        for (int p = 0; p < d->npieces; p++) {
            ratio_at(d, c, d->p[p].lo, x, &best, &ratio, &where);
            ratio_at(d, c, d->p[p].hi, x, &best, &ratio, &where);
        }
    }
    if (at)
        *at = where;
    return where ? ratio : 1.0;
}

int pb_curve_reach(const pb_curve_t *c, uint64_t bytes)
{
    if (c->npieces <= 0)
        return PB_REACH_OUT;
    uint64_t lo = pb_curve_lo(c), hi = pb_curve_hi(c);
    if (bytes >= lo && bytes <= hi) {
        /* a loose piece's law is not trusted between its sizes, nor in
         * a gap beside it: its own end sizes only */
        int k = 0;
        while (k + 1 < c->npieces && bytes > c->p[k].hi)
            k++;
        if (bytes < c->p[k].lo) /* a gap between k - 1 and k */
            return pb_piece_loose(c, k - 1) || pb_piece_loose(c, k) ? PB_REACH_OUT
                                                                     : PB_REACH_IN;
        if (pb_piece_loose(c, k) && bytes != c->p[k].lo && bytes != c->p[k].hi)
            return PB_REACH_OUT;
        return PB_REACH_IN;
    }
    /* past an end held by a loose piece: no law to extend */
    if ((bytes > hi && pb_piece_loose(c, c->npieces - 1)) ||
        (bytes < lo && pb_piece_loose(c, 0)))
        return PB_REACH_OUT;
    if (pb_curve_single(c))
        return PB_REACH_OUT; /* no bandwidth from one size */
    /* in doubles: hi x 2 may not fit 64 bits */
    double x = (double)bytes;
    if (bytes > hi)
        return c->p[c->npieces - 1].beta_us_b > 0 && x <= (double)hi * PB_CALIB_EXTEND
                   ? PB_REACH_NEAR
                   : PB_REACH_OUT;
    return c->p[0].beta_us_b > 0 && x * PB_CALIB_EXTEND >= (double)lo ? PB_REACH_NEAR
                                                                        : PB_REACH_OUT;
}

typedef struct key_pt {
    pb_coll_t coll;
    int n;
    const char *link;
    int per_node;
    int dt; /* the dtype, or -1: any (a collective that does not reduce) */
    uint64_t bytes;
    double t;
} key_pt_t;

/* A reduction's curves of one key are listed by type in the order
 * calibration files have always had them (the training types first); the
 * enum's own order (core/pb_dtype.h) is the command line's. */
static int dtype_order(int dt)
{
    static const int order[PB_DTYPE_COUNT] = {
        [PB_F32] = 0, [PB_BF16] = 1, [PB_F16] = 2,    [PB_F64] = 3,
        [PB_I32] = 4, [PB_I8] = 5,   [PB_F8E4M3] = 6, [PB_F8E5M2] = 7,
        [PB_I64] = 8};
    return dt < 0 ? -1 : order[dt];
}

static int cmp_pt(const void *pa, const void *pb)
{
    const key_pt_t *a = pa, *b = pb;
    if (a->coll != b->coll)
        return a->coll < b->coll ? -1 : 1;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    int s = strcmp(a->link, b->link);
    if (s)
        return s;
    if (a->per_node != b->per_node)
        return a->per_node < b->per_node ? -1 : 1;
    if (a->dt != b->dt)
        return dtype_order(a->dt) < dtype_order(b->dt) ? -1 : 1;
    return a->bytes < b->bytes ? -1 : a->bytes > b->bytes;
}

int pb_calib_fit(const pb_meas_t *pts, size_t n, double tol, pb_calib_t *out, pb_err_t *err)
{
    key_pt_t *v = malloc((n ? n : 1) * sizeof *v);
    uint64_t *x = malloc((n ? n : 1) * sizeof *x);
    double *t = malloc((n ? n : 1) * sizeof *t);
    if (!v || !x || !t) {
        free(v), free(x), free(t);
        return pb_err_set(err, PB_ERUNTIME, "out of memory fitting");
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (pts[i].time_us > 0 && pts[i].n >= 1) {
            int dt = pb_coll_reduces(pts[i].coll) ? (int)pts[i].dtype : -1;
            key_pt_t k = {pts[i].coll,  pts[i].n,     pts[i].link,   pts[i].per_node,
                          dt,           pts[i].bytes, pts[i].time_us};
            v[m++] = k;
        }
    qsort(v, m, sizeof *v, cmp_pt);
    int code = PB_OK;
    for (size_t i = 0; i < m && code == PB_OK;) {
        size_t j = i, np = 0;
        while (j < m && v[j].coll == v[i].coll && v[j].n == v[i].n &&
               strcmp(v[j].link, v[i].link) == 0 && v[j].per_node == v[i].per_node &&
               v[j].dt == v[i].dt) {
            if (np && x[np - 1] == v[j].bytes) {
                if (v[j].t < t[np - 1]) /* the fastest of repeated sizes */
                    t[np - 1] = v[j].t;
            } else {
                x[np] = v[j].bytes, t[np] = v[j].t, np++;
            }
            j++;
        }
        pb_curve_t c;
        memset(&c, 0, sizeof c);
        c.coll = v[i].coll;
        c.n = v[i].n;
        c.per_node = v[i].per_node;
        c.any_dtype = v[i].dt < 0;
        c.dtype = v[i].dt < 0 ? PB_F32 : (pb_dtype_t)v[i].dt;
        size_t ll = strlen(v[i].link);
        memcpy(c.link, v[i].link, ll < PB_LINK_STR - 1 ? ll : PB_LINK_STR - 1);
        code = pb_curve_fit(x, t, np, tol, &c, err);
        if (code == PB_OK)
            code = pb_calib_add(out, &c, err);
        i = j;
    }
    free(v), free(x), free(t);
    return code;
}
