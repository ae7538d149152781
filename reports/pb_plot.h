/* pb_plot.h - charts as inline SVG, drawn by PLplot (its C API and its
 * built-in `svg` device, part of Debian's libplplot17).
 *
 * PLplot writes a file, so each chart goes to a private temporary file
 * (mkstemp) that is read back and removed; the XML prologue is dropped so
 * the <svg> element can sit inside the XHTML report.  Each chart uses its
 * own PLplot stream, created and ended here: nothing persists between
 * calls. */
#ifndef PB_PLOT_H
#define PB_PLOT_H

#include <stddef.h>

#include "pb_sbuf.h"
#include "../util/pb_err.h"

typedef struct pb_series {
    const char *name;
    const double *x, *y;
    size_t n;
    int dashed; /* model curves: dashed, measured: solid with markers */
    int color;  /* 0-based index into the palette; series sharing a colour
                   (measured and its model) pair up visually */
} pb_series_t;

typedef struct pb_line_plot {
    const char *title, *xlabel, *ylabel;
    int x_log2_bytes; /* x values are log2(bytes): ticks labelled 8 B, 1 KiB, ... */
    /* y values are log10 of the quantity: the axis spans the whole
     * decades around the finite points, a tick per decade labelled with
     * the quantity in at most 4 characters (0.1, 1, 10, 100, 1e3),
     * PLplot's logarithmic minor ticks between.  0: linear from 0.  The
     * legend sits right of the box, the page as wide as it needs. */
    int y_log10;
    const pb_series_t *series;
    size_t nseries;
} pb_line_plot_t;

/* Stacked bars: bar i is the sum of v[i * nparts + j] over parts j. */
typedef struct pb_bar_plot {
    const char *title, *ylabel;
    const char *const *bars;
    size_t nbars;
    const char *const *parts;
    size_t nparts;
    const double *v;
} pb_bar_plot_t;

/* Append the <svg> element to out.  PB_ERUNTIME when PLplot or the
 * temporary file fails. */
int pb_plot_lines(const pb_line_plot_t *p, pb_sbuf_t *out, pb_err_t *err);
int pb_plot_bars(const pb_bar_plot_t *p, pb_sbuf_t *out, pb_err_t *err);

/* Colours in the palette (series colours wrap around). */
#define PB_PLOT_COLORS 10

#endif
