/* pb_import_imb.c - Intel MPI Benchmarks logs (IMB-MPI1).
 *
 * What is read:
 *   "#    Intel(R) MPI Benchmarks 2021.3, MPI-1 part"  the version (old:
 *       "Intel (R) MPI Benchmark Suite V3.2.4");
 *   "# MPI_Datatype : MPI_BYTE", "# MPI_Datatype for reductions :
 *       MPI_FLOAT"  the element types;
 *   "# Benchmarking Allreduce" then "# #processes = 4": one block each;
 *   "#bytes #repetitions t_min[usec] t_max[usec] t_avg[usec]" (collectives,
 *       Sendrecv adds Mbytes/sec) or "#bytes #repetitions t[usec]
 *       Mbytes/sec" (PingPong; t is half the round trip).
 * Sizes: IMB's #bytes is one rank's block for Allgather (each rank's
 * contribution), Alltoall (what a rank sends to each peer) and
 * Reduce_scatter_block (each rank's result), and for Reduce_scatter before
 * IMB 2018 (every rank got #bytes; from 2018 on #bytes is split over the
 * ranks, IMB_get_rank_portion): parbench's size is n times it there.
 * Times: the median is t_max (the slowest rank, as parbench times), min
 * t_min.  Zero-byte rows are left out: parbench's sizes start at 1 B. */
#include "pb_import_priv.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum imb_col { C_BYTES, C_REPS, C_TMIN, C_TMAX, C_TAVG, C_T, C_OTHER };

typedef struct imb_state {
    int year;           /* the version's year; 0 unknown (taken as recent) */
    char data[PB_RESULT_STR], red[PB_RESULT_STR];
    char bench[64];
    char coll[32];      /* parbench's name, "?" unsupported, "" none yet */
    int blocks;         /* #bytes is a per-rank block */
    int procs;
    int ncols;
    enum imb_col col[PB_IMP_MAXTOK];
} imb_state_t;

static void type_name(const char *mpi, char *out, size_t len)
{
    static const char *const map[][2] = {
        {"MPI_BYTE", "int8"},  {"MPI_CHAR", "int8"},       {"MPI_INT", "int32"},
        {"MPI_FLOAT", "float"}, {"MPI_DOUBLE", "double"},
    };
    snprintf(out, len, "%.63s", mpi);
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(mpi, map[i][0]) == 0)
            snprintf(out, len, "%s", map[i][1]);
}

/* "# Benchmarking Allreduce" */
static void bench_line(imb_state_t *st, const char *name)
{
    static const struct {
        const char *imb, *coll;
        int blocks;
    } map[] = {
        {"PingPong", "sendrecv", 0},  {"Sendrecv", "sendrecv", 0},
        {"Allreduce", "allreduce", 0}, {"Reduce", "reduce", 0},
        {"Reduce_scatter", "reducescatter", 0}, {"Reduce_scatter_block", "reducescatter", 1},
        {"Allgather", "allgather", 1}, {"Alltoall", "alltoall", 1},
        {"Bcast", "broadcast", 0},
    };
    snprintf(st->bench, sizeof st->bench, "%.63s", name);
    snprintf(st->coll, sizeof st->coll, "?");
    st->blocks = 0;
    st->procs = 0;
    st->ncols = 0;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(name, map[i].imb) == 0) {
            snprintf(st->coll, sizeof st->coll, "%s", map[i].coll);
            st->blocks = map[i].blocks;
        }
    /* before IMB 2018 every rank received #bytes (IMB_reduce_scatter.c) */
    if (strcmp(name, "Reduce_scatter") == 0 && st->year && st->year < 2018)
        st->blocks = 1;
}

static void header_line(imb_state_t *st, char **tok, int n)
{
    st->ncols = 0;
    for (int i = 0; i < n && st->ncols < PB_IMP_MAXTOK; i++) {
        const char *t = tok[i];
        st->col[st->ncols++] = strcmp(t, "#bytes") == 0            ? C_BYTES
                               : strcmp(t, "#repetitions") == 0    ? C_REPS
                               : strcmp(t, "t_min[usec]") == 0     ? C_TMIN
                               : strcmp(t, "t_max[usec]") == 0     ? C_TMAX
                               : strcmp(t, "t_avg[usec]") == 0     ? C_TAVG
                               : strcmp(t, "t[usec]") == 0         ? C_T
                                                                   : C_OTHER;
    }
}

/* "Intel(R) MPI Benchmarks 2021.3" / "2019 Update 6": the first 4-digit
 * number from 1990 on; "V3.2.4" style versions are older than 2018 */
static void version_line(imb_state_t *st, const char *line)
{
    st->year = 2000; /* a banner without a year: IMB 3 or 4 */
    for (const char *p = line; *p; p++)
        if (isdigit((unsigned char)p[0]) && (p == line || !isdigit((unsigned char)p[-1]))) {
            int y = atoi(p);
            if (y >= 1990 && y < 2200) {
                st->year = y;
                return;
            }
        }
}

