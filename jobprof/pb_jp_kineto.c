/* pb_jp_kineto.c - one rank's PyTorch profiler trace: distributedInfo,
 * the events the reader uses and the NCCL form (record_param_comms).  The
 * process groups are pb_jp_kineto_pg.c's, the gloo form
 * pb_jp_kineto_gloo.c's.
 *
 * Times: Kineto writes "ts" and "dur" in microseconds with three decimals,
 * ts relative to the top-level "baseTimeNanoseconds" (libkineto
 * output_json.cpp, transToRelativeTime; torch/profiler/
 * _chrome_trace_export.py, _rel), so an event starts at baseTimeNanoseconds
 * + ts * 1000 ns since the epoch.  A trace without the key (older Kineto)
 * wrote absolute microseconds, which the same sum reads with a base of 0. */
#include "pb_jp_kineto.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_jp_bounds.h"
#include "pb_jp_kineto_priv.h"
#include "../util/pb_grow.h"

int pb_jp_is_kineto(const char *text, size_t len)
{
    size_t i = 0;
    while (i < len && isspace((unsigned char)text[i]))
        i++;
    if (i == len || text[i] != '{')
        return 0;
    /* the key follows the metadata (deviceProperties, distributedInfo), whose
     * length grows with the job: the whole text is searched */
    static const char key[] = "\"traceEvents\"";
    for (; i + sizeof key - 1 <= len; i++)
        if (text[i] == '"' && memcmp(text + i, key, sizeof key - 1) == 0)
            return 1;
    return 0;
}

int pb_kt_int(const json_t *obj, const char *key, int64_t *out)
{
    const json_t *v = obj ? json_object_get(obj, key) : NULL;
    if (json_is_integer(v)) {
        *out = (int64_t)json_integer_value(v);
        return 0;
    }
    if (!json_is_real(v))
        return -1;
    double d = json_real_value(v);
    if (d != floor(d) || fabs(d) > 9.0e18)
        return -1;
    *out = (int64_t)d;
    return 0;
}

const char *pb_kt_str(const json_t *obj, const char *key)
{
    return obj ? json_string_value(json_object_get(obj, key)) : NULL;
}

/* Element sizes of PyTorch's types parbench does not measure in, under
 * both spellings a trace uses (c10::toString's "Long" in
 * record_param_comms, the dtype's C name "long int" in "Input type"),
 * so an int64 broadcast still has its bytes. */
static size_t torch_esize(const char *t)
{
    static const struct {
        const char *name;
        size_t size;
    } tab[] = {
        {"Long", 8},         {"long int", 8},      {"Short", 2},         {"short int", 2},
        {"Byte", 1},         {"unsigned char", 1}, {"signed char", 1},   {"Bool", 1},
        {"bool", 1},         {"UInt16", 2},        {"unsigned short", 2}, {"UInt32", 4},
        {"unsigned int", 4}, {"UInt64", 8},        {"unsigned long", 8}, {"ComplexFloat", 8},
        {"c10::complex<float>", 8}, {"ComplexDouble", 16}, {"c10::complex<double>", 16},
        {"Float8_e4m3fnuz", 1}, {"c10::Float8_e4m3fnuz", 1}, {"Float8_e5m2fnuz", 1},
        {"c10::Float8_e5m2fnuz", 1},
    };
    for (size_t i = 0; t && i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(t, tab[i].name) == 0)
            return tab[i].size;
    return 0;
}

