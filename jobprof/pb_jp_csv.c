/* pb_jp_csv.c - the ops CSV, through libcsv (pb_jp_csv.h). */
#include "pb_jp_csv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/pb_csv_records.h"
#include "../reports/pb_csv_table.h"

enum {
    C_WORLD, C_EVERY, C_RANK, C_COMM_ID, C_COMM_NAME, C_COMM_SIZE, C_MEMBERS, C_DIM, C_SEQ,
    C_KIND, C_FUNC, C_COLL, C_DTYPE, C_COUNT, C_BYTES, C_PEER, C_T_ISSUE, C_T_START, C_T_END,
    C_GPU, C_ALGO, C_PROTO, C_NCH, C_N
};
static const char *const col_names[C_N] = {
    "world", "every", "rank", "comm_id", "comm_name", "comm_size", "members", "dim", "seq",
    "kind", "func", "collective", "dtype", "count", "bytes", "peer", "t_issue_ns", "t_start_ns",
    "t_end_ns", "gpu_ns", "algo", "proto", "nchannels"};
static const char *const kind_names[] = {"coll", "send", "recv"};

int pb_jp_is_csv(const char *text, size_t len)
{
    static const char head[] = "world,every,rank,comm_id,";
    return len >= sizeof head - 1 && memcmp(text, head, sizeof head - 1) == 0;
}

static int put_str(FILE *f, const char *s, int last)
{
    return pb_csv_put_str(f, s, last ? '\n' : ',') != 0;
}

static int put_row(FILE *f, const void *rows, size_t i)
{
    const pb_jobprof_t *jp = rows;
    const pb_jop_t *op = &jp->ops[i];
    const pb_jcomm_t *c = &jp->comms[op->comm];
    /* a rank is at most 8 digits and a blank (pb_jp_comm: < 2^24 ranks) */
    size_t cap = (size_t)c->nranks * 10 + 1, m = 0;
    char *members = malloc(cap);
    if (members == NULL)
        return -1;
    members[0] = '\0';
    for (int r = 0; r < c->nranks; r++)
        m += (size_t)snprintf(members + m, cap - m, "%s%d", r ? " " : "", c->members[r]);
    char id[17];
    snprintf(id, sizeof id, "%016" PRIx64, c->id);
    int bad = fprintf(f, "%d,%d,%d,%s,", jp->world, jp->every, op->rank, id) < 0;
    bad = bad || put_str(f, c->name, 0) || fprintf(f, "%d,", c->nranks) < 0 ||
          put_str(f, members, 0) || fprintf(f, "%s,%" PRIu64 ",%s,", pb_jdim_name(c->dim),
                                            op->seq, kind_names[op->kind]) < 0;
    free(members);
    bad = bad || put_str(f, op->func, 0) || put_str(f, op->known ? pb_coll_name(op->coll) : "", 0) ||
          put_str(f, op->dtype_name, 0);
    bad = bad || fprintf(f, "%" PRIu64 ",%" PRIu64 ",%d,%" PRId64 ",%" PRId64 ",%" PRId64
                         ",%" PRId64 ",", op->count, op->bytes, op->peer, op->t_issue_ns,
                         op->t_start_ns, op->t_end_ns, op->gpu_ns) < 0;
    return bad || put_str(f, op->algo, 0) || put_str(f, op->proto, 0) ||
           fprintf(f, "%d\n", op->nchannels) < 0;
}

int pb_jp_csv_write(const char *path, const pb_jobprof_t *jp, pb_err_t *err)
{
    char head[512];
    size_t n = 0;
    for (int k = 0; k < C_N; k++)
        n += (size_t)snprintf(head + n, sizeof head - n, "%s%s", k ? "," : "", col_names[k]);
    return pb_csv_table_write(path, head, put_row, jp, jp->nops, err);
}

typedef struct rd {
    const char *path;
    pb_jobprof_t *jp;
    int map[C_N];
    size_t nheader;
} rd_t;

/* A whole signed number within [lo, hi]. */
static int get_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int get_str(char *dst, size_t len, const char *s)
{
    if (strlen(s) >= len)
        return -1;
    memcpy(dst, s, strlen(s) + 1);
    return 0;
}

/* The row's communicator, added or checked against the earlier rows. */
static int row_comm(rd_t *rd, size_t line, const char *const *f, pb_err_t *err)
{
    int64_t n;
    uint64_t id;
    char *end;
    errno = 0;
    id = strtoull(f[C_COMM_ID], &end, 16);
    if (*f[C_COMM_ID] == '\0' || *end != '\0' || errno != 0 ||
        get_i64(f[C_COMM_SIZE], 1, 1 << 24, &n) != 0)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: bad comm_id or comm_size", rd->path, line);
    pb_err_t e2 = {0};
    int c = pb_jp_comm(rd->jp, id, f[C_COMM_NAME], (int)n, &e2);
    if (c < 0)
        return pb_err_set(err, e2.code, "%s:%zu: %s", rd->path, line, e2.msg);
    pb_jcomm_t *cm = &rd->jp->comms[c];
    const char *p = f[C_MEMBERS];
    for (int r = 0; r < cm->nranks; r++) {
        long v = strtol(p, &end, 10);
        if (end == p || v < -1 || v > (1L << 24) || (cm->members[r] >= 0 && cm->members[r] != v))
            return pb_err_set(err, PB_EINPUT, "%s:%zu: members '%s' are not %d global ranks "
                              "agreeing with earlier rows", rd->path, line, f[C_MEMBERS], cm->nranks);
        if (v >= 0)
            cm->members[r] = (int)v;
        p = end;
    }
    for (int d = 0; d < PB_JD_COUNT; d++)
        if (strcmp(f[C_DIM], pb_jdim_name((pb_jdim_t)d)) == 0)
            cm->dim = (pb_jdim_t)d;
    return c;
}

