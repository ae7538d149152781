/* pb_jp_csv.c - the ops CSV, through libcsv (pb_jp_csv.h). */
#include "pb_jp_csv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_jp_bounds.h"
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
    /* room for any int, whatever a reader let through: 11 characters
     * ("-2147483648") and a blank each; and m never passes what was
     * written, so a short buffer could only cut the list, never overrun */
    size_t cap = (size_t)c->nranks * 12 + 1, m = 0;
    char *members = malloc(cap);
    if (members == NULL)
        return -1;
    members[0] = '\0';
    for (int r = 0; r < c->nranks && m < cap; r++) {
        int w = snprintf(members + m, cap - m, "%s%d", r ? " " : "", c->members[r]);
        m += w > 0 ? (size_t)w : 0;
    }
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

/* err set as pb_err_set sets it; -1, the index of no communicator. */
__attribute__((format(printf, 3, 4))) static int refuse(pb_err_t *err, int code,
                                                        const char *fmt, ...)
{
    char msg[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pb_err_set(err, code, "%s", msg);
    return -1;
}

/* The row's communicator, added or checked against the earlier rows;
 * its members global ranks of the row's world (when it names one).  Its
 * index, or -1 with err set (never the error's code: that is an index
 * too, and a refused row was once added to communicator 2). */
static int row_comm(rd_t *rd, size_t line, const char *const *f, int64_t world, pb_err_t *err)
{
    int64_t n;
    uint64_t id;
    char *end;
    errno = 0;
    id = strtoull(f[C_COMM_ID], &end, 16);
    if (*f[C_COMM_ID] == '\0' || *end != '\0' || errno != 0 ||
        get_i64(f[C_COMM_SIZE], 1, 1 << 24, &n) != 0)
        return refuse(err, PB_EINPUT, "%s:%zu: bad comm_id or comm_size", rd->path, line);
    pb_err_t e2 = {0};
    int c = pb_jp_comm(rd->jp, id, f[C_COMM_NAME], (int)n, &e2);
    if (c < 0)
        return refuse(err, e2.code, "%s:%zu: %s", rd->path, line, e2.msg);
    pb_jcomm_t *cm = &rd->jp->comms[c];
    const char *p = f[C_MEMBERS];
    for (int r = 0; r < cm->nranks; r++) {
        long v = strtol(p, &end, 10);
        if (end == p || v < -1 || v > (1L << 24) || (cm->members[r] >= 0 && cm->members[r] != v))
            return refuse(err, PB_EINPUT, "%s:%zu: members '%.80s' are not %d global ranks "
                          "agreeing with earlier rows", rd->path, line, f[C_MEMBERS], cm->nranks);
        if (world > 0 && v >= world)
            return refuse(err, PB_EINPUT, "%s:%zu: members '%.80s' name rank %ld, outside the "
                          "world's [0, %lld)", rd->path, line, f[C_MEMBERS], v, (long long)world);
        if (v >= 0)
            cm->members[r] = (int)v;
        p = end;
    }
    for (int d = 0; d < PB_JD_COUNT; d++)
        if (strcmp(f[C_DIM], pb_jdim_name((pb_jdim_t)d)) == 0)
            cm->dim = (pb_jdim_t)d;
    return c;
}

/* The operation's numbers, each in its range (pb_jp_bounds.h: counts,
 * sizes and times at most 2^62, so that a start plus a duration, or two
 * durations, cannot overflow where the records are used). */
static int row_nums(rd_t *rd, size_t line, const char *const *f, int64_t *v, pb_err_t *err)
{
    static const struct {
        int col;
        int64_t lo, hi;
    } num[] = {
        {C_RANK, 0, (1 << 24) - 1},        {C_SEQ, 0, INT64_MAX},
        {C_COUNT, 0, PB_JP_MAX_COUNT},     {C_BYTES, 0, PB_JP_MAX_COUNT},
        {C_PEER, -1, INT64_MAX},           {C_T_ISSUE, 0, PB_JP_MAX_TIME_NS},
        {C_T_START, 0, PB_JP_MAX_TIME_NS}, {C_T_END, 0, PB_JP_MAX_TIME_NS},
        {C_GPU, -1, PB_JP_MAX_TIME_NS},    {C_NCH, 0, 1024},
    };
    for (size_t k = 0; k < sizeof num / sizeof num[0]; k++) {
        if (get_i64(f[num[k].col], num[k].lo, num[k].hi, &v[k]) == 0)
            continue;
        char hi[24];
        if (num[k].hi == PB_JP_MAX_COUNT) /* = PB_JP_MAX_TIME_NS */
            snprintf(hi, sizeof hi, "2^62");
        else
            snprintf(hi, sizeof hi, "%lld", (long long)num[k].hi);
        return pb_err_set(err, PB_EINPUT, "%s:%zu: %s %.40s is not in [%lld, %s]", rd->path, line,
                          col_names[num[k].col], f[num[k].col], (long long)num[k].lo, hi);
    }
    return PB_OK;
}

/* The operation's own fields. */
static int row_op(rd_t *rd, size_t line, const char *const *f, int64_t world, pb_jop_t *op,
                  pb_err_t *err)
{
    int64_t v[10];
    if (row_nums(rd, line, f, v, err) != PB_OK)
        return err->code;
    op->rank = (int)v[0];
    op->seq = (uint64_t)v[1];
    op->count = (uint64_t)v[2];
    op->bytes = (uint64_t)v[3];
    op->peer = (int)(v[4] < (1 << 24) ? v[4] : -1);
    op->t_issue_ns = v[5];
    op->t_start_ns = v[6];
    op->t_end_ns = v[7];
    op->gpu_ns = v[8];
    op->nchannels = (int)v[9];
    if (world > 0 && op->rank >= world)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: rank %d is outside the world's [0, %lld)",
                          rd->path, line, op->rank, (long long)world);
    /* impossible, so never a measurement: the file was damaged or edited */
    if (op->t_start_ns > 0 && op->t_end_ns > 0 && op->t_end_ns < op->t_start_ns)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: the operation ends (t_end_ns %lld) before it "
                          "starts (t_start_ns %lld)", rd->path, line, (long long)op->t_end_ns,
                          (long long)op->t_start_ns);
    int k = 0;
    while (k < 3 && strcmp(f[C_KIND], kind_names[k]) != 0)
        k++;
    if (k == 3 || get_str(op->func, sizeof op->func, f[C_FUNC]) ||
        get_str(op->dtype_name, sizeof op->dtype_name, f[C_DTYPE]) ||
        get_str(op->algo, sizeof op->algo, f[C_ALGO]) ||
        get_str(op->proto, sizeof op->proto, f[C_PROTO]))
        return pb_err_set(err, PB_EINPUT, "%s:%zu: not an operation row (an unknown kind, or a "
                          "name too long)", rd->path, line);
    op->kind = (pb_jkind_t)k;
    op->known = f[C_COLL][0] && pb_coll_parse(f[C_COLL], &op->coll) == 0 &&
                pb_jp_dtype(op->dtype_name, &op->dtype) == 0;
    return PB_OK;
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
    if ((op.comm = row_comm(rd, line, f, world, err)) < 0)
        return err->code;
    if (row_op(rd, line, f, world, &op, err) != PB_OK)
        return err->code;
    if (op.known && op.bytes == 0) { /* within 2^62 too, as pb_kt_add checks it */
        int n = rd->jp->comms[op.comm].nranks;
        uint64_t per = (uint64_t)pb_dtype_size(op.dtype) *
                       (op.coll == PB_ALLGATHER || op.coll == PB_REDUCESCATTER ? (uint64_t)n : 1u);
        if (per && op.count > (uint64_t)PB_JP_MAX_COUNT / per)
            return pb_err_set(err, PB_EINPUT, "%s:%zu: count %llu of %s on %d ranks is more than "
                              "2^62 bytes", rd->path, line, (unsigned long long)op.count,
                              op.dtype_name, n);
        op.bytes = pb_jp_bytes(op.coll, n, pb_dtype_size(op.dtype), op.count);
    }
    return pb_jp_add_op(rd->jp, &op, err);
}

