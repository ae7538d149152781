#include "pb_plot.h"

#include <errno.h>
#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Colour map 0: 0 background (white), 1 ink (axes, text), 2.. series
 * (the Tableau 10 palette: distinguishable, also in grey-scale print). */
static void set_palette(void)
{
    static const unsigned char pal[PB_PLOT_COLORS][3] = {
        {31, 119, 180}, {255, 127, 14}, {44, 160, 44},  {214, 39, 40},   {148, 103, 189},
        {140, 86, 75},  {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207}};
    plscmap0n(2 + PB_PLOT_COLORS);
    plscol0(0, 255, 255, 255);
    plscol0(1, 30, 30, 30);
    for (int i = 0; i < PB_PLOT_COLORS; i++)
        plscol0(2 + i, pal[i][0], pal[i][1], pal[i][2]);
}

typedef struct plot_file {
    char path[64];
    PLINT stream, prev;
} plot_file_t;

/* A fresh stream drawing into a fresh temporary file. */
static int begin(plot_file_t *pf, double w, double h, pb_err_t *err)
{
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || *tmp == '\0' || strlen(tmp) > 40)
        tmp = "/tmp";
    snprintf(pf->path, sizeof pf->path, "%s/parbench-plot-XXXXXX", tmp);
    int fd = mkstemp(pf->path);
    if (fd < 0)
        return pb_err_set(err, PB_ERUNTIME, "cannot create a temporary file in %s: %s", tmp,
                          strerror(errno));
    close(fd);
    plgstrm(&pf->prev);
    plmkstrm(&pf->stream);
    if (pf->stream < 0) {
        unlink(pf->path);
        return pb_err_set(err, PB_ERUNTIME, "PLplot: no free stream");
    }
    plsdev("svg");
    plsfnam(pf->path);
    plspage(0.0, 0.0, (PLINT)w, (PLINT)h, 0, 0);
    set_palette();
    plinit();
    pladv(0);
    plschr(0.0, 0.75);
    return PB_OK;
}

/* Ends the stream and appends the file's <svg ...>...</svg> to out. */
static int finish(plot_file_t *pf, pb_sbuf_t *out, pb_err_t *err)
{
    plend1();
    plsstrm(pf->prev);
    FILE *f = fopen(pf->path, "r");
    if (f == NULL) {
        unlink(pf->path);
        return pb_err_set(err, PB_ERUNTIME, "PLplot wrote no SVG (%s)", pf->path);
    }
    pb_sbuf_t b;
    pb_sbuf_init(&b);
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        pb_sbuf_add(&b, chunk, n);
    fclose(f);
    unlink(pf->path);
    const char *svg = b.s ? strstr(b.s, "<svg") : NULL;
    int rc = PB_OK;
    if (b.oom)
        rc = pb_err_set(err, PB_ERUNTIME, "out of memory reading a plot");
    else if (svg == NULL)
        rc = pb_err_set(err, PB_ERUNTIME, "PLplot's SVG has no <svg> element");
    else
        pb_sbuf_puts(out, svg);
    pb_sbuf_free(&b);
    return rc;
}

static void fmt_bytes(double v, char *s, size_t n)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        u++;
    }
    snprintf(s, n, "%.0f %s", v, unit[u]);
}

/* A decade's label, never longer than 4 characters so that no margin
 * clips it: 0.01, 0.1, 1, 10, 100, then 1e3, 1e4 ... (and 1e-3 ...),
 * where %.0f wrote 1000000000000 and PLplot's margin kept "000000000". */
static void decade_label(double v, char *s, size_t n)
{
    double k = round(v);
    if (fabs(v - k) > 1e-6) /* not a decade (the axes here tick decades only) */
        snprintf(s, n, "%.2g", pow(10.0, v));
    else if (k >= -2.0 && k <= 2.0)
        snprintf(s, n, "%g", pow(10.0, k));
    else
        snprintf(s, n, "1e%d", (int)k);
}

/* A linear axis's label: %g of the tick, rounded to the tick's own digits
 * (0.30000000000000004 is 0.3). */
static void linear_label(double v, char *s, size_t n)
{
    snprintf(s, n, "%g", fabs(v) < 1e-12 ? 0.0 : v);
}

/* Tick labels: sizes on a log2(bytes) x axis, the quantity itself (not
 * its log) on a log10 y axis; data points at {x_log2_bytes, y_log10}. */
