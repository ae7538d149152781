/* pb_import_osu.c - OSU micro-benchmark logs (osu_allreduce, osu_bw, ...).
 *
 * What is read (OMB's c/util/osu_util.c prints these):
 *   "# OSU MPI Allreduce Latency Test v7.4"  the benchmark and version
 *       (MPI, MPI-CUDA, MPI-ROCM, NCCL variants alike); a log without it
 *       (its top cut off) is named by its file, osu_allreduce.log;
 *   "# Datatype: MPI_FLOAT."  7.x only; before it, reductions used
 *       MPI_FLOAT and the others bytes;
 *   "# Size       Avg Latency(us)"  with -f also "Min Latency(us)  Max
 *       Latency(us)  Iterations", with -c a "Validation" column (Pass or
 *       Fail); "# Size          Latency (us)" of osu_latency before 7;
 *       "# Size      Bandwidth (MB/s)" of osu_bw and osu_bibw (MB = 1e6 B).
 * OSU prints no process count: point-to-point tests run on 2, the
 * collectives need --np N.  OSU's size is one rank's block for allgather
 * and alltoall (MPI_Allgather(sendbuf, size, ...)): parbench's size is
 * n times that; reduce_scatter's is the whole input, as parbench's.
 * Latencies are per-rank averages; with -f the row's median is "Max
 * Latency" (the slowest rank, as parbench times), min the fastest rank.
 * A bandwidth test becomes sendrecv rows timed from its bandwidth
 * (time = bytes / bandwidth; osu_bibw counts both directions, so its
 * one-direction time is 2 x bytes / bandwidth).  Zero-byte rows are left
 * out: parbench's sizes start at 1 B. */
#include "pb_import_priv.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum osu_col { C_AVG, C_MIN, C_MAX, C_ITERS, C_BW, C_VALID, C_OTHER };

typedef struct osu_state {
    char coll[32];    /* parbench's name; "" none yet, "?" unsupported */
    char bench[96];   /* the title, for messages */
    int blocks;       /* allgather, alltoall: size is a per-rank block */
    int bibw;         /* bidirectional bandwidth */
    int p2p;          /* two processes */
    int op_used;      /* a table without its title named by --op */
    char dtype[PB_RESULT_STR];
    int ncols;
    enum osu_col col[PB_IMP_MAXTOK];
} osu_state_t;

/* The words of a title, "MPI-CUDA Allreduce Latency Test v5.7", to the
 * benchmark: the first word of the table found in them (case aside).  The
 * qualifiers OMB puts after "MPI" (-CUDA, -ROCM, -OPENACC, -CUDA MANAGED,
 * -CXL: c/util/osu_util_mpi.c) and "Persistent" change nothing. */
static void bench_kind(osu_state_t *st, const char *words)
{
    static const struct {
        const char *word;
        const char *coll;
        int blocks, p2p;
    } map[] = {
        /* one-sided, multi-pair, message-rate, neighbourhood and
         * non-blocking (overlap) tests: no counterpart */
        {"MPI_", "?", 0, 0},                            {"Multi", "?", 0, 0},
        {"Neighbor", "?", 0, 0},                        {"Non-blocking", "?", 0, 0},
        {"Bi-Directional Bandwidth", "sendrecv", 0, 1}, {"Bandwidth", "sendrecv", 0, 1},
        {"Reduce_scatter", "reducescatter", 0, 0},      {"Reduce Scatter", "reducescatter", 0, 0},
        {"Allreduce", "allreduce", 0, 0},               {"Allgatherv", "?", 0, 0},
        {"Allgather", "allgather", 1, 0},               {"All-to-Allv", "?", 0, 0},
        {"All-to-Allw", "?", 0, 0},                     {"Alltoallv", "?", 0, 0},
        {"Alltoallw", "?", 0, 0},                       {"All-to-All", "alltoall", 1, 0},
        {"Alltoall", "alltoall", 1, 0},                 {"Broadcast", "broadcast", 0, 0},
        {"Bcast", "broadcast", 0, 0},                   {"Reduce", "reduce", 0, 0},
        {"Barrier", "?", 0, 0},                         {"Gather", "?", 0, 0},
        {"Scatter", "?", 0, 0},
        {"Latency", "sendrecv", 0, 1},
    };
    snprintf(st->coll, sizeof st->coll, "?");
    st->blocks = st->p2p = st->bibw = 0;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (pb_imp_has(words, map[i].word)) {
            snprintf(st->coll, sizeof st->coll, "%s", map[i].coll);
            st->blocks = map[i].blocks;
            st->p2p = map[i].p2p;
            st->bibw = pb_imp_has(map[i].word, "Bi-");
            return;
        }
}

/* "# OSU MPI Allreduce Latency Test v7.4" opens a benchmark's output */
static void title_line(osu_state_t *st, const char *line)
{
    snprintf(st->bench, sizeof st->bench, "%.95s", line + 2);
    st->dtype[0] = '\0';
    st->ncols = 0;
    bench_kind(st, line);
}

