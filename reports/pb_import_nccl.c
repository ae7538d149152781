/* pb_import_nccl.c - nccl-tests logs (all_reduce_perf and friends).
 *
 * What is read, by the lines nccl-tests prints (src/common.cu, later
 * src/util.cu in NVIDIA/nccl-tests):
 *   "# Collective test starting: all_reduce_perf"  the collective (older
 *       versions lack it: --op, else the file name, e.g. all_gather_perf.log);
 *   "# nThread 1 nGpus 8 ... iters: 20 ... graph: 0"  iterations, graph
 *       (no '#' in the first version, 2017-2018);
 *   "#  Rank  0 Group  0 Pid 123 on host device  0 [0000:07:00] NAME"  one
 *       per rank (pb_import_ranks.c): world = ranks listed, nodes =
 *       distinct hosts, group_size = world / distinct groups
 *       (NCCL_TESTS_SPLIT runs one table for all groups); a list that is
 *       not ranks 0..n-1 once each (a log cut inside it) tells nothing:
 *       the world is then inferred as when no rank line is there;
 *   the column header "#  size count type redop root time algbw busbw
 *       #wrong time ..." (redop and root absent in old versions, "error"
 *       instead of "#wrong" before 2.13, per-iteration i_min i_max i_p99
 *       i_cv% columns and a timestamp with -R/-I options; the first
 *       version's "bytes N type op time algbw busbw res", its times in
 *       milliseconds): rows are read by these names, so every column set
 *       reads the same way;
 *   "# Out of bounds values : 7 FAILED"  the data check (below);
 *   "# Avg bus bandwidth    : 12.34" checked against the rows;
 *   "HOST: Test NCCL failure ...": the run failed (pb_import_fail.c).
 * The first block of time/algbw/busbw/#wrong is out-of-place, the second
 * in-place: one row each.  nccl-tests' size is parbench's size already.
 *
 * The data check: #wrong counts a row's wrong elements; the older "error"
 * (and "res") column is the row's largest deviation, which nccl-tests
 * passed up to DeltaMaxValue(type) x (n - 1).  A row past it, or with
 * wrong elements, or a footer of N FAILED fails the run: refused, or
 * under --partial kept with every row, the wrong ones marked (wrong = the
 * count; 1 for a deviation: how many elements is not printed). */
#include "pb_import_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum col_kind {
    K_SIZE, K_COUNT, K_TYPE, K_REDOP, K_ROOT, K_TIME, K_ALGBW, K_BUSBW, K_WRONG, K_ERROR,
    K_IMIN, K_IMAX, K_IP99, K_ICV, K_NONE
};

static const char *const col_names[] = {"size",  "count", "type",   "redop", "root",
                                        "time",  "algbw", "busbw",  "#wrong", "error",
                                        "i_min", "i_max", "i_p99",  "i_cv%"};

typedef struct state {
    pb_imp_ranks_t rk; /* the current run's rank lines */
    uint64_t iters;
    int graph;
    char coll[32]; /* parbench's name, "" unknown, "?" unsupported */
    int from_op, op_used; /* coll is --op's; rows were read as it */
    char prog[64];
    /* the table's columns; ms: its times in milliseconds (the first
     * version's "bytes" header) */
    int ncols, timestamp, ms;
    enum col_kind kind[PB_IMP_MAXTOK];
    int block[PB_IMP_MAXTOK];
    /* busbw printed since the run started, 0-byte rows too, for the
     * footer check */
    double bw_sum;
    size_t bw_n;
    pb_imp_check_t ck; /* the data check */
} state_t;

/* nccl-tests' program (or a file) name to parbench's collective: ""
 * when it names none, "?" when it names one parbench has no model of */
static void coll_from_name(const char *s, char *out, size_t len)
{
    static const char *const map[][2] = {
        {"reduce_scatter", "reducescatter"}, {"reducescatter", "reducescatter"},
        {"all_reduce", "allreduce"},         {"allreduce", "allreduce"},
        {"all_gather", "allgather"},         {"allgather", "allgather"},
        {"alltoallv", "?"},                  {"alltoall", "alltoall"},
        {"sendrecv", "sendrecv"},            {"broadcast", "broadcast"},
        {"hypercube", "?"},                  {"gather", "?"},
        {"scatter", "?"},                    {"reduce", "reduce"},
    };
    out[0] = '\0';
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (pb_imp_has(s, map[i][0])) {
            snprintf(out, len, "%s", map[i][1]);
            return;
        }
}