int pb_kt_add(pb_kt_t *kt, pb_jop_t *op, const char *func, const char *dtype, pb_err_t *err)
{
    /* func: the name without the dispatcher's namespace and in-place mark
     * ("c10d::allreduce_" -> "allreduce"), as record_param_comms spells it */
    const char *f = strncmp(func, "c10d::", 6) == 0 ? func + 6 : func;
    size_t fl = strlen(f);
    fl -= fl > 1 && f[fl - 1] == '_';
    snprintf(op->func, sizeof op->func, "%.*s", (int)fl, f);
    const char *d = dtype ? dtype : "";
    snprintf(op->dtype_name, sizeof op->dtype_name, "%s", strncmp(d, "c10::", 5) ? d : d + 5);
    int fok = pb_jp_func(func, &op->kind, &op->coll) == 0;
    if (!fok) {
        op->kind = PB_JK_COLL;
        op->coll = PB_ALLREDUCE; /* not read: known is 0 */
    }
    int dok = pb_jp_dtype(d, &op->dtype) == 0;
    size_t es = dok ? pb_dtype_size(op->dtype) : torch_esize(d);
    op->known = fok && dok;
    int n = kt->jp->comms[op->comm].nranks;
    /* nccl-tests' size within 2^62 (pb_jp_bounds.h): count x es (x n) checked
     * as a division, es <= 16 and n <= 2^24 */
    uint64_t per = (uint64_t)es * (fok && (op->coll == PB_ALLGATHER || op->coll == PB_REDUCESCATTER)
                                       ? (uint64_t)n : 1u);
    if (fok && per && op->count > (uint64_t)PB_JP_MAX_COUNT / per)
        return pb_err_set(err, PB_EINPUT, "%s: %s of %llu elements of %zu bytes on %d ranks: more "
                          "than 2^62 bytes", kt->name, op->func,
                          (unsigned long long)op->count, es, n);
    op->bytes = fok ? pb_jp_bytes(op->coll, n, es, op->count) : 0;
    if (pb_grow((void **)&kt->ops, &kt->opscap, kt->nops + 1, sizeof *kt->ops, 256) != 0)
        return pb_err_set(err, PB_ERUNTIME, "out of memory reading '%s'", kt->name);
    op->seq = kt->nops; /* creation order, the tie-break of the sort by issue */
    kt->ops[kt->nops++] = *op;
    return PB_OK;
}

/* distributedInfo: rank, world_size, the groups. */
static int read_dist(pb_kt_t *kt, const json_t *root, pb_err_t *err)
{
    const json_t *di = json_object_get(root, "distributedInfo");
    int64_t rank, world;
    if (!json_is_object(di))
        return pb_err_set(err, PB_EINPUT, "%s: no distributedInfo (torch.distributed was not "
                          "initialised when the profiler started)", kt->name);
    if (pb_kt_int(di, "rank", &rank) || pb_kt_int(di, "world_size", &world) || world < 1 ||
        world > (1 << 24) || rank < 0 || rank >= world)
        return pb_err_set(err, PB_EINPUT, "%s: distributedInfo has no rank in [0, world_size)",
                          kt->name);
    kt->rank = (int)rank;
    kt->world = (int)world;
    pb_jobprof_t *jp = kt->jp;
    if (jp->world && jp->world != kt->world)
        return pb_err_set(err, PB_EINPUT, "%s: world_size %d, but an earlier trace says %d",
                          kt->name, kt->world, jp->world);
    for (size_t i = 0; i < jp->nops; i++)
        if (jp->ops[i].rank == kt->rank)
            return pb_err_set(err, PB_EINPUT, "%s: rank %d was already read from another trace",
                              kt->name, kt->rank);
    const json_t *pgs = json_object_get(di, "pg_config");
    int rc = PB_OK;
    for (size_t i = 0; rc == PB_OK && i < json_array_size(pgs); i++)
        rc = pb_kt_read_pg(kt, json_array_get(pgs, i), err);
    return rc;
}

/* ---- events ---- */

static int push(pb_kevs_t *s, const pb_kev_t *e)
{
    if (pb_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v, 256) != 0)
        return -1;
    s->v[s->n++] = *e;
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const pb_kev_t *x = a, *y = b;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return (x->ext > y->ext) - (x->ext < y->ext);
}

static int by_ext(const void *a, const void *b)
{
    const pb_kev_t *x = a, *y = b;
    return (x->ext > y->ext) - (x->ext < y->ext);
}

/* The event's list, or NULL when the reader has no use for it. */
static pb_kevs_t *which(pb_kt_t *kt, const char *name, const char *cat, int64_t ext)
{
    if (strcmp(name, "record_param_comms") == 0)
        return &kt->rpc;
    if (strncmp(name, "c10d::", 6) == 0)
        return &kt->c10d;
    if (strncmp(name, "gloo:", 5) == 0)
        return &kt->gloo;
    if (cat && strcmp(cat, "kernel") == 0 && ext >= 0)
        return &kt->kern;
    return NULL;
}