static void axis_label(PLINT axis, PLFLT value, PLCHAR_NC_VECTOR label, PLINT length,
                       PLPointer data)
{
    const int *log = data;
    if (axis == PL_X_AXIS && log[0])
        fmt_bytes(pow(2.0, value), label, (size_t)length);
    else if (axis == PL_Y_AXIS && log[1])
        decade_label(value, label, (size_t)length);
    else
        linear_label(value, label, (size_t)length);
}

/* The range of the points drawn: finite ones only (a log axis gets no
 * point at or below zero from its callers, whose log10 is -inf). */
static void bounds(const pb_line_plot_t *p, double *x0, double *x1, double *y0, double *y1)
{
    double ylo = INFINITY, yhi = -INFINITY;
    *x0 = INFINITY;
    *x1 = -INFINITY;
    for (size_t s = 0; s < p->nseries; s++)
        for (size_t i = 0; i < p->series[s].n; i++) {
            const double x = p->series[s].x[i], y = p->series[s].y[i];
            if (!isfinite(x) || !isfinite(y))
                continue;
            *x0 = fmin(*x0, x);
            *x1 = fmax(*x1, x);
            ylo = fmin(ylo, y);
            yhi = fmax(yhi, y);
        }
    if (!isfinite(*x0)) {
        *x0 = 0.0;
        *x1 = 1.0;
        ylo = yhi = 0.0;
    }
    if (*x1 - *x0 < 2.0) { /* one or two sizes: room on both sides */
        *x0 -= 1.0;
        *x1 += 1.0;
    }
    if (p->y_log10) {
        /* the whole decades around the data and no more: the legend sits
         * outside the box, so nothing needs room above the data (it once
         * took decades of headroom, up to 1e12 us over data below 1e5) */
        *y0 = floor(ylo);
        *y1 = ceil(yhi);
        if (*y1 <= *y0)
            *y1 = *y0 + 1.0;
    } else {
        *y0 = 0.0;
        *y1 = yhi > 0.0 ? yhi * 1.05 : 1.0;
    }
}

/* A linear axis's tick step: 1, 2 or 5 x 10^k, 4 to 10 ticks over top. */
static double linear_step(double top)
{
    double raw = top / 5.0, mag = pow(10.0, floor(log10(raw)));
    double m = raw / mag;
    return mag * (m <= 1.0 ? 1.0 : m <= 2.0 ? 2.0 : m <= 5.0 ? 5.0 : 10.0);
}

/* The longest y tick label the axis will carry, in characters. */
static size_t y_label_chars(const pb_line_plot_t *p, double y0, double y1, double ytick)
{
    size_t most = 1;
    char s[32];
    for (double v = y0; v <= y1 + ytick * 1e-6; v += ytick) {
        if (p->y_log10)
            decade_label(v, s, sizeof s);
        else
            linear_label(v, s, sizeof s);
        most = strlen(s) > most ? strlen(s) : most;
    }
    return most;
}

/* The window over the data, the box, its ticks and labels.  The left
 * margin and the y title's place follow from the longest y label, so
 * neither the page's edge clips a label nor a label runs into the title.
 * In PLplot's character heights (ch): the svg device writes text at 1.3
 * ch, a digit of the browsers' sans-serif (DejaVu Sans: 0.636 em) is then
 * 0.83 ch wide, labels end 0.5 ch left of the box, and the rotated title
 * reaches 0.83 ch right and 0.47 ch left of its place: so the title goes
 * 1.7 + 0.85 ch per label character from the box, the box 1 ch further
 * (measured on PLplot 5.15's svg in Chromium 156). */
static void axes(const pb_line_plot_t *p, double right)
{
    double x0, x1, y0, y1;
    bounds(p, &x0, &x1, &y0, &y1);
    double xtick = 0.0, ytick;
    if (p->x_log2_bytes) { /* a tick every x4 or more, labels as sizes */
        xtick = 2.0;
        while ((x1 - x0) / xtick > 8.0)
            xtick *= 2.0;
    }
    if (p->y_log10) { /* a tick every decade, or every other one */
        ytick = 1.0;
        while ((y1 - y0) / ytick > 8.0)
            ytick *= 2.0;
    } else {
        ytick = linear_step(y1);
    }
    PLFLT def, ch, px0, px1, py0, py1;
    plgchr(&def, &ch); /* the character height, mm */
    plgspa(&px0, &px1, &py0, &py1); /* the page, mm */
    double title = 1.7 + 0.85 * (double)y_label_chars(p, y0, y1, ytick);
    double left = (title + 1.0) * ch / (px1 - px0);
    /* right of `right`: the legend, outside the box */
    plvpor(left, right, 0.12, 0.91);
    plwind(x0, x1, y0, y1);
    plcol0(1);
    int log[2] = {p->x_log2_bytes, p->y_log10};
    plslabelfunc(axis_label, log);
    plbox(p->x_log2_bytes ? "bcnsto" : "bcnst", xtick, 0,
          p->y_log10 ? "bcnstglov" : "bcnstgov", ytick, 0);
    plslabelfunc(NULL, NULL); /* `log` ends here */
    pllab(p->xlabel, "", p->title);
    plmtex("l", title, 0.5, 0.5, p->ylabel);
}