static void new_run(state_t *st)
{
    pb_imp_ranks_reset(&st->rk);
    st->bw_sum = 0;
    st->bw_n = 0;
    st->ck.oob = -1;
}

/* "# nThread 1 nGpus 1 minBytes 8 ... iters: 20 agg iters: 1 validation: 1 graph: 0" */
static void nthread_line(state_t *st, char **tok, int n)
{
    for (int i = 0; i + 1 < n; i++) {
        uint64_t v;
        if (strcmp(tok[i], "iters:") == 0 && strcmp(tok[i > 0 ? i - 1 : 0], "agg") != 0 &&
            strcmp(tok[i > 0 ? i - 1 : 0], "warmup") != 0 && pb_imp_u64(tok[i + 1], &v) == 0)
            st->iters = v;
        if (strcmp(tok[i], "graph:") == 0 && pb_imp_u64(tok[i + 1], &v) == 0)
            st->graph = v > 0;
    }
}

/* A column's kind by its header name, the first version's too. */
static enum col_kind col_kind(const char *t)
{
    static const char *const alias[][2] = {
        {"bytes", "size"}, {"N", "count"}, {"op", "redop"}, {"res", "error"}, {"cputime", "time"},
    };
    for (size_t a = 0; a < sizeof alias / sizeof alias[0]; a++)
        if (strcmp(t, alias[a][0]) == 0)
            t = alias[a][1];
    for (int c = 0; c < K_NONE; c++)
        if (strcmp(t, col_names[c]) == 0)
            return (enum col_kind)c;
    return K_NONE;
}

/* The column header: returns 1 when tok is one. */
static int header_line(state_t *st, char **tok, int n)
{
    int has_size = 0, has_time = 0;
    for (int i = 1; i < n; i++) {
        has_size |= col_kind(tok[i]) == K_SIZE;
        has_time |= col_kind(tok[i]) == K_TIME;
    }
    if (!has_size || !has_time)
        return 0;
    st->ncols = 0;
    st->timestamp = 0;
    st->ms = 0;
    int block = 0, seen_time = 0;
    for (int i = 1; i < n && st->ncols < PB_IMP_MAXTOK; i++) {
        if (strcmp(tok[i], "timestamp") == 0) {
            st->timestamp = 1;
            continue;
        }
        enum col_kind k = col_kind(tok[i]);
        st->ms |= strcmp(tok[i], "bytes") == 0; /* 2017-2018: deltaSec x 1e3 */
        if (k == K_TIME) { /* a second time column opens the in-place block */
            block += seen_time;
            seen_time = 1;
        }
        st->kind[st->ncols] = k;
        st->block[st->ncols++] = block;
    }
    return 1;
}

/* One block's columns (b: 0 out-of-place, 1 in-place) into r and *t (and
 * the deviation an "error" column gives into *delta); returns the index
 * of a column that does not parse, or -1. */
static int fill_block(state_t *st, int b, char **tok, size_t line, pb_result_t *r, double *t,
                      double *delta)
{
    for (int c = 0; c < st->ncols; c++) {
        if (st->block[c] != b)
            continue;
        const char *x = tok[c];
        int bad = 0;
        switch (st->kind[c]) {
        case K_TIME: bad = pb_imp_dbl(x, t) != 0 || !(*t > 0); break;
        case K_ALGBW: bad = pb_imp_dbl(x, &r->algbw_gbps) != 0; break;
        case K_BUSBW:
            bad = pb_imp_dbl(x, &r->busbw_gbps) != 0;
            st->bw_sum += bad ? 0 : r->busbw_gbps;
            st->bw_n += !bad;
            break;
        case K_WRONG: bad = pb_imp_check_wrong(&st->ck, x, line, r); break;
        case K_ERROR: /* the largest deviation, judged once the world is known */
            if (strcmp(x, "N/A") != 0)
                bad = pb_imp_dbl(x, delta) != 0 || *delta < 0;
            break;
        case K_IMIN: bad = pb_imp_dbl(x, &r->time_us_min) != 0; break;
        case K_IMAX: bad = pb_imp_dbl(x, &r->time_us_max) != 0; break;
        case K_IP99: bad = pb_imp_dbl(x, &r->time_us_p99) != 0; break;
        default: break;
        }
        if (bad)
            return c;
    }
    if (st->ms)
        *t *= 1e3;
    return -1;
}