static int row_line(pb_imp_src_t *s, imb_state_t *st, size_t line, char **tok, int n,
                    pb_err_t *err)
{
    if (n >= PB_IMP_MAXTOK || n != st->ncols)
        return pb_imp_bad(s, line, err, "a row of %d fields where the header has %d "
                          "(truncated or garbled)", n,
                          st->ncols);
    if (st->coll[0] == '?') {
        pb_imp_ignore(s, st->bench);
        return PB_OK;
    }
    if (st->procs < 1)
        return pb_imp_bad(s, line, err, "a table without its '# #processes = N' line");
    uint64_t bytes = 0, reps = 0;
    double tmin = -1, tmax = -1, tavg = -1, t1 = -1;
    for (int c = 0; c < n; c++) {
        double v;
        int bad = 0;
        if (st->col[c] == C_BYTES)
            bad = pb_imp_u64(tok[c], &bytes) != 0;
        else if (st->col[c] == C_REPS)
            bad = pb_imp_u64(tok[c], &reps) != 0;
        else if (st->col[c] != C_OTHER) {
            bad = pb_imp_dbl(tok[c], &v) != 0 || v < 0;
            *(st->col[c] == C_TMIN   ? &tmin
              : st->col[c] == C_TMAX ? &tmax
              : st->col[c] == C_TAVG ? &tavg
                                     : &t1) = v;
        }
        if (bad)
            return pb_imp_bad(s, line, err, "'%.32s' is not a number", tok[c]);
    }
    double t = tmax > 0 ? tmax : t1 > 0 ? t1 : tavg;
    if (bytes == 0)
        return PB_OK;
    if (!(t > 0))
        return pb_imp_bad(s, line, err, "no positive time in this row");
    int world = strcmp(st->bench, "PingPong") == 0 ? 2 : st->procs;
    if (st->blocks && bytes > UINT64_MAX / (uint64_t)world)
        return pb_imp_bad(s, line, err, "%" PRIu64 " B per rank x %d ranks overflows", bytes, world);
    pb_imp_where_t w = {world, 0, world, "", PB_IMP_UNKNOWN};
    pb_result_t *r = pb_imp_row(s, "imb", "latency", &w, line, err);
    if (r == NULL)
        return err->code;
    snprintf(r->collective, sizeof r->collective, "%s", st->coll);
    int reduces = pb_imp_reduces(st->coll);
    snprintf(r->dtype, sizeof r->dtype, "%s",
             reduces ? (st->red[0] ? st->red : "float") : (st->data[0] ? st->data : "int8"));
    if (reduces)
        snprintf(r->redop, sizeof r->redop, "sum");
    r->bytes = st->blocks ? bytes * (uint64_t)world : bytes;
    r->iters = reps;
    r->time_us_median = r->time_us_p99 = r->time_us_max = t;
    r->time_us_min = tmin > 0 ? tmin : t;
    pb_imp_bandwidth(r);
    return PB_OK;
}

/* "# MPI_Datatype for reductions    :   MPI_FLOAT": the value after ':' */
static const char *after_colon(char **tok, int n)
{
    for (int i = 0; i + 1 < n; i++)
        if (strcmp(tok[i], ":") == 0)
            return tok[i + 1];
    return "";
}

int pb_import_imb(pb_imp_src_t *s, pb_err_t *err)
{
    imb_state_t st = {0};
    pb_imp_line_t ln = {0};
    int code = PB_OK;
    while (code == PB_OK && pb_imp_next(s, &ln)) {
        const char *line = ln.text;
        char **tok = ln.tok;
        int n = ln.n;
        uint64_t v;
        if (pb_imp_has(line, "MPI Benchmark") && line[0] == '#')
            version_line(&st, line);
        else if (pb_imp_starts(line, "# MPI_Datatype for reductions"))
            type_name(after_colon(tok, n), st.red, sizeof st.red);
        else if (pb_imp_starts(line, "# MPI_Datatype"))
            type_name(after_colon(tok, n), st.data, sizeof st.data);
        else if (pb_imp_starts(line, "# Benchmarking ") && n >= 3)
            bench_line(&st, tok[2]);
        else if (pb_imp_starts(line, "# #processes = ") && n >= 4)
            st.procs = pb_imp_u64(tok[3], &v) == 0 && v > 0 && v < (1u << 24) ? (int)v : 0;
        else if (strcmp(tok[0], "#bytes") == 0)
            header_line(&st, tok, n);
        else if (line[0] != '#' && st.ncols && pb_imp_u64(tok[0], &v) == 0)
            code = row_line(s, &st, ln.no, tok, n, err);
    }
    return code;
}