/* The legend's arrays, one entry per series. */
typedef struct legend {
    PLINT *opts, *colors, *styles, *snum;
    PLFLT *widths, *sscale;
    const char **names, **syms;
} legend_t;

static int legend_alloc(legend_t *g, size_t ns)
{
    size_t n = ns ? ns : 1;
    g->opts = calloc(n, sizeof *g->opts);
    g->colors = calloc(n, sizeof *g->colors);
    g->styles = calloc(n, sizeof *g->styles);
    g->snum = calloc(n, sizeof *g->snum);
    g->widths = calloc(n, sizeof *g->widths);
    g->sscale = calloc(n, sizeof *g->sscale);
    g->names = calloc(n, sizeof *g->names);
    g->syms = calloc(n, sizeof *g->syms);
    return g->opts && g->colors && g->styles && g->snum && g->widths && g->sscale && g->names &&
           g->syms;
}

static void legend_free(legend_t *g)
{
    free(g->opts);
    free(g->colors);
    free(g->styles);
    free(g->snum);
    free(g->widths);
    free(g->sscale);
    free(g->names);
    free(g->syms);
}

/* Series s drawn, and its legend entry filled. */
static void draw_series(const pb_series_t *se, legend_t *g, size_t s)
{
    g->colors[s] = 2 + se->color % PB_PLOT_COLORS;
    g->styles[s] = se->dashed ? 2 : 1;
    g->widths[s] = se->dashed ? 1.0 : 1.5;
    g->names[s] = se->name;
    g->syms[s] = "#(728)"; /* a filled circle (Hershey 728) */
    g->sscale[s] = 0.6;
    g->snum[s] = 1;
    g->opts[s] = PL_LEGEND_LINE | (se->dashed ? 0 : PL_LEGEND_SYMBOL);
    plcol0(g->colors[s]);
    pllsty(g->styles[s]);
    plwidth(g->widths[s]);
    if (se->n > 1)
        plline((PLINT)se->n, se->x, se->y);
    if (!se->dashed)
        plstring((PLINT)se->n, se->x, se->y, g->syms[s]);
}

/* A legend column's width, points, as PLplot 5.15 draws its box at the
 * legend's size: 172 for the sample line and the gaps, 5.8 a character
 * of the longest name (measured: 23 and 36 characters in one column
 * 275 and 350 points wide, 3 columns of 13 characters 712, on a page
 * wide enough; browsers draw the text narrower than the box) */
static double legend_column(const pb_line_plot_t *p)
{
    size_t most = 8;
    for (size_t s = 0; s < p->nseries; s++)
        if (p->series[s].name != NULL && strlen(p->series[s].name) > most)
            most = strlen(p->series[s].name);
    return 172.0 + 5.8 * (double)most;
}