/* A 0-byte row (-b 0, or an all-gather's share rounded to no element):
 * no row of parbench's, but its busbw is in nccl-tests' average. */
static void zero_row(state_t *st, char **tok)
{
    double v;
    for (int c = 0; c < st->ncols; c++)
        if (st->kind[c] == K_BUSBW && pb_imp_dbl(tok[c], &v) == 0) {
            st->bw_sum += v;
            st->bw_n++;
        }
}

/* One table row's block b as a new row. */
static int block_row(pb_imp_src_t *s, state_t *st, size_t line, char **tok,
                     const pb_result_t *base, const pb_imp_where_t *w, int b, pb_err_t *err)
{
    pb_result_t *r = pb_imp_row(s, "nccl-tests", st->graph ? "graph" : "throughput", w, line, err);
    if (r == NULL)
        return err->code;
    r->bytes = base->bytes;
    snprintf(r->redop, sizeof r->redop, "%s", base->redop);
    snprintf(r->dtype, sizeof r->dtype, "%s", base->dtype);
    snprintf(r->collective, sizeof r->collective, "%s", st->coll);
    r->in_place = b;
    r->iters = st->iters;
    double t = -1, delta = -1;
    int bad = fill_block(st, b, tok, line, r, &t, &delta);
    if (bad >= 0) {
        s->out->n--;
        return pb_imp_bad(s, line, err, "'%.32s' is not a %s", tok[bad],
                          col_names[st->kind[bad]]);
    }
    if (t < 0) {
        s->out->n--;
        return pb_imp_bad(s, line, err, "no time in the %s block", b ? "in-place" : "out-of-place");
    }
    if (pb_imp_check_delta(&st->ck, s->out->n - 1, delta, line, r) != 0)
        return pb_err_set(err, PB_ERUNTIME, "out of memory importing %s", s->name);
    /* the log gives one time per size (the average of iterations, and of
     * ranks unless -a): median; min/p99/max only where printed */
    r->time_us_median = t;
    r->time_us_min = r->time_us_min > 0 ? r->time_us_min : t;
    r->time_us_p99 = r->time_us_p99 > 0 ? r->time_us_p99 : t;
    r->time_us_max = r->time_us_max > 0 ? r->time_us_max : t;
    return PB_OK;
}

/* One table row: an out-of-place and an in-place result.  Until the
 * table ends, algbw and busbw hold the values the log printed (finish()
 * may need them to find the world size, then derives its own). */
static int row_line(pb_imp_src_t *s, state_t *st, size_t line, char **tok, int n, pb_err_t *err)
{
    int want = st->ncols + 2 * st->timestamp;
    if (n >= PB_IMP_MAXTOK || n != want)
        return pb_imp_bad(s, line, err, "a row of %d fields where the header has %d "
                          "(truncated or garbled)", n, want);
    if (st->coll[0] == '\0')
        return pb_imp_need(s, line, err, "which collective? no '# Collective test starting' "
                           "line, and the file name names none: give --op (allreduce, "
                           "allgather, reducescatter, ...)");
    if (st->coll[0] == '?') {
        pb_imp_ignore(s, st->prog);
        return PB_OK;
    }
    st->op_used |= st->from_op;
    pb_result_t base;
    memset(&base, 0, sizeof base);
    for (int c = 0; c < st->ncols; c++) {
        if (st->kind[c] == K_SIZE && pb_imp_u64(tok[c], &base.bytes) != 0)
            return pb_imp_bad(s, line, err, "size '%.32s' is not a whole number", tok[c]);
        if (st->kind[c] == K_TYPE)
            snprintf(base.dtype, sizeof base.dtype, "%.63s", tok[c]);
        if (st->kind[c] == K_REDOP && strcmp(tok[c], "none") != 0 &&
            pb_imp_reduces(st->coll))
            snprintf(base.redop, sizeof base.redop, "%.63s", tok[c]);
    }
    if (base.bytes == 0) { /* parbench's sizes start at 1 B */
        zero_row(st, tok);
        return PB_OK;
    }
    pb_imp_where_t w = {0, 0, 0, "", PB_IMP_UNKNOWN};
    pb_imp_ranks_count(&st->rk);
    w.world = st->rk.world ? st->rk.world : s->o->world;
    w.nodes = st->rk.nhosts;
    int ng = st->rk.ngroups;
    w.group_size = ng > 1 && w.world % ng == 0 ? w.world / ng : w.world;
    w.spread = st->rk.spread;
    snprintf(w.host, sizeof w.host, "%s", st->rk.rank0_host);
    int nblocks = 0;
    for (int c = 0; c < st->ncols; c++)
        nblocks = st->block[c] + 1 > nblocks ? st->block[c] + 1 : nblocks;
    int code = PB_OK;
    for (int b = 0; b < nblocks && b < 2 && code == PB_OK; b++)
        code = block_row(s, st, line, tok, &base, &w, b, err);
    return code;
}

