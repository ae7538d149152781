/* pb_import_nccl.c - nccl-tests logs (all_reduce_perf and friends).
 *
 * What is read, by the lines nccl-tests prints (src/common.cu, later
 * src/util.cu in NVIDIA/nccl-tests):
 *   "# Collective test starting: all_reduce_perf"  the collective (older
 *       versions lack it: the file name is used, e.g. all_gather_perf.log);
 *   "# nThread 1 nGpus 8 ... iters: 20 ... graph: 0"  iterations, graph;
 *   "#  Rank  0 Group  0 Pid 123 on host device  0 [0000:07:00] NAME"  one
 *       per rank ("Group" absent before 2.12, bus id "[0x07]" before 2.14):
 *       world = ranks listed, nodes = distinct hosts, group_size = world /
 *       distinct groups (NCCL_TESTS_SPLIT runs one table for all groups),
 *       as many as the log lists; a list that is not ranks 0..n-1 once
 *       each (a log cut inside it) tells nothing: the world is then
 *       inferred as when no rank line is there;
 *   the column header "#  size count type redop root time algbw busbw
 *       #wrong time ..." (redop and root absent in old versions, "error"
 *       instead of "#wrong" before 2.10, per-iteration i_min i_max i_p99
 *       i_cv% columns and a timestamp with -R/-I options): rows are read
 *       by these names, so every column set reads the same way;
 *   "# Avg bus bandwidth    : 12.34" checked against the rows;
 *   "HOST: Test NCCL failure ...": the run failed (pb_import_fail.c).
 * The first block of time/algbw/busbw/#wrong is out-of-place, the second
 * in-place: one row each.  nccl-tests' size is parbench's size already. */
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

/* One '#  Rank' line. */
typedef struct rank_rec {
    long rank, group;
    char host[PB_RESULT_STR];
} rank_rec_t;

typedef struct state {
    /* the current run's rank lines, as many as it has */
    rank_rec_t *rank;
    size_t nrank, cap;
    /* from them, once the first row needs it (counted): world 0 when they
     * are not ranks 0..n-1 each once (a log cut inside the list) */
    int counted, world, nhosts, ngroups;
    char rank0_host[PB_RESULT_STR];
    uint64_t iters;
    int graph;
    char coll[32]; /* parbench's name, "" unknown, "?" unsupported */
    char prog[64];
    /* the table's columns */
    int ncols, timestamp;
    enum col_kind kind[PB_IMP_MAXTOK];
    int block[PB_IMP_MAXTOK];
    /* busbw printed since the run started, for the footer check */
    double bw_sum;
    size_t bw_n;
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
    st->nrank = 0;
    st->counted = 0;
    st->bw_sum = 0;
    st->bw_n = 0;
}

/* "#  Rank  0 Group  0 Pid 1234 on node-a device  0 [0000:07:00] NVIDIA H100" */
static int rank_line(pb_imp_src_t *s, state_t *st, char **tok, int n, pb_err_t *err)
{
    rank_rec_t r = {-1, 0, ""};
    const char *host = NULL;
    for (int i = 1; i + 1 < n; i++) {
        uint64_t v;
        if (strcmp(tok[i], "Rank") == 0 && pb_imp_u64(tok[i + 1], &v) == 0 && v < 1u << 30)
            r.rank = (long)v;
        else if (strcmp(tok[i], "Group") == 0 && pb_imp_u64(tok[i + 1], &v) == 0 && v < 1u << 30)
            r.group = (long)v;
        else if (strcmp(tok[i], "on") == 0 && host == NULL)
            host = tok[i + 1];
    }
    if (host == NULL)
        return PB_OK;
    snprintf(r.host, sizeof r.host, "%.63s", host);
    if (st->nrank == st->cap) {
        size_t cap = st->cap ? 2 * st->cap : 64;
        rank_rec_t *p = realloc(st->rank, cap * sizeof *p);
        if (p == NULL)
            return pb_err_set(err, PB_ERUNTIME, "out of memory importing %s", s->name);
        st->rank = p;
        st->cap = cap;
    }
    st->rank[st->nrank++] = r;
    st->counted = 0;
    return PB_OK;
}

static int by_rank(const void *a, const void *b)
{
    long x = ((const rank_rec_t *)a)->rank, y = ((const rank_rec_t *)b)->rank;
    return (x > y) - (x < y);
}

static int by_host(const void *a, const void *b)
{
    return strcmp(((const rank_rec_t *)a)->host, ((const rank_rec_t *)b)->host);
}

static int by_group(const void *a, const void *b)
{
    long x = ((const rank_rec_t *)a)->group, y = ((const rank_rec_t *)b)->group;
    return (x > y) - (x < y);
}

