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

/* Whether each group of a run lies within one node (a group of the whole
 * world: nodes == 1): unknown, within, across. */
enum { PB_IMP_UNKNOWN = 0, PB_IMP_WITHIN = 1, PB_IMP_ACROSS = 2 };

/* What a run's header says about where it ran (0 / "" unknown); spread
 * only for groups smaller than the world (NCCL_TESTS_SPLIT). */
typedef struct pb_imp_where {
    int world, nodes, group_size;
    char host[PB_RESULT_STR];
    int spread;
} pb_imp_where_t;

/* nccl-tests' "#  Rank" lines (pb_import_ranks.c): as many as the log
 * kept; counted once a row needs them (pb_imp_ranks_count): world 0 when
 * they are not ranks 0..n-1 each once (a log cut inside the list). */
typedef struct pb_imp_rank {
    long rank, group;
    char host[PB_RESULT_STR];
} pb_imp_rank_t;
typedef struct pb_imp_ranks {
    pb_imp_rank_t *v;
    size_t n, cap;
    int counted, world, nhosts, ngroups, spread;
    char rank0_host[PB_RESULT_STR];
} pb_imp_ranks_t;
/* One rank line's tokens added (a line naming no host is none); -1 out
 * of memory. */
int pb_imp_rank_line(pb_imp_ranks_t *rk, char **tok, int n);
void pb_imp_ranks_count(pb_imp_ranks_t *rk);
void pb_imp_ranks_reset(pb_imp_ranks_t *rk);
void pb_imp_ranks_free(pb_imp_ranks_t *rk);

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
/* What the log does not say and an option must (the process count, the
 * collective): PB_EINPUT naming name:line, --partial or not - skipping
 * every line for it would hide the reason behind "no result rows". */
int pb_imp_need(pb_imp_src_t *s, size_t line, pb_err_t *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A table of a benchmark parbench has no counterpart for: left out and
 * named once in out->ignored. */
void pb_imp_ignore(pb_imp_src_t *s, const char *bench);

/* A new row with the fields every importer sets (backend, mode, label,
 * run_id, the where), or NULL with err set.  Where the log does not say
 * how many nodes ran (w->nodes 0), --nodes or --per-node does; the link
 * class follows (pb_import_io.h: NET, "" within a node, or
 * PB_IMPORT_LINK_UNKNOWN).  A --nodes or --per-node the log contradicts,
 * or that does not fit the world, is refused naming `line`. */
pb_result_t *pb_imp_row(pb_imp_src_t *s, const char *backend, const char *mode,
                        const pb_imp_where_t *w, size_t line, pb_err_t *err);
/* The placement of row r (world known), as pb_imp_row sets it; spread as
 * in pb_imp_where_t.  For a row whose world was known only later. */
int pb_imp_place(pb_imp_src_t *s, pb_result_t *r, int spread, size_t line, pb_err_t *err);
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
/* nccl-tests' data check (pb_import_fail.c).  The footer "# Out of
 * bounds values : 7 FAILED" (no '#' before 2019): 1 and *count when text
 * is one.  The largest deviation a row of `type` passes with on n ranks
 * in the logs of the "error" column (DeltaMaxValue(type) x (n - 1),
 * src/common.cu until 2022). */
int pb_imp_nccl_oob_line(const char *text, long *count);
double pb_imp_nccl_delta_max(const char *type, int n);
/* The check as one log's rows are read: the current run's footer count
 * (oob, -1 none yet), each row's deviation (by its index in out->rows),
 * the first wrong row and the first FAILED footer (their line + 1, 0
 * none).  Lines are 0-based as everywhere here. */
typedef struct pb_imp_check_row {
    double delta; /* an "error" column's, -1 none */
    size_t line;
} pb_imp_check_row_t;
typedef struct pb_imp_check {
    long oob;
    pb_imp_check_row_t *row;
    size_t cap;
    size_t bad_row, bad_foot;
    char row_why[160], foot_why[64];
} pb_imp_check_t;
/* A #wrong field into r->wrong (N/A leaves it); 1 when it is no count. */
int pb_imp_check_wrong(pb_imp_check_t *ck, const char *x, size_t line, pb_result_t *r);
/* Row i's deviation (-1 none; 0 passes at once); -1 out of memory. */
int pb_imp_check_delta(pb_imp_check_t *ck, size_t i, double delta, size_t line, pb_result_t *r);
/* The deviations of out's rows [from, n) judged, their world known. */
void pb_imp_check_judge(pb_imp_check_t *ck, pb_import_out_t *out, size_t from);
void pb_imp_check_footer(pb_imp_check_t *ck, long oob, size_t line);
/* A failed check named: PB_EINPUT, or under --partial out->failure
 * (unless a crash is named there already) and PB_OK; PB_OK when it
 * passed. */
int pb_imp_check_name(pb_imp_src_t *s, const pb_imp_check_t *ck, pb_err_t *err);
void pb_imp_check_free(pb_imp_check_t *ck);
/* The collective --op names (pb_import_io.h: o->coll) against the one
 * the log names: "" none there; PB_EINPUT when they differ. */
int pb_imp_op_agrees(pb_imp_src_t *s, size_t line, const char *logs, pb_err_t *err);

int pb_import_nccl(pb_imp_src_t *s, pb_err_t *err);
int pb_import_osu(pb_imp_src_t *s, pb_err_t *err);
int pb_import_imb(pb_imp_src_t *s, pb_err_t *err);

#endif