static int read_events(pb_kt_t *kt, const json_t *evs, int64_t base, pb_err_t *err)
{
    for (size_t i = 0; i < json_array_size(evs); i++) {
        const json_t *e = json_array_get(evs, i);
        const char *ph = pb_kt_str(e, "ph"), *name = pb_kt_str(e, "name");
        if (ph == NULL || strcmp(ph, "X") != 0 || name == NULL)
            continue;
        pb_kev_t ev = {.args = json_object_get(e, "args"), .name = name, .tid = -1, .ext = -1};
        if (!json_is_object(ev.args))
            ev.args = NULL;
        if (pb_kt_int(ev.args, "External id", &ev.ext))
            ev.ext = -1;
        pb_kevs_t *to = which(kt, name, pb_kt_str(e, "cat"), ev.ext);
        if (to == NULL)
            continue;
        /* microseconds; past 3e15 (the year 2065 since the epoch) the sum
         * below would leave 64 bits */
        const json_t *ts = json_object_get(e, "ts"), *dur = json_object_get(e, "dur");
        double t = json_number_value(ts), d = json_number_value(dur);
        if (!json_is_number(ts) || !json_is_number(dur) || !(t >= 0 && t <= 3e15) ||
            !(d >= 0 && d <= 3e15))
            return pb_err_set(err, PB_EINPUT, "%s: event %zu (%s) has no ts or dur in [0, "
                              "3e15] us", kt->name, i, name);
        if (pb_kt_int(e, "tid", &ev.tid))
            ev.tid = -1;
        ev.t0 = base + llround(t * 1000.0);
        ev.t1 = ev.t0 + llround(d * 1000.0);
        if (ev.t1 > PB_JP_MAX_TIME_NS)
            return pb_err_set(err, PB_EINPUT, "%s: event %zu (%s) ends at %lld ns, past 2^62 ns "
                              "since the epoch (the year 2116)", kt->name, i, name,
                              (long long)ev.t1);
        /* the sizes the gloo form works out from them (pb_jp_kineto_gloo.c) */
        if (to != &kt->rpc && to != &kt->kern && pb_kt_check_dims(kt, &ev, i, err) != PB_OK)
            return err->code;
        if (push(to, &ev))
            return pb_err_set(err, PB_ERUNTIME, "out of memory reading '%s'", kt->name);
    }
    /* qsort's array may not be NULL, even for 0 elements (C11 7.22.5) */
    if (kt->rpc.n)
        qsort(kt->rpc.v, kt->rpc.n, sizeof *kt->rpc.v, by_start);
    if (kt->c10d.n)
        qsort(kt->c10d.v, kt->c10d.n, sizeof *kt->c10d.v, by_start);
    if (kt->gloo.n)
        qsort(kt->gloo.v, kt->gloo.n, sizeof *kt->gloo.v, by_start);
    if (kt->kern.n)
        qsort(kt->kern.v, kt->kern.n, sizeof *kt->kern.v, by_ext);
    return PB_OK;
}

/* ---- the NCCL form ---- */

/* The span of the GPU kernels linked to the record (same External id). */
static void rpc_kernels(const pb_kt_t *kt, int64_t ext, pb_jop_t *op)
{
    size_t lo = 0, hi = kt->kern.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (kt->kern.v[mid].ext < ext)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; ext >= 0 && i < kt->kern.n && kt->kern.v[i].ext == ext; i++) {
        const pb_kev_t *k = &kt->kern.v[i];
        op->t_start_ns = op->t_start_ns && op->t_start_ns < k->t0 ? op->t_start_ns : k->t0;
        op->t_end_ns = op->t_end_ns > k->t1 ? op->t_end_ns : k->t1;
        op->gpu_ns = op->t_end_ns - op->t_start_ns;
    }
}