/* The bus factor F(n) is 2(n-1)/n or (n-1)/n: n from the printed
 * busbw/algbw of the row with the largest algbw, when that ratio, given
 * the 2 decimals printed, fits one n only. */
static int infer_world(const pb_result_t *rows, size_t n, const char *coll)
{
    const pb_result_t *best = NULL;
    for (size_t i = 0; i < n; i++)
        if (best == NULL || rows[i].algbw_gbps > best->algbw_gbps)
            best = &rows[i];
    if (best == NULL || best->algbw_gbps < 1.0 || pb_imp_bus_factor(coll, 3) == 1.0)
        return 0;
    double a = best->algbw_gbps, f = best->busbw_gbps / a;
    double tol = 0.005 * (1.0 + f) / a;
    int k = strcmp(coll, "allreduce") == 0 ? 2 : 1; /* F(n) = k (n-1)/n */
    if (!(f < k - tol))
        return 0;
    double wd = k / (k - f) + 0.5;
    if (!(wd >= 2 && wd < 1 << 20))
        return 0;
    int w = (int)wd;
    if (!(fabs(pb_imp_bus_factor(coll, w) - f) <= tol) ||
        fabs(pb_imp_bus_factor(coll, w + 1) - f) <= tol ||
        fabs(pb_imp_bus_factor(coll, w - 1) - f) <= tol)
        return 0;
    return w;
}

/* A table ends: rows [from, n) get their world (inferred if the header
 * had no rank lines and no --np), their placement, their data check and
 * parbench's own bandwidths. */
static int finish(pb_imp_src_t *s, state_t *st, size_t from, size_t line, pb_err_t *err)
{
    pb_import_out_t *o = s->out;
    if (from == o->n)
        return PB_OK;
    if (o->rows[from].world == 0) {
        int w = infer_world(o->rows + from, o->n - from, st->coll);
        if (w == 0) {
            o->n = from;
            return pb_imp_need(s, line, err, "the world size is unknown: no '#  Rank' lines "
                               "and the bandwidths do not tell; give --np N");
        }
        for (size_t i = from; i < o->n; i++) {
            o->rows[i].world = o->rows[i].group_size = w;
            if (pb_imp_place(s, &o->rows[i], PB_IMP_UNKNOWN, line, err) != PB_OK)
                return err->code;
        }
    }
    pb_imp_check_judge(&st->ck, o, from);
    for (size_t i = from; i < o->n; i++)
        pb_imp_bandwidth(&o->rows[i]);
    return PB_OK;
}

/* "# Avg bus bandwidth    : 12.3456 OK" */
static void footer_line(pb_imp_src_t *s, state_t *st, char **tok, int n)
{
    double v;
    for (int i = 0; i + 1 < n; i++)
        if (strcmp(tok[i], ":") == 0 && pb_imp_dbl(tok[i + 1], &v) == 0 && st->bw_n) {
            s->out->have_avg = 1;
            s->out->avg_busbw_stated = v;
            s->out->avg_busbw_rows = st->bw_sum / (double)st->bw_n;
            return;
        }
}

/* The lines of a run's frame, with or without their '#' (the first
 * version printed nThread and the footer bare): 1 when ln was one. */