/* No title (the top of the log cut off): the program's name in the file
 * name, "osu_allreduce-8n.log", names the benchmark; 0 when none does. */
static int name_bench(osu_state_t *st, const char *file)
{
    static const char *const prog[][2] = {
        {"osu_bibw", "Bi-Directional Bandwidth"}, {"osu_bw", "Bandwidth"},
        {"osu_latency", "Latency"},               {"osu_allreduce", "Allreduce"},
        {"osu_allgather", "Allgather"},           {"osu_alltoall", "All-to-All"},
        {"osu_bcast", "Broadcast"},               {"osu_reduce_scatter_block", "Reduce_scatter"},
        {"osu_reduce_scatter", "Reduce_scatter"}, {"osu_reduce", "Reduce"},
    };
    for (size_t i = 0; i < sizeof prog / sizeof prog[0]; i++) {
        const char *at = strstr(file, prog[i][0]);
        if (at == NULL)
            continue;
        /* osu_bw, not osu_bw_fan_in; osu_allgather, not osu_allgatherv */
        const char *end = at + strlen(prog[i][0]);
        if (isalpha((unsigned char)end[0]) || (end[0] == '_' && isalpha((unsigned char)end[1])))
            continue;
        bench_kind(st, prog[i][1]);
        snprintf(st->bench, sizeof st->bench, "%s (from the file name)", prog[i][0]);
        return 1;
    }
    return 0;
}

/* No title, --op names the collective (parbench's name): the benchmark
 * of it (sendrecv: osu_latency's or osu_bw's table, read by its header;
 * osu_bibw's both directions need its title or file name). */
static int op_bench(osu_state_t *st, const char *coll)
{
    static const char *const kind[][2] = {
        {"allreduce", "Allreduce"}, {"allgather", "Allgather"}, {"alltoall", "All-to-All"},
        {"reducescatter", "Reduce_scatter"}, {"broadcast", "Broadcast"}, {"reduce", "Reduce"},
        {"sendrecv", "Latency"},
    };
    for (size_t i = 0; coll && i < sizeof kind / sizeof kind[0]; i++)
        if (strcmp(coll, kind[i][0]) == 0) {
            bench_kind(st, kind[i][1]);
            snprintf(st->bench, sizeof st->bench, "%s (--op)", coll);
            return 1;
        }
    return 0;
}

/* "# Datatype: MPI_FLOAT." to parbench's type names */
static void datatype_line(osu_state_t *st, char **tok, int n)
{
    static const char *const map[][2] = {
        {"MPI_CHAR", "int8"},     {"MPI_SIGNED_CHAR", "int8"}, {"MPI_BYTE", "int8"},
        {"MPI_INT", "int32"},     {"MPI_FLOAT", "float"},      {"MPI_DOUBLE", "double"},
    };
    if (n < 3)
        return;
    char name[64];
    snprintf(name, sizeof name, "%s", tok[2]);
    size_t len = strlen(name);
    if (len && name[len - 1] == '.')
        name[len - 1] = '\0';
    snprintf(st->dtype, sizeof st->dtype, "%s", name);
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(name, map[i][0]) == 0)
            snprintf(st->dtype, sizeof st->dtype, "%s", map[i][1]);
}

/* "# Size  Avg Latency(us)  Min Latency(us) ..." : names with blanks
 * inside, so columns are counted by their leading words */
static void header_line(osu_state_t *st, char **tok, int n)
{
    st->ncols = 0;
    for (int i = 2; i < n && st->ncols < PB_IMP_MAXTOK; i++) {
        const char *t = tok[i];
        enum osu_col c;
        if (strcmp(t, "Avg") == 0)
            c = C_AVG;
        else if (strcmp(t, "Min") == 0)
            c = C_MIN;
        else if (strcmp(t, "Max") == 0)
            c = C_MAX;
        else if (pb_imp_starts(t, "Iterations"))
            c = C_ITERS;
        else if (pb_imp_starts(t, "Validation"))
            c = C_VALID;
        else if (strcmp(t, "Bandwidth") == 0 || strcmp(t, "MB/s") == 0)
            c = C_BW;
        else if (pb_imp_starts(t, "Latency") && (i == 2 || (strcmp(tok[i - 1], "Avg") != 0 &&
                                                            strcmp(tok[i - 1], "Min") != 0 &&
                                                            strcmp(tok[i - 1], "Max") != 0)))
            c = C_AVG; /* osu_latency before 7: "Latency (us)" */
        else if (t[0] == 'P' && t[1] >= '0' && t[1] <= '9')
            c = C_OTHER; /* -z percentiles: "P50 Tail Lat(us)" */
        else if (strcmp(t, "Messages/s") == 0)
            c = C_OTHER;
        else
            continue; /* the rest of a name: "Latency(us)", "(MB/s)", "(us)" */
        st->col[st->ncols++] = c;
    }
}

