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
    char **lines;      /* NUL-terminated, '\r' and the launcher's prefix removed */
    size_t nlines;
    /* as long as the longest line: pb_imp_next tokenises there, so no
     * line is ever cut to fit a buffer */
    char *tokbuf;
    size_t tokcap;
    const pb_import_opts_t *o;
    pb_import_out_t *out;
} pb_imp_src_t;

/* The lines of text[0, len) (text[len] must be writable, it becomes a
 * NUL) into s->lines, s->tokbuf allocated; launchers' prefixes (Open
 * MPI's tag, Slurm's label) taken off where the log's '#' lines carry
 * them.  A line over PB_IMP_MAX_LINE characters or holding a NUL byte is
 * a bad line (pb_imp_bad).  pb_imp_lines_free releases what it set. */
#define PB_IMP_MAX_LINE (1u << 20)
int pb_imp_lines_load(pb_imp_src_t *s, char *text, size_t len, pb_err_t *err);
void pb_imp_lines_free(pb_imp_src_t *s);
/* Which tool wrote the lines: the first banner or table header of one
 * (PB_IMPORT_AUTO: none). */
pb_import_tool_t pb_imp_detect(pb_imp_src_t *s);

/* What a run's header says about where it ran (0 / "" unknown). */
typedef struct pb_imp_where {
    int world, nodes, group_size;
    char host[PB_RESULT_STR];
} pb_imp_where_t;

/* Splits a copy of line into s->tokbuf on blanks; returns the count, at
 * most max (a line of max tokens or more is refused as a row: no table
 * is that wide).  The tokens last until the next call. */
int pb_imp_tokens(pb_imp_src_t *s, const char *line, char **tok, int max);
/* The log's lines with at least one token, one at a time: `no` is the
 * line's 0-based index (for pb_imp_bad), `text` the line from its first
 * non-blank, tok[0..n) its tokens (in s->tokbuf: one cursor at a time).
 * Start from a zeroed cursor; pb_imp_next returns 0 at the end. */
typedef struct pb_imp_line {
    size_t next, no;
    const char *text;
    char *tok[PB_IMP_MAXTOK];
    int n;
} pb_imp_line_t;
int pb_imp_next(pb_imp_src_t *s, pb_imp_line_t *ln);
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

/* A failed nccl-tests run (pb_import_fail.c): a line's kind (2 the
 * cause: "Test NCCL failure", "Test CUDA failure", "Test timeout"; 1 a
 * trace: "Test failure"; 0 none); the line to name (the first cause, else
 * the first trace; 0 when none); naming it: with err the refusal
 * PB_EINPUT, without it out->failure. */
int pb_imp_nccl_failure_kind(const char *line);
int pb_imp_nccl_find_failure(const pb_imp_src_t *s, size_t *at);
int pb_imp_nccl_name_failure(pb_imp_src_t *s, size_t at, pb_err_t *err);

int pb_import_nccl(pb_imp_src_t *s, pb_err_t *err);
int pb_import_osu(pb_imp_src_t *s, pb_err_t *err);
int pb_import_imb(pb_imp_src_t *s, pb_err_t *err);

#endif