static int frame_line(pb_imp_src_t *s, state_t *st, pb_imp_line_t *ln, size_t *from,
                      size_t *header, pb_err_t *err, int *code)
{
    int hash = strcmp(ln->tok[0], "#") == 0;
    const char *body = ln->text + (ln->text[0] == '#' ? 1 + strspn(ln->text + 1, " \t") : 0);
    long oob;
    if (ln->n > hash && strcmp(ln->tok[hash], "nThread") == 0) {
        *code = finish(s, st, *from, *header, err);
        new_run(st);
        nthread_line(st, ln->tok, ln->n);
        *from = s->out->n;
    } else if (pb_imp_nccl_oob_line(ln->text, &oob)) {
        pb_imp_check_footer(&st->ck, oob, ln->no);
    } else if (pb_imp_starts(body, "Avg bus bandwidth")) {
        footer_line(s, st, ln->tok, ln->n);
    } else {
        return 0;
    }
    return 1;
}

static int header_or_banner(pb_imp_src_t *s, state_t *st, pb_imp_line_t *ln,
                            size_t *from, size_t *header, pb_err_t *err)
{
    const char *line = ln->text;
    char **tok = ln->tok;
    int n = ln->n, code = PB_OK;
    if (pb_imp_starts(line, "# Collective test starting:") && n >= 5) {
        code = finish(s, st, *from, *header, err);
        snprintf(st->prog, sizeof st->prog, "%.63s", tok[4]);
        char named[32];
        coll_from_name(tok[4], named, sizeof named);
        /* --op said what no banner did; a banner before its rows must
         * agree, one after them starts the log's next run */
        if (code == PB_OK && !st->op_used)
            code = pb_imp_op_agrees(s, ln->no, named, err);
        snprintf(st->coll, sizeof st->coll, "%s", named);
        st->from_op = 0;
    } else if (n >= 3 && strcmp(tok[1], "Rank") == 0) {
        if (pb_imp_rank_line(&st->rk, tok, n) != 0)
            return pb_err_set(err, PB_ERUNTIME, "out of memory importing %s", s->name);
        return PB_OK;
    } else if (header_line(st, tok, n)) {
        code = finish(s, st, *from, *header, err);
        *header = ln->no;
    } else {
        return PB_OK;
    }
    *from = s->out->n;
    return code;
}

/* The lines in order, the table closed where a failure line ends it. */
static int parse(pb_imp_src_t *s, state_t *st, int failure, pb_err_t *err)
{
    size_t from = s->out->n, header = 0;
    int code = PB_OK;
    pb_imp_line_t ln;
    memset(&ln, 0, sizeof ln);
    while (code == PB_OK && pb_imp_next(s, &ln)) {
        uint64_t v;
        if (failure && pb_imp_nccl_failure_kind(ln.text)) { /* the run ended here, and its table */
            code = finish(s, st, from, header, err);
            from = s->out->n;
            st->ncols = 0;
        } else if (frame_line(s, st, &ln, &from, &header, err, &code)) {
            continue;
        } else if (ln.text[0] == '#') {
            code = header_or_banner(s, st, &ln, &from, &header, err);
        } else if (st->ncols && pb_imp_u64(ln.tok[0], &v) == 0) { /* else NCCL INFO, ... */
            code = row_line(s, st, ln.no, ln.tok, ln.n, err);
        }
    }
    if (code == PB_OK)
        code = finish(s, st, from, header, err);
    return code;
}

int pb_import_nccl(pb_imp_src_t *s, pb_err_t *err)
{
    size_t failed = 0;
    int failure = pb_imp_nccl_find_failure(s, &failed);
    if (failure && !s->o->partial)
        return pb_imp_nccl_name_failure(s, failed, err);
    state_t *st = calloc(1, sizeof *st);
    if (st == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory importing %s", s->name);
    new_run(st);
    st->from_op = s->o->coll != NULL;
    if (s->o->coll)
        snprintf(st->coll, sizeof st->coll, "%s", s->o->coll);
    else
        coll_from_name(s->name, st->coll, sizeof st->coll);
    snprintf(st->prog, sizeof st->prog, "%.63s", s->name);
    int code = parse(s, st, failure, err);
    if (code == PB_OK && failure)
        pb_imp_nccl_name_failure(s, failed, NULL);
    if (code == PB_OK)
        code = pb_imp_check_name(s, &st->ck, err);
    pb_imp_ranks_free(&st->rk);
    pb_imp_check_free(&st->ck);
    free(st);
    return code;
}