/* world, nodes (distinct hosts) and groups from the rank lines; sorting
 * keeps a log of any size linear-logarithmic */
static void count_ranks(state_t *st)
{
    if (st->counted)
        return;
    st->counted = 1;
    st->world = st->nhosts = st->ngroups = 0;
    st->rank0_host[0] = '\0';
    size_t n = st->nrank;
    if (n == 0 || n > 1u << 30)
        return;
    qsort(st->rank, n, sizeof *st->rank, by_rank);
    if (st->rank[0].rank == 0)
        snprintf(st->rank0_host, sizeof st->rank0_host, "%s", st->rank[0].host);
    for (size_t i = 0; i < n; i++)
        if (st->rank[i].rank != (long)i)
            return; /* ranks missing or repeated: the list was cut */
    qsort(st->rank, n, sizeof *st->rank, by_host);
    for (size_t i = 0; i < n; i++)
        st->nhosts += i == 0 || strcmp(st->rank[i].host, st->rank[i - 1].host) != 0;
    qsort(st->rank, n, sizeof *st->rank, by_group);
    for (size_t i = 0; i < n; i++)
        st->ngroups += i == 0 || st->rank[i].group != st->rank[i - 1].group;
    st->world = (int)n;
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

/* The column header: returns 1 when tok is one. */
static int header_line(state_t *st, char **tok, int n)
{
    int has_size = 0, has_time = 0;
    for (int i = 1; i < n; i++) {
        has_size |= strcmp(tok[i], "size") == 0;
        has_time |= strcmp(tok[i], "time") == 0 || strcmp(tok[i], "cputime") == 0;
    }
    if (!has_size || !has_time)
        return 0;
    st->ncols = 0;
    st->timestamp = 0;
    int block = 0, seen_time = 0;
    for (int i = 1; i < n && st->ncols < PB_IMP_MAXTOK; i++) {
        if (strcmp(tok[i], "timestamp") == 0) {
            st->timestamp = 1;
            continue;
        }
        enum col_kind k = K_NONE;
        for (int c = 0; c < K_NONE; c++)
            if (strcmp(tok[i], col_names[c]) == 0)
                k = (enum col_kind)c;
        if (strcmp(tok[i], "cputime") == 0)
            k = K_TIME;
        if (k == K_TIME) { /* a second time column opens the in-place block */
            block += seen_time;
            seen_time = 1;
        }
        st->kind[st->ncols] = k;
        st->block[st->ncols++] = block;
    }
    return 1;
}

/* One block's columns (b: 0 out-of-place, 1 in-place) into r and *t;
 * returns the index of a column that does not parse, or -1. */
static int fill_block(state_t *st, int b, char **tok, pb_result_t *r, double *t)
{
    double v;
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
        case K_WRONG:
            if (strcmp(x, "N/A") != 0) {
                bad = pb_imp_dbl(x, &v) != 0 || v < 0 || v > 9e18;
                r->wrong = bad ? 0 : (int64_t)v;
            }
            break;
        case K_ERROR: /* old builds printed the largest deviation, not a count */
            bad = pb_imp_dbl(x, &v) != 0;
            r->wrong = !bad && v == 0 ? 0 : PB_RESULT_WRONG_UNCHECKED;
            break;
        case K_IMIN: bad = pb_imp_dbl(x, &r->time_us_min) != 0; break;
        case K_IMAX: bad = pb_imp_dbl(x, &r->time_us_max) != 0; break;
        case K_IP99: bad = pb_imp_dbl(x, &r->time_us_p99) != 0; break;
        default: break;
        }
        if (bad)
            return c;
    }
    return -1;
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
        return pb_imp_bad(s, line, err, "which collective? no '# Collective test starting' "
                          "line, and the file name names none (all_reduce, all_gather, ...)");
    if (st->coll[0] == '?') {
        pb_imp_ignore(s, st->prog);
        return PB_OK;
    }
    pb_result_t base;
    memset(&base, 0, sizeof base);
    const char *type = "";
    for (int c = 0; c < st->ncols; c++) {
        if (st->kind[c] == K_SIZE && pb_imp_u64(tok[c], &base.bytes) != 0)
            return pb_imp_bad(s, line, err, "size '%.32s' is not a whole number", tok[c]);
        if (st->kind[c] == K_TYPE)
            type = tok[c];
        if (st->kind[c] == K_REDOP && strcmp(tok[c], "none") != 0 &&
            pb_imp_reduces(st->coll))
            snprintf(base.redop, sizeof base.redop, "%.63s", tok[c]);
    }
    if (base.bytes == 0) /* -b 0: parbench's sizes start at 1 B */
        return PB_OK;
    pb_imp_where_t w = {0, 0, 0, ""};
    count_ranks(st);
    w.world = st->world ? st->world : s->o->world;
    w.nodes = st->nhosts;
    w.group_size = st->ngroups > 1 && w.world % st->ngroups == 0 ? w.world / st->ngroups : w.world;
    snprintf(w.host, sizeof w.host, "%s", st->rank0_host);
    int nblocks = 0;
    for (int c = 0; c < st->ncols; c++)
        nblocks = st->block[c] + 1 > nblocks ? st->block[c] + 1 : nblocks;
    for (int b = 0; b < nblocks && b < 2; b++) {
        pb_result_t *r = pb_imp_row(s, "nccl-tests", st->graph ? "graph" : "throughput", &w, err);
        if (r == NULL)
            return err->code;
        r->bytes = base.bytes;
        snprintf(r->redop, sizeof r->redop, "%s", base.redop);
        snprintf(r->dtype, sizeof r->dtype, "%.63s", type);
        snprintf(r->collective, sizeof r->collective, "%s", st->coll);
        r->in_place = b;
        r->iters = st->iters;
        double t = -1;
        int bad = fill_block(st, b, tok, r, &t);
        if (bad >= 0) {
            s->out->n--;
            return pb_imp_bad(s, line, err, "'%.32s' is not a %s", tok[bad],
                              col_names[st->kind[bad]]);
        }
        if (t < 0) {
            s->out->n--;
            return pb_imp_bad(s, line, err, "no time in the %s block",
                              b ? "in-place" : "out-of-place");
        }
        /* the log gives one time per size (the average of iterations, and
         * of ranks unless -a): median; min/p99/max only where printed */
        r->time_us_median = t;
        r->time_us_min = r->time_us_min > 0 ? r->time_us_min : t;
        r->time_us_p99 = r->time_us_p99 > 0 ? r->time_us_p99 : t;
        r->time_us_max = r->time_us_max > 0 ? r->time_us_max : t;
    }
    return PB_OK;
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
 * had no rank lines and no --np) and parbench's own bandwidths. */