static int rpc_op(pb_kt_t *kt, const pb_kev_t *e, pb_err_t *err)
{
    const json_t *a = e->args;
    const char *cname = pb_kt_str(a, "Collective name");
    /* WorkNCCL::wait records one too (ProcessGroupNCCL.cpp): no operation */
    if (cname == NULL || strcmp(cname, "wait") == 0)
        return PB_OK;
    int64_t size, in = 0, out = 0, peer = -1;
    if (pb_kt_int(a, "Group size", &size) || size < 1 || size > kt->world)
        return pb_err_set(err, PB_EINPUT, "%s: a record_param_comms '%s' without a Group size in "
                          "[1, %d]", kt->name, cname, kt->world);
    pb_kgroup_t *g = pb_kt_rpc_group(kt, a, (int)size, err);
    if (g == NULL)
        return err->code;
    pb_jop_t op = {.rank = kt->rank, .peer = -1, .gpu_ns = -1, .t_issue_ns = e->t0};
    if ((op.comm = pb_kt_comm(kt, g, err)) < 0)
        return err->code;
    static const char *const nel[2] = {"In msg nelems", "Out msg nelems"};
    int64_t *v[2] = {&in, &out};
    for (int k = 0; k < 2; k++)
        if (!pb_kt_int(a, nel[k], v[k]) && (*v[k] < 0 || *v[k] > PB_JP_MAX_COUNT))
            return pb_err_set(err, PB_EINPUT, "%s: record_param_comms '%s' has %s %lld, outside "
                              "[0, 2^62]", kt->name, cname, nel[k], (long long)*v[k]);
    pb_jkind_t kind;
    pb_coll_t c;
    int known = pb_jp_func(cname, &kind, &c) == 0;
    /* the header's convention: a reduce-scatter's count is what one rank
     * receives, everything else's what it gives */
    op.count = (uint64_t)(known && c == PB_REDUCESCATTER ? out : in ? in : out);
    /* "Rank" is the root of a rooted collective and the peer of a send or
     * receive (ProcessGroupNCCL passes opts.rootRank, dstRank, srcRank) */
    if (known && (kind != PB_JK_COLL || pb_coll_rooted(c)) && !pb_kt_int(a, "Rank", &peer) &&
        peer >= 0 && peer < size)
        op.peer = (int)peer;
    rpc_kernels(kt, e->ext, &op);
    return pb_kt_add(kt, &op, cname, pb_kt_str(a, "dtype"), err);
}

/* ---- the trace ---- */

static int by_issue(const void *a, const void *b)
{
    const pb_jop_t *x = a, *y = b;
    if (x->t_issue_ns != y->t_issue_ns)
        return x->t_issue_ns < y->t_issue_ns ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* This trace's operations in issue order, numbered on each communicator
 * from 0, into jp. */
static int finish(pb_kt_t *kt, pb_err_t *err)
{
    pb_jobprof_t *jp = kt->jp;
    if (kt->nops > 0) /* qsort wants a valid array even for none */
        qsort(kt->ops, kt->nops, sizeof *kt->ops, by_issue);
    uint64_t *next = calloc(jp->ncomms + 1, sizeof *next);
    if (next == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory reading '%s'", kt->name);
    int rc = PB_OK;
    for (size_t i = 0; rc == PB_OK && i < kt->nops; i++) {
        kt->ops[i].seq = next[kt->ops[i].comm]++;
        rc = pb_jp_add_op(jp, &kt->ops[i], err);
    }
    free(next);
    jp->world = kt->world;
    snprintf(jp->source, sizeof jp->source, "pytorch");
    return rc;
}

static int read_trace(pb_kt_t *kt, const json_t *root, pb_err_t *err)
{
    const json_t *evs = json_object_get(root, "traceEvents");
    int64_t base = 0;
    if (!json_is_array(evs))
        return pb_err_set(err, PB_EINPUT, "%s: no traceEvents array", kt->name);
    if (json_object_get(root, "baseTimeNanoseconds") &&
        (pb_kt_int(root, "baseTimeNanoseconds", &base) || base < 0 || base > 3000000000000000000))
        return pb_err_set(err, PB_EINPUT, "%s: baseTimeNanoseconds is not a time (whole ns, "
                          "[0, 3e18])", kt->name);
    int rc = read_dist(kt, root, err);
    if (rc == PB_OK)
        rc = read_events(kt, evs, base, err);
    for (size_t i = 0; rc == PB_OK && i < kt->rpc.n; i++)
        rc = rpc_op(kt, &kt->rpc.v[i], err);
    if (rc == PB_OK)
        rc = pb_kt_gloo(kt, err);
    return rc == PB_OK ? finish(kt, err) : rc;
}

int pb_jp_kineto(const char *name, const char *text, size_t len, pb_jobprof_t *jp,
                 pb_err_t *err)
{
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je);
    if (root == NULL)
        return pb_err_set(err, PB_EINPUT, "%s: not JSON (line %d: %s)", name, je.line, je.text);
    pb_kt_t kt = {.name = name, .jp = jp};
    int rc = json_is_object(root) ? read_trace(&kt, root, err)
                                  : pb_err_set(err, PB_EINPUT, "%s: not a JSON object", name);
    for (size_t i = 0; i < kt.ngroups; i++)
        free(kt.groups[i].ranks);
    free(kt.groups);
    free(kt.rpc.v);
    free(kt.c10d.v);
    free(kt.gloo.v);
    free(kt.kern.v);
    free(kt.ops);
    json_decref(root);
    return rc;
}
