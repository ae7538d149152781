/* pb_import_priv.h - what the three log parsers share: the source as
 * numbered lines, whitespace tokens, strict numbers, row making and the
 * one place a bad line becomes an error or, with --partial, a count. */
#ifndef PB_IMPORT_PRIV_H
#define PB_IMPORT_PRIV_H

#include <stdint.h>

#include "pb_import_io.h"
#include "pb_result.h"
#include "../util/pb_err.h"

#define PB_IMP_MAXTOK 48

typedef struct pb_imp_src {
    const char *name;  /* file name: label and messages */
    char **lines;      /* NUL-terminated, '\r' removed */
    size_t nlines;
    const pb_import_opts_t *o;
    pb_import_out_t *out;
} pb_imp_src_t;

/* What a run's header says about where it ran (0 / "" unknown). */
typedef struct pb_imp_where {
    int world, nodes, group_size;
    char host[PB_RESULT_STR];
} pb_imp_where_t;

/* Splits a copy of s on blanks; returns the count, at most max (a line
 * of max tokens or more is refused as a row: no table is that wide). */
int pb_imp_tokens(const char *s, char *buf, size_t buflen, char **tok, int max);
/* The log's lines with at least one token, one at a time: `no` is the
 * line's 0-based index (for pb_imp_bad), `text` the line, tok[0..n) its
 * tokens.  Start from a zeroed cursor; pb_imp_next returns 0 at the end. */
typedef struct pb_imp_line {
    size_t next, no;
    const char *text;
    char *tok[PB_IMP_MAXTOK];
    int n;
    char buf[4096];
} pb_imp_line_t;
int pb_imp_next(const pb_imp_src_t *s, pb_imp_line_t *ln);
/* Whole strings only: "12x" is not a number. */
int pb_imp_u64(const char *s, uint64_t *v);
int pb_imp_dbl(const char *s, double *v);
int pb_imp_starts(const char *s, const char *prefix);
/* Case-insensitive substring search. */
int pb_imp_has(const char *s, const char *needle);

/* A bad line (line is 0-based): PB_EINPUT naming name:line, or, with
 * partial, counted and PB_OK. */
int pb_imp_bad(pb_imp_src_t *s, size_t line, pb_err_t *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A table of a benchmark parbench has no counterpart for: left out and
 * named once in out->ignored. */
void pb_imp_ignore(pb_imp_src_t *s, const char *bench);

/* A new row with the fields every importer sets (backend, mode, label,
 * run_id, the where), or NULL with err set. */
pb_result_t *pb_imp_row(pb_imp_src_t *s, const char *backend, const char *mode,
                        const pb_imp_where_t *w, pb_err_t *err);
/* Sets algbw and busbw from bytes and the median time (DESIGN's factors,
 * n = group_size); time <= 0 leaves both 0. */
void pb_imp_bandwidth(pb_result_t *r);
/* core/pb_coll.h's bus factor of a collective named as parbench names
 * it, over n ranks (0 for an unknown name); whether it reduces. */
double pb_imp_bus_factor(const char *coll, int n);
int pb_imp_reduces(const char *coll);

int pb_import_nccl(pb_imp_src_t *s, pb_err_t *err);
int pb_import_osu(pb_imp_src_t *s, pb_err_t *err);
int pb_import_imb(pb_imp_src_t *s, pb_err_t *err);

#endif