int pb_plot_lines(const pb_line_plot_t *p, pb_sbuf_t *out, pb_err_t *err)
{
    plot_file_t pf;
    /* the box keeps the page's left 670 points; the legend goes beside
     * it (12 points on, the 0.02 of the box's width pllegend is given),
     * in columns of at most 16 entries (16 fill the page's height: about
     * 19 points each) as wide as the longest name, less 30 points (one
     * column's padding is counted once), and 8 points of margin */
    size_t ns = p->nseries;
    int ncol = ns > 16 ? (int)((ns + 15) / 16) : 1;
    double width = 670.0 + 12.0 + ncol * legend_column(p) - 30.0 + 8.0;
    int rc = begin(&pf, width, 380, err);
    if (rc != PB_OK)
        return rc;
    /* PLplot sizes its characters from the page: fixed at 10 points
     * (13.3 at the default scale 0.75, the size on a 960-point page), so
     * that a page as wide as its legend does not change its text */
    PLFLT x0, x1, y0, y1;
    plgspa(&x0, &x1, &y0, &y1);
    plschr(13.333 * (x1 - x0) / width, 0.75);
    axes(p, 670.0 / width);
    legend_t g;
    if (!legend_alloc(&g, ns))
        rc = pb_err_set(err, PB_ERUNTIME, "out of memory drawing a plot");
    for (size_t s = 0; s < ns && rc == PB_OK; s++)
        draw_series(&p->series[s], &g, s);
    pllsty(1);
    plwidth(1.0);
    if (rc == PB_OK && ns > 0) {
        PLFLT lw, lh;
        plschr(0.0, 0.6);
        /* outside, right of the box: inside, a dozen lines' legend hid
         * data or needed decades of empty axis above it */
        pllegend(&lw, &lh, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
                 PL_POSITION_RIGHT | PL_POSITION_OUTSIDE, 0.02, 0.0, 0.06, 0,
                 1, 1, (PLINT)((ns + (size_t)ncol - 1) / (size_t)ncol), ncol, (PLINT)ns, g.opts,
                 0.8, 0.6, 2.4, 0.0, g.colors, g.names,
                 NULL, NULL, NULL, NULL, g.colors, g.styles, g.widths, g.colors, g.sscale,
                 g.snum, g.syms);
    }
    legend_free(&g);
    int rc2 = finish(&pf, out, err);
    return rc != PB_OK ? rc : rc2;
}

int pb_plot_bars(const pb_bar_plot_t *p, pb_sbuf_t *out, pb_err_t *err)
{
    plot_file_t pf;
    int rc = begin(&pf, 720, 120 + 50 * (double)(p->nbars < 4 ? 4 : p->nbars), err);
    if (rc != PB_OK)
        return rc;
    /* horizontal bars: long layout names fit on the left */
    double top = 0.0;
    for (size_t i = 0; i < p->nbars; i++) {
        double s = 0.0;
        for (size_t j = 0; j < p->nparts; j++)
            s += fmax(0.0, p->v[i * p->nparts + j]);
        top = fmax(top, s);
    }
    top = top > 0.0 ? top * 1.05 : 1.0;
    plvpor(0.27, 0.80, 0.12, 0.88);
    plwind(0.0, top, 0.0, (double)p->nbars);
    plcol0(1);
    plbox("bcnstg", 0.0, 0, "bc", 0.0, 0);
    pllab(p->ylabel, "", p->title);
    for (size_t i = 0; i < p->nbars; i++) {
        double x = 0.0, yb = (double)(p->nbars - 1 - i) + 0.2, yt = yb + 0.6;
        for (size_t j = 0; j < p->nparts; j++) {
            double w = fmax(0.0, p->v[i * p->nparts + j]);
            PLFLT px[4] = {x, x + w, x + w, x}, py[4] = {yb, yb, yt, yt};
            plcol0(2 + (PLINT)(j % PB_PLOT_COLORS));
            if (w > 0.0)
                plfill(4, px, py);
            x += w;
        }
        plcol0(1);
        plptex(-top * 0.02, yb + 0.3, 1.0, 0.0, 1.0, p->bars[i]);
    }
    size_t np = p->nparts;
    PLINT *opts = calloc(np ? np : 1, sizeof *opts);
    PLINT *colors = calloc(np ? np : 1, sizeof *colors);
    PLINT *pat = calloc(np ? np : 1, sizeof *pat);
    PLFLT *sc = calloc(np ? np : 1, sizeof *sc);
    PLFLT *bw = calloc(np ? np : 1, sizeof *bw);
    if (!opts || !colors || !pat || !sc || !bw) {
        rc = pb_err_set(err, PB_ERUNTIME, "out of memory drawing a plot");
    } else if (np > 0) {
        for (size_t j = 0; j < np; j++) {
            opts[j] = PL_LEGEND_COLOR_BOX;
            colors[j] = 2 + (PLINT)(j % PB_PLOT_COLORS);
            sc[j] = 0.8;
            bw[j] = 1.0;
        }
        PLFLT lw, lh;
        plschr(0.0, 0.6);
        pllegend(&lw, &lh, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
                 PL_POSITION_RIGHT | PL_POSITION_OUTSIDE, 0.02, 0.0, 0.06, 0,
                 1, 1, (PLINT)np, 1, (PLINT)np, opts, 0.8, 0.6, 2.4, 0.0, colors,
                 (const char *const *)p->parts, colors, pat, sc, bw, NULL, NULL, NULL, NULL,
                 NULL, NULL, NULL);
    }
    free(opts);
    free(colors);
    free(pat);
    free(sc);
    free(bw);
    int rc2 = finish(&pf, out, err);
    return rc != PB_OK ? rc : rc2;
}