static int csv_done(rd_t *rd, int code, pb_err_t *err)
{
    if (code == PB_OK && rd->nheader == 0)
        code = pb_err_set(err, PB_EINPUT, "%s: empty file, expected a header line", rd->path);
    if (code == PB_OK && rd->jp->source[0] == '\0')
        snprintf(rd->jp->source, sizeof rd->jp->source, "csv");
    return code;
}

int pb_jp_csv_read(const char *path, pb_jobprof_t *jp, pb_err_t *err)
{
    rd_t rd;
    memset(&rd, 0, sizeof rd);
    rd.path = path;
    rd.jp = jp;
    return csv_done(&rd, pb_csv_parse_path(path, on_row, &rd, err), err);
}

int pb_jp_csv_read_text(const char *name, const char *text, size_t len, pb_jobprof_t *jp,
                        pb_err_t *err)
{
    rd_t rd;
    memset(&rd, 0, sizeof rd);
    rd.path = name;
    rd.jp = jp;
    if (len == 0) /* fmemopen may refuse a buffer of size 0 */
        return csv_done(&rd, PB_OK, err);
    /* a stream over the bytes (a gunzipped file's: pb_jp_gz.h), read as a file is */
    FILE *f = fmemopen((void *)text, len, "r");
    if (f == NULL)
        return pb_err_set(err, PB_ERUNTIME, "cannot read '%s' from memory", name);
    int code = pb_csv_parse_file(f, name, on_row, &rd, err);
    fclose(f);
    return csv_done(&rd, code, err);
}