/* The operation's own fields. */
static int row_op(rd_t *rd, const char *const *f, pb_jop_t *op)
{
    int64_t v[9];
    static const int cols[9] = {C_RANK, C_SEQ, C_COUNT, C_BYTES, C_PEER, C_T_ISSUE, C_T_START,
                                C_T_END, C_GPU};
    for (int k = 0; k < 9; k++)
        if (get_i64(f[cols[k]], k == 4 || k == 8 ? -1 : 0, INT64_MAX, &v[k]) != 0)
            return -1;
    op->rank = (int)(v[0] < (1 << 24) ? v[0] : -1);
    op->seq = (uint64_t)v[1];
    op->count = (uint64_t)v[2];
    op->bytes = (uint64_t)v[3];
    op->peer = (int)(v[4] < (1 << 24) ? v[4] : -1);
    op->t_issue_ns = v[5];
    op->t_start_ns = v[6];
    op->t_end_ns = v[7];
    op->gpu_ns = v[8];
    int64_t nch;
    if (op->rank < 0 || get_i64(f[C_NCH], 0, 1024, &nch) != 0 ||
        get_str(op->func, sizeof op->func, f[C_FUNC]) || get_str(op->dtype_name, sizeof op->dtype_name, f[C_DTYPE]) ||
        get_str(op->algo, sizeof op->algo, f[C_ALGO]) || get_str(op->proto, sizeof op->proto, f[C_PROTO]))
        return -1;
    op->nchannels = (int)nch;
    int k = 0;
    while (k < 3 && strcmp(f[C_KIND], kind_names[k]) != 0)
        k++;
    if (k == 3)
        return -1;
    op->kind = (pb_jkind_t)k;
    op->known = f[C_COLL][0] && pb_coll_parse(f[C_COLL], &op->coll) == 0 &&
                pb_jp_dtype(op->dtype_name, &op->dtype) == 0;
    (void)rd;
    return 0;
}

static int on_row(void *arg, size_t line, const pb_csv_rec_t *rec, pb_err_t *err)
{
    rd_t *rd = arg;
    if (rd->nheader == 0) {
        for (int k = 0; k < C_N; k++)
            if ((rd->map[k] = pb_csv_rec_find(rec, col_names[k])) < 0)
                return pb_err_set(err, PB_EINPUT, "%s: missing column '%s' (parbench ops CSV)",
                                  rd->path, col_names[k]);
        rd->nheader = rec->nfields;
        return PB_OK;
    }
    if (rec->nfields != rd->nheader)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: %zu fields, header has %zu", rd->path, line,
                          rec->nfields, rd->nheader);
    const char *f[C_N];
    for (int k = 0; k < C_N; k++)
        f[k] = rec->field[rd->map[k]];
    int64_t world, every;
    if (get_i64(f[C_WORLD], 0, 1 << 24, &world) || get_i64(f[C_EVERY], 1, 1 << 30, &every))
        return pb_err_set(err, PB_EINPUT, "%s:%zu: bad world or every", rd->path, line);
    if (world > rd->jp->world)
        rd->jp->world = (int)world;
    if (every > rd->jp->every)
        rd->jp->every = (int)every;
    pb_jop_t op;
    memset(&op, 0, sizeof op);
    if ((op.comm = row_comm(rd, line, f, err)) < 0)
        return err->code;
    if (row_op(rd, f, &op) != 0)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: not an operation row (a number out of "
                          "range, an unknown kind, or a name too long)", rd->path, line);
    if (op.known && op.bytes == 0)
        op.bytes = pb_jp_bytes(op.coll, rd->jp->comms[op.comm].nranks, pb_dtype_size(op.dtype),
                               op.count);
    return pb_jp_add_op(rd->jp, &op, err);
}

int pb_jp_csv_read(const char *path, pb_jobprof_t *jp, pb_err_t *err)
{
    rd_t rd;
    memset(&rd, 0, sizeof rd);
    rd.path = path;
    rd.jp = jp;
    int code = pb_csv_parse_table(path, on_row, &rd, &rd.nheader, err);
    if (code == PB_OK && jp->source[0] == '\0')
        snprintf(jp->source, sizeof jp->source, "csv");
    return code;
}