/* A table row: "1024   12.34 [min max iters] [Pass]" or "1024  5678.9" */
static int row_line(pb_imp_src_t *s, osu_state_t *st, size_t line, char **tok, int n,
                    pb_err_t *err)
{
    if (st->coll[0] == '\0' && (st->op_used = op_bench(st, s->o->coll)) == 0 &&
        !name_bench(st, s->name))
        return pb_imp_need(s, line, err, "which benchmark? no '# OSU ... Test' title line, and "
                           "the file name names none (osu_allreduce, osu_bw, ...): give --op");
    if (st->coll[0] == '?') {
        pb_imp_ignore(s, st->bench);
        return PB_OK;
    }
    if (n >= PB_IMP_MAXTOK || n != st->ncols + 1)
        return pb_imp_bad(s, line, err, "a row of %d fields where the header has %d "
                          "(truncated or garbled)", n,
                          st->ncols + 1);
    pb_imp_where_t w = {st->p2p ? 2 : s->o->world, 0, 0, "", PB_IMP_UNKNOWN};
    w.group_size = w.world;
    if (w.world < 1)
        return pb_imp_need(s, line, err, "OSU logs do not say how many processes ran "
                           "'%s': give --np N", st->bench);
    uint64_t size;
    double v[PB_IMP_MAXTOK], avg = -1, mn = -1, mx = -1, bw = -1;
    if (pb_imp_u64(tok[0], &size) != 0)
        return pb_imp_bad(s, line, err, "size '%.32s' is not a whole number", tok[0]);
    if (size == 0) /* parbench's sizes start at 1 B */
        return PB_OK;
    if (st->blocks && size > UINT64_MAX / (uint64_t)w.world)
        return pb_imp_bad(s, line, err, "%" PRIu64 " B per rank x %d ranks overflows", size,
                          w.world);
    pb_result_t *r = pb_imp_row(s, "osu", "latency", &w, line, err);
    if (r == NULL)
        return err->code;
    for (int c = 0; c < st->ncols; c++) {
        const char *x = tok[c + 1];
        if (st->col[c] == C_VALID) { /* -c: "Pass" or "Fail" */
            r->wrong = strcmp(x, "Pass") == 0 ? 0 : 1;
            continue;
        }
        if (pb_imp_dbl(x, &v[c]) != 0 || v[c] < 0) {
            s->out->n--;
            return pb_imp_bad(s, line, err, "'%.32s' is not a number", x);
        }
        avg = st->col[c] == C_AVG ? v[c] : avg;
        mn = st->col[c] == C_MIN ? v[c] : mn;
        mx = st->col[c] == C_MAX ? v[c] : mx;
        bw = st->col[c] == C_BW ? v[c] : bw;
        if (st->col[c] == C_ITERS && v[c] < 1e18) /* larger: not a count, left 0 */
            r->iters = (uint64_t)v[c];
    }
    r->bytes = st->blocks ? size * (uint64_t)w.world : size;
    snprintf(r->collective, sizeof r->collective, "%s", st->coll);
    int reduces = pb_imp_reduces(st->coll);
    snprintf(r->dtype, sizeof r->dtype, "%s", st->dtype[0] ? st->dtype : reduces ? "float" : "int8");
    if (reduces)
        snprintf(r->redop, sizeof r->redop, "sum");
    if (bw >= 0) /* MB/s = 1e6 B/s: bytes / bw is in us */
        avg = bw > 0 ? (st->bibw ? 2.0 : 1.0) * (double)size / bw : -1;
    double t = mx > 0 ? mx : avg;
    if (!(t > 0)) {
        s->out->n--;
        return pb_imp_bad(s, line, err, "no positive time or bandwidth in this row");
    }
    r->time_us_median = r->time_us_p99 = r->time_us_max = t;
    r->time_us_min = mn > 0 ? mn : t;
    pb_imp_bandwidth(r);
    return PB_OK;
}

int pb_import_osu(pb_imp_src_t *s, pb_err_t *err)
{
    osu_state_t st = {0};
    pb_imp_line_t ln = {0};
    int code = PB_OK;
    while (code == PB_OK && pb_imp_next(s, &ln)) {
        const char *line = ln.text;
        char **tok = ln.tok;
        int n = ln.n;
        uint64_t v;
        if (pb_imp_starts(line, "# OSU ")) {
            title_line(&st, line);
            /* --op said what no title did; one before its rows must agree */
            code = st.op_used ? PB_OK : pb_imp_op_agrees(s, ln.no, st.coll, err);
        } else if (pb_imp_starts(line, "# Datatype:"))
            datatype_line(&st, tok, n);
        else if (pb_imp_starts(line, "# Size"))
            header_line(&st, tok, n);
        else if (line[0] != '#' && (st.ncols || st.coll[0] == '?') && pb_imp_u64(tok[0], &v) == 0)
            code = row_line(s, &st, ln.no, tok, n, err); /* '?': named as left out */
    }
    return code;
}
