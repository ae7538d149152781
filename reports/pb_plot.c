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

/* x values are log2(bytes): tick labels as sizes */
static void bytes_label(PLINT axis, PLFLT value, PLCHAR_NC_VECTOR label, PLINT length,
                        PLPointer data)
{
    (void)data;
    if (axis == PL_X_AXIS)
        fmt_bytes(pow(2.0, value), label, (size_t)length);
    else
        snprintf(label, (size_t)length, "%g", value);
}

static void bounds(const pb_line_plot_t *p, double *x0, double *x1, double *y1)
{
    *x0 = INFINITY;
    *x1 = -INFINITY;
    *y1 = 0.0;
    for (size_t s = 0; s < p->nseries; s++)
        for (size_t i = 0; i < p->series[s].n; i++) {
            const double x = p->series[s].x[i], y = p->series[s].y[i];
            if (!isfinite(x) || !isfinite(y))
                continue;
            *x0 = fmin(*x0, x);
            *x1 = fmax(*x1, x);
            *y1 = fmax(*y1, y);
        }
    if (!isfinite(*x0)) {
        *x0 = 0.0;
        *x1 = 1.0;
    }
    if (*x1 - *x0 < 2.0) { /* one or two sizes: room on both sides */
        *x0 -= 1.0;
        *x1 += 1.0;
    }
    /* headroom above the highest point for the legend */
    *y1 = *y1 > 0.0 ? *y1 * 1.35 : 1.0;
}

int pb_plot_lines(const pb_line_plot_t *p, pb_sbuf_t *out, pb_err_t *err)
{
    plot_file_t pf;
    int rc = begin(&pf, 720, 380, err);
    if (rc != PB_OK)
        return rc;
    double x0, x1, y1;
    bounds(p, &x0, &x1, &y1);
    plvpor(0.08, 0.97, 0.12, 0.91);
    plwind(x0, x1, 0.0, y1);
    plcol0(1);
    double xtick = 0.0;
    if (p->x_log2_bytes) { /* a tick every x4 or more, labels as sizes */
        xtick = 2.0;
        while ((x1 - x0) / xtick > 8.0)
            xtick *= 2.0;
        plslabelfunc(bytes_label, NULL);
    }
    plbox(p->x_log2_bytes ? "bcnsto" : "bcnst", xtick, 0, "bcnstgv", 0.0, 0);
    pllab(p->xlabel, p->ylabel, p->title);

    size_t ns = p->nseries;
    PLINT *opts = calloc(ns ? ns : 1, sizeof *opts);
    PLINT *colors = calloc(ns ? ns : 1, sizeof *colors);
    PLINT *styles = calloc(ns ? ns : 1, sizeof *styles);
    PLFLT *widths = calloc(ns ? ns : 1, sizeof *widths);
    PLFLT *sscale = calloc(ns ? ns : 1, sizeof *sscale);
    PLINT *snum = calloc(ns ? ns : 1, sizeof *snum);
    const char **names = calloc(ns ? ns : 1, sizeof *names);
    const char **syms = calloc(ns ? ns : 1, sizeof *syms);
    if (!opts || !colors || !styles || !widths || !sscale || !snum || !names || !syms)
        rc = pb_err_set(err, PB_ERUNTIME, "out of memory drawing a plot");
    for (size_t s = 0; s < ns && rc == PB_OK; s++) {
        const pb_series_t *se = &p->series[s];
        colors[s] = 2 + se->color % PB_PLOT_COLORS;
        styles[s] = se->dashed ? 2 : 1;
        widths[s] = se->dashed ? 1.0 : 1.5;
        names[s] = se->name;
        syms[s] = "#(728)"; /* a filled circle (Hershey 728) */
        sscale[s] = 0.6;
        snum[s] = 1;
        opts[s] = PL_LEGEND_LINE | (se->dashed ? 0 : PL_LEGEND_SYMBOL);
        plcol0(colors[s]);
        pllsty(styles[s]);
        plwidth(widths[s]);
        if (se->n > 1)
            plline((PLINT)se->n, se->x, se->y);
        if (!se->dashed)
            plstring((PLINT)se->n, se->x, se->y, syms[s]);
    }
    pllsty(1);
    plwidth(1.0);
    if (rc == PB_OK && ns > 0) {
        PLFLT lw, lh;
        plschr(0.0, 0.6);
        /* inside, top left: bandwidth curves rise to the right */
        pllegend(&lw, &lh, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
                 PL_POSITION_LEFT | PL_POSITION_INSIDE | PL_POSITION_TOP, 0.02, 0.02, 0.06, 0,
                 1, 1, (PLINT)ns, 1, (PLINT)ns, opts, 0.8, 0.6, 2.4, 0.0, colors, names, NULL,
                 NULL, NULL, NULL, colors, styles, widths, colors, sscale, snum, syms);
    }
    free(opts);
    free(colors);
    free(styles);
    free(widths);
    free(sscale);
    free(snum);
    free(names);
    free(syms);
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