static int finish(pb_imp_src_t *s, state_t *st, size_t from, size_t line, pb_err_t *err)
{
    pb_import_out_t *o = s->out;
    if (from == o->n)
        return PB_OK;
    if (o->rows[from].world == 0) {
        int w = infer_world(o->rows + from, o->n - from, st->coll);
        if (w == 0) {
            o->n = from;
            return pb_imp_bad(s, line, err, "the world size is unknown: no '#  Rank' lines "
                              "and the bandwidths do not tell; give --np N");
        }
        for (size_t i = from; i < o->n; i++)
            o->rows[i].world = o->rows[i].group_size = w;
    }
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

static int header_or_banner(pb_imp_src_t *s, state_t *st, pb_imp_line_t *ln,
                            size_t *from, size_t *header, pb_err_t *err)
{
    const char *line = ln->text;
    char **tok = ln->tok;
    int n = ln->n, code = PB_OK;
    if (pb_imp_starts(line, "# Collective test starting:") && n >= 5) {
        code = finish(s, st, *from, *header, err);
        snprintf(st->prog, sizeof st->prog, "%.63s", tok[4]);
        coll_from_name(tok[4], st->coll, sizeof st->coll);
    } else if (n >= 2 && strcmp(tok[1], "nThread") == 0) {
        code = finish(s, st, *from, *header, err);
        new_run(st);
        nthread_line(st, tok, n);
    } else if (n >= 3 && strcmp(tok[1], "Rank") == 0) {
        return rank_line(s, st, tok, n, err);
    } else if (pb_imp_starts(line, "# Avg bus bandwidth")) {
        footer_line(s, st, tok, n);
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

int pb_import_nccl(pb_imp_src_t *s, pb_err_t *err)
{
    size_t failed = 0;
    int failure = pb_imp_nccl_find_failure(s, &failed);
    if (failure && !s->o->partial)
        return pb_imp_nccl_name_failure(s, failed, err);
    state_t *st = calloc(1, sizeof *st);
    if (st == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory importing %s", s->name);
    coll_from_name(s->name, st->coll, sizeof st->coll);
    snprintf(st->prog, sizeof st->prog, "%.63s", s->name);
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
        } else if (ln.text[0] == '#') {
            code = header_or_banner(s, st, &ln, &from, &header, err);
        } else if (st->ncols && pb_imp_u64(ln.tok[0], &v) == 0) { /* else NCCL INFO, ... */
            code = row_line(s, st, ln.no, ln.tok, ln.n, err);
        }
    }
    if (code == PB_OK)
        code = finish(s, st, from, header, err);
    if (code == PB_OK && failure)
        pb_imp_nccl_name_failure(s, failed, NULL);
    free(st->rank);
    free(st);
    return code;
}
