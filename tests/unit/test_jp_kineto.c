/* test_jp_kineto.c - PyTorch profiler traces read into a recorded job.
 *
 * 1. Real traces (tests/fixtures/pytorch/gloo-tp2-dp2, made by
 *    make_traces.py with torch 2.15 and gloo; its README works the
 *    counts): world 4, TP {0,1} {2,3}, DP {0,2} {1,3}.  Per rank over the 2
 *    profiled steps: TP 2 broadcasts of 2x2x16 = 64 int64 and 2 x 2 x 2 x 2
 *    = 16 all-reduces of 2x16x64 = 2048 bf16; DP 2 reduce-scatters (4096
 *    fp32 in, 2048 out) and 2 all-gathers (2048 bf16 in, 4096 out); world 2
 *    all-reduces of 1 fp32 and 1 barrier: 25 per rank, 100 in all, 5
 *    communicators.
 * 2. The NCCL form, which no GPU here can record: a trace hand-written
 *    from the torch and Kineto sources (not a recording; see nccl_trace).
 * 3. Bad input, each a PB_EINPUT naming the file and why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_test.h"
#include "jobprof/pb_jobprof.h"
#include "jobprof/pb_jp_kineto.h"

#define FIX PB_SOURCE_DIR "/tests/fixtures/pytorch/gloo-tp2-dp2"

static const pb_jcomm_t *comm_of(const pb_jobprof_t *jp, int n, const int *m)
{
    for (size_t i = 0; i < jp->ncomms; i++)
        if (jp->comms[i].nranks == n && memcmp(jp->comms[i].members, m, (size_t)n * sizeof *m) == 0)
            return &jp->comms[i];
    return NULL;
}

/* Rank r's operations on c named func (any when NULL): how many, and
 * whether each has count elements and bytes bytes. */
static size_t count(const pb_jobprof_t *jp, int r, const pb_jcomm_t *c, const char *func,
                    uint64_t cnt, uint64_t bytes)
{
    size_t n = 0;
    for (size_t i = 0; i < jp->nops; i++) {
        const pb_jop_t *o = &jp->ops[i];
        if (o->rank != r || &jp->comms[o->comm] != c || (func && strcmp(o->func, func)))
            continue;
        n++;
        if (func && (o->count != cnt || o->bytes != bytes))
            fprintf(stderr, "rank %d %s seq %llu: count %llu bytes %llu\n", r, func,
                    (unsigned long long)o->seq, (unsigned long long)o->count,
                    (unsigned long long)o->bytes);
        CHECK(func == NULL || (o->count == cnt && o->bytes == bytes));
    }
    return n;
}

static const pb_jop_t *op_at(const pb_jobprof_t *jp, int r, const pb_jcomm_t *c, uint64_t seq)
{
    for (size_t i = 0; i < jp->nops; i++)
        if (jp->ops[i].rank == r && &jp->comms[jp->ops[i].comm] == c && jp->ops[i].seq == seq)
            return &jp->ops[i];
    return NULL;
}

/* One rank's 25 operations, by communicator. */
static void check_rank(const pb_jobprof_t *jp, int r)
{
    int tpm[2] = {r & ~1, (r & ~1) + 1}, dpm[2] = {r & 1, (r & 1) + 2}, wm[4] = {0, 1, 2, 3};
    const pb_jcomm_t *tp = comm_of(jp, 2, tpm), *dp = comm_of(jp, 2, dpm), *w = comm_of(jp, 4, wm);
    CHECK(tp && dp && w);
    if (!tp || !dp || !w)
        return;
    /* TP: bf16 all-reduce 2048 x 2 bytes; int64 broadcast 64 x 8 */
    CHECK(count(jp, r, tp, "allreduce", 2048, 4096) == 16);
    CHECK(count(jp, r, tp, "broadcast", 64, 512) == 2);
    CHECK(count(jp, r, tp, NULL, 0, 0) == 18);
    /* DP, nccl-tests' sizes: reduce-scatter 2048 x 2 ranks x 4 bytes, all-gather 2048 x 2 x 2 */
    CHECK(count(jp, r, dp, "_reduce_scatter_base", 2048, 16384) == 2);
    CHECK(count(jp, r, dp, "_allgather_base", 2048, 8192) == 2);
    CHECK(count(jp, r, w, "allreduce", 1, 4) == 2);
    CHECK(count(jp, r, w, "barrier", 1, 0) == 1);
    CHECK(count(jp, r, w, NULL, 0, 0) == 3);
    /* a step is a broadcast then 8 all-reduces: seq 0 and 9 are broadcasts */
    const pb_jop_t *b0 = op_at(jp, r, tp, 0), *b9 = op_at(jp, r, tp, 9), *a1 = op_at(jp, r, tp, 1);
    CHECK(b0 && b9 && a1 && op_at(jp, r, tp, 17) && !op_at(jp, r, tp, 18));
    if (!b0 || !b9 || !a1)
        return;
    CHECK(strcmp(b0->func, "broadcast") == 0 && strcmp(b9->func, "broadcast") == 0);
    /* the profiler's name for an int64 tensor */
    CHECK(b0->peer == 0 && b0->known && b0->dtype == PB_I64 && strcmp(b0->dtype_name, "long int") == 0);
    CHECK(a1->known && a1->coll == PB_ALLREDUCE && a1->dtype == PB_BF16 && a1->peer == -1);
    /* gloo work begins on its worker after the call and is CPU-timed only;
     * the times are baseTimeNanoseconds (the traces' 1790857026 s, Oct 2026)
     * plus ts: ns since the epoch, between 2023 (1.7e18) and 2036 (2.1e18) */
    CHECK(a1->t_issue_ns > 1700000000000000000LL && a1->t_issue_ns < 2100000000000000000LL);
    CHECK(a1->t_issue_ns <= a1->t_start_ns && a1->t_start_ns <= a1->t_end_ns);
    CHECK(a1->gpu_ns == -1 && a1->kind == PB_JK_COLL);
}

/* A collective's two members were inside it at one moment: the TP
 * operations of ranks 0 and 1 with one seq overlap in time (one host, one
 * clock), which holds only when each trace's operations went to the right
 * group in the right order. */
static void check_overlap(const pb_jobprof_t *jp)
{
    int m[2] = {0, 1};
    const pb_jcomm_t *tp = comm_of(jp, 2, m);
    for (uint64_t s = 0; tp && s < 18; s++) {
        const pb_jop_t *a = op_at(jp, 0, tp, s), *b = op_at(jp, 1, tp, s);
        CHECK(a && b);
        if (a && b)
            CHECK(a->t_start_ns <= b->t_end_ns && b->t_start_ns <= a->t_end_ns &&
                  strcmp(a->func, b->func) == 0);
    }
}

static void test_real(void)
{
    pb_jobprof_t jp;
    pb_err_t err = {0};
    pb_jobprof_init(&jp);
    const char *dir = FIX;
    int rc = pb_jp_load(&dir, 1, &jp, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(rc == PB_OK);
    CHECK(jp.world == 4 && strcmp(jp.source, "pytorch") == 0 && jp.dropped == 0);
    CHECK(jp.ncomms == 5 && jp.nops == 100);
    for (int r = 0; r < 4; r++)
        check_rank(&jp, r);
    check_overlap(&jp);
    int wm[4] = {0, 1, 2, 3};
    const pb_jcomm_t *w = comm_of(&jp, 4, wm);
    CHECK(w && strcmp(w->name, "default_pg") == 0);
    pb_jobprof_free(&jp);
}

/* The NCCL form, hand-written - NOT a recording - from the sources that
 * write it: the record_param_comms args as saveNcclMeta emits them
 * (torch/csrc/profiler/util.cpp: names quoted, "Process Group Ranks" a
 * string "[0, 1]", cut to "[0, ..., 28, ..., 31]" past 30 ranks; "Rank" the
 * root of a broadcast and the peer of a send, ProcessGroupNCCL.cpp), the
 * kernel carrying its record's "External id" and metadata (libkineto
 * output_json.cpp, handleActivity), a "wait" record (WorkNCCL::wait).
 * Rank 1 of 32: TP "1" {0,1} and world "0" in pg_config; "5" {1,3} only in
 * its record; "7" of 32 ranks listed cut short.  The c10d::allreduce_ on
 * tid 200 holds no record on its own thread and is the gloo form, but no
 * gloo group is listed for the gloo worker event: an NCCL trace's stray
 * gloo operation is counted dropped, the trace kept. */
#define CUT32                                                                                  \
    "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, "  \
    "24, 25, 26, 27, 28, ..., 31]"
#define RPC(ts, ext, coll, dt, in, out, gs, pg, ranks, rank)                                   \
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 9, "       \
    "\"tid\": 100, \"ts\": " ts ", \"dur\": 20, \"args\": {\"External id\": " ext ", "           \
    "\"Collective name\": \"" coll "\", \"dtype\": \"" dt "\", \"In msg nelems\": " in ", "     \
    "\"Out msg nelems\": " out ", \"In split size\": \"[]\", \"Out split size\": \"[]\", "       \
    "\"Group size\": " gs ", \"Process Group Name\": \"" pg "\", \"Process Group Ranks\": \""   \
    ranks "\", \"Rank\": " rank ", \"Seq\": 3, \"Is asynchronized op\": 0}},\n"
static const char *const nccl_ev[] = {
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"c10d::allreduce_\", \"pid\": 9, "
    "\"tid\": 100, \"ts\": 1000.000, \"dur\": 50, \"args\": {\"External id\": 10}},\n",
    RPC("1010.500", "11", "allreduce", "BFloat16", "2048", "2048", "2", "1", "[0, 1]", "1"),
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"nccl:all_reduce\", \"pid\": 9, "
    "\"tid\": 100, \"ts\": 1011, \"dur\": 5, \"args\": {\"External id\": 12}},\n",
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_bf16_RING_LL\", "
    "\"pid\": 1, \"tid\": 7, \"ts\": 1040.000, \"dur\": 100.000, \"args\": {\"External id\": 11, "
    "\"stream\": 7, \"Collective name\": \"allreduce\", \"In msg nelems\": 2048, "
    "\"Out msg nelems\": 2048, \"Group size\": 2, \"dtype\": \"BFloat16\"}},\n",
    RPC("1200", "13", "wait", "Byte", "0", "0", "1", "1", "[0, 1]", "1"),
    RPC("1300", "14", "_allgather_base", "Float", "1024", "32768", "32", "0", CUT32, "1"),
    RPC("1400", "15", "_reduce_scatter_base", "Float", "32768", "1024", "32", "0", CUT32, "1"),
    RPC("1500", "16", "broadcast", "Long", "64", "64", "32", "0", CUT32, "0"),
    RPC("1600", "17", "send", "BFloat16", "512", "512", "2", "5", "[1, 3]", "1"),
    RPC("1700", "18", "allreduce", "Float", "8", "8", "32", "7", CUT32, "1"),
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"c10d::allreduce_\", \"pid\": 9, "
    "\"tid\": 200, \"ts\": 1650, \"dur\": 100, \"args\": {}},\n",
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"gloo:all_reduce\", \"pid\": 9, "
    "\"tid\": 300, \"ts\": 1660, \"dur\": 10, \"args\": {}}\n]}\n",
};

static int nccl_load(pb_jobprof_t *jp, pb_err_t *err)
{
    static const char head[] =
        "{\"schemaVersion\": 1, \"baseTimeNanoseconds\": 1700000000000000000,\n"
        " \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 1, \"world_size\": 32,\n"
        "  \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", "
        "\"backend_config\": \"cuda:nccl\", \"pg_size\": 32, \"ranks\": [%s]},\n"
        "   {\"pg_name\": \"1\", \"pg_desc\": \"TENSOR_MODEL_PARALLEL_GROUP\", "
        "\"backend_config\": \"cuda:nccl\", \"pg_size\": 2, \"ranks\": [0, 1]}]},\n"
        " \"traceEvents\": [\n";
    char ranks[256] = "", text[16384];
    for (int r = 0; r < 32; r++)
        snprintf(ranks + strlen(ranks), sizeof ranks - strlen(ranks), "%s%d", r ? ", " : "", r);
    size_t n = (size_t)snprintf(text, sizeof text, head, ranks);
    for (size_t i = 0; i < sizeof nccl_ev / sizeof nccl_ev[0]; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s", nccl_ev[i]);
    CHECK(n < sizeof text && pb_jp_is_kineto(text, n));
    return pb_jp_kineto("nccl.json", text, n, jp, err);
}

/* The only operation of rank 1 on c with that seq. */
static const pb_jop_t *nccl_op(const pb_jobprof_t *jp, const pb_jcomm_t *c, uint64_t seq)
{
    return c ? op_at(jp, 1, c, seq) : NULL;
}

static void test_nccl(void)
{
    pb_jobprof_t jp;
    pb_err_t err = {0};
    pb_jobprof_init(&jp);
    int rc = nccl_load(&jp, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(rc == PB_OK && jp.world == 32 && jp.nops == 6 && jp.ncomms == 4 && jp.dropped == 1);
    int tpm[2] = {0, 1}, p2m[2] = {1, 3}, wm[32], unk[32];
    for (int r = 0; r < 32; r++)
        wm[r] = r, unk[r] = -1;
    const pb_jcomm_t *tp = comm_of(&jp, 2, tpm), *w = comm_of(&jp, 32, wm);
    const pb_jcomm_t *p2 = comm_of(&jp, 2, p2m), *cut = comm_of(&jp, 32, unk);
    CHECK(tp && w && p2 && cut);
    CHECK(tp && strcmp(tp->name, "TENSOR_MODEL_PARALLEL_GROUP") == 0);
    CHECK(p2 && strcmp(p2->name, "5") == 0 && cut && strcmp(cut->name, "7") == 0);
    /* the all-reduce: issued at base + 1010.5 us, its kernel 1040-1140 us */
    const pb_jop_t *ar = nccl_op(&jp, tp, 0);
    CHECK(ar && ar->known && ar->coll == PB_ALLREDUCE && ar->dtype == PB_BF16);
    CHECK(ar && ar->count == 2048 && ar->bytes == 4096 && ar->peer == -1);
    CHECK(ar && ar->t_issue_ns == 1700000000001010500LL && ar->t_start_ns == 1700000000001040000LL);
    CHECK(ar && ar->t_end_ns == 1700000000001140000LL && ar->gpu_ns == 100000);
    /* world: all-gather 1024 sent, reduce-scatter 1024 received, x 32 x 4
     * bytes each; the int64 broadcast from group rank 0, 64 x 8 bytes */
    const pb_jop_t *ag = nccl_op(&jp, w, 0), *rs = nccl_op(&jp, w, 1), *bc = nccl_op(&jp, w, 2);
    CHECK(ag && ag->coll == PB_ALLGATHER && ag->count == 1024 && ag->bytes == 131072);
    CHECK(rs && rs->coll == PB_REDUCESCATTER && rs->count == 1024 && rs->bytes == 131072);
    CHECK(rs && rs->t_start_ns == 0 && rs->t_end_ns == 0 && rs->gpu_ns == -1);
    CHECK(bc && bc->known && bc->dtype == PB_I64 && bc->peer == 0 && bc->count == 64 &&
          bc->bytes == 512);
    /* the send to group rank 1 (global 3): 512 bf16 */
    const pb_jop_t *sd = nccl_op(&jp, p2, 0), *c7 = nccl_op(&jp, cut, 0);
    CHECK(sd && sd->kind == PB_JK_SEND && sd->peer == 1 && sd->bytes == 1024);
    CHECK(c7 && c7->count == 8 && c7->bytes == 32);
    pb_jobprof_free(&jp);
}

/* text read as "bad.json" into jp: PB_EINPUT, its message naming the
 * file and saying why (holding want). */
static void bad_into(pb_jobprof_t *jp, const char *text, const char *want)
{
    pb_err_t err = {0};
    int rc = pb_jp_kineto("bad.json", text, strlen(text), jp, &err);
    if (rc != PB_EINPUT || strncmp(err.msg, "bad.json: ", 10) || !strstr(err.msg, want))
        fprintf(stderr, "want PB_EINPUT '%s', got %d '%s'\n", want, rc, err.msg);
    CHECK(rc == PB_EINPUT && strncmp(err.msg, "bad.json: ", 10) == 0 && strstr(err.msg, want));
}

static void bad(const char *text, const char *want)
{
    pb_jobprof_t jp;
    pb_jobprof_init(&jp);
    bad_into(&jp, text, want);
    pb_jobprof_free(&jp);
}

#define DI(rank, world, pgs)                                                                   \
    "{\"traceEvents\": [], \"distributedInfo\": {\"rank\": " rank ", \"world_size\": " world    \
    ", \"pg_config\": [" pgs "]}}"
#define PG(name, size, ranks, be)                                                              \
    "{\"pg_name\": \"" name "\", \"pg_desc\": \"undefined\", \"backend_config\": \"" be        \
    "\", \"pg_size\": " size ", \"ranks\": " ranks "}"

/* a gloo base all-gather of IN float elements a rank into 2 x IN, called
 * at ts on thread 1, and its worker's event on thread tid a little after */
#define AGB(ts, in)                                                                            \
    "{\"ph\": \"X\", \"name\": \"c10d::_allgather_base_\", \"tid\": 1, \"ts\": " ts            \
    ", \"dur\": 9, \"args\": {\"Input Dims\": [[16], [" in "]], \"Input type\": [\"float\", "    \
    "\"float\"]}},"
#define GLOO_AG(tid, ts)                                                                       \
    "{\"ph\": \"X\", \"name\": \"gloo:all_gather\", \"tid\": " tid ", \"ts\": " ts            \
    ", \"dur\": 1},"

static void test_bad(void)
{
    bad("not json {", "not JSON");
    bad("[1, 2]", "not a JSON object");
    bad("{\"schemaVersion\": 1}", "no traceEvents");
    bad("{\"traceEvents\": []}", "no distributedInfo");
    bad(DI("4", "4", ""), "no rank in [0, world_size)");
    bad(DI("0", "4", PG("1", "3", "[0, 1]", "cpu:gloo")), "pg_size 3 but 2 ranks");
    bad(DI("0", "4", PG("1", "2", "[2, 3]", "cpu:gloo")), "rank 0 is not in its own");
    bad("{\"distributedInfo\": {\"rank\": 0, \"world_size\": 1}, \"traceEvents\": [{\"ph\": "
        "\"X\", \"name\": \"c10d::barrier\", \"ts\": -5, \"dur\": 1}]}",
        "has no ts or dur in [0, 3e15] us");
    /* a record's ranks disagreeing with its Group size */
    bad("{\"distributedInfo\": {\"rank\": 1, \"world_size\": 4}, \"traceEvents\": ["
        RPC("5", "1", "allreduce", "Float", "8", "8", "2", "9", "[0, 1, 2]", "1") "{}]}",
        "disagree with its Group size 2");
    /* hand-written gloo form: 2 gloo groups but 3 worker threads seen,
     * one group's second thread missing (a recording can do this: a group
     * idle in the window), and nothing to tell which */
    bad("{\"distributedInfo\": {\"rank\": 0, \"world_size\": 4, \"pg_config\": ["
        PG("0", "2", "[0, 1]", "cpu:gloo") ", " PG("1", "2", "[0, 2]", "cpu:gloo") "]},"
        "\"traceEvents\": [{\"ph\": \"X\", \"name\": \"c10d::allreduce_\", \"tid\": 1, "
        "\"ts\": 1, \"dur\": 1},"
        "{\"ph\": \"X\", \"name\": \"gloo:all_reduce\", \"tid\": 5, \"ts\": 2, \"dur\": 1},"
        "{\"ph\": \"X\", \"name\": \"gloo:all_reduce\", \"tid\": 6, \"ts\": 4, \"dur\": 1},"
        "{\"ph\": \"X\", \"name\": \"gloo:all_reduce\", \"tid\": 9, \"ts\": 6, \"dur\": 1}]}",
        "3 gloo worker threads ran work for 2 gloo process groups (2 each), and their sizes "
        "fit several placements");
    /* groups of 2 and 4, every thread seen (so placed in order, two
     * each), but the second group's threads ran gathers 2 apart */
    bad("{\"distributedInfo\": {\"rank\": 0, \"world_size\": 4, \"pg_config\": ["
        PG("0", "2", "[0, 1]", "cpu:gloo") ", " PG("1", "4", "[0, 1, 2, 3]", "cpu:gloo") "]},"
        "\"traceEvents\": [" AGB("1", "8") GLOO_AG("5", "2") AGB("11", "8") GLOO_AG("6", "12")
        AGB("21", "8") GLOO_AG("7", "22") AGB("31", "8") GLOO_AG("8", "32") "{}]}",
        "sizes say its group is not '1' (4 ranks)");
    /* groups of 4 and 2, a thread idle: the 2-apart gathers fit neither
     * thread the group of 4 could have (5 or 5 and 6) */
    bad("{\"distributedInfo\": {\"rank\": 0, \"world_size\": 4, \"pg_config\": ["
        PG("0", "4", "[0, 1, 2, 3]", "cpu:gloo") ", " PG("1", "2", "[0, 1]", "cpu:gloo") "]},"
        "\"traceEvents\": [" AGB("1", "8") GLOO_AG("5", "2") AGB("11", "8") GLOO_AG("6", "12")
        AGB("21", "8") GLOO_AG("7", "22") "{}]}",
        "3 gloo worker threads ran work for 2 gloo process groups (2 each), and no placement "
        "fits their sizes");
}

/* A hand-written trace read into *jp (initialised here); its message
 * printed when refused. */
static int read_text(const char *name, const char *text, pb_jobprof_t *jp)
{
    pb_err_t err = {0};
    pb_jobprof_init(jp);
    int rc = pb_jp_kineto(name, text, strlen(text), jp, &err);
    if (rc != PB_OK)
        fprintf(stderr, "%s: %s\n", name, err.msg);
    return rc;
}

/* A gloo group idle in the recorded window shows fewer than its 2 worker
 * threads (torchtitan's 2-D job: its default group sends nothing in a
 * step; tests/fixtures/pytorch/gloo-tp2-fsdp2).  Groups in pg_config
 * order: default {0,1,2,3}, "1" {0,1}, "2" {0,2}; threads seen, sorted:
 * 5 (a barrier: no sizes), 7 and 8 (gathers 2 apart), 10 and 11 (gathers
 * 2 apart).  Handed out in order, at most two each, only one placement
 * fits: 5 the default's (5 and 7 together would put a 2-apart gather on
 * a group of 4), 7 and 8 group "1"'s, 10 and 11 group "2"'s. */
static void test_idle_group(void)
{
    static const char text[] =
        "{\"distributedInfo\": {\"rank\": 0, \"world_size\": 4, \"pg_config\": ["
        PG("0", "4", "[0, 1, 2, 3]", "cpu:gloo") ", " PG("1", "2", "[0, 1]", "cpu:gloo") ", "
        PG("2", "2", "[0, 2]", "cpu:gloo") "]},"
        "\"traceEvents\": ["
        AGB("1", "8") GLOO_AG("7", "2") AGB("11", "8") GLOO_AG("8", "12")
        AGB("21", "8") GLOO_AG("10", "22") AGB("31", "8") GLOO_AG("11", "32")
        "{\"ph\": \"X\", \"name\": \"c10d::barrier\", \"tid\": 1, \"ts\": 41, \"dur\": 9},"
        "{\"ph\": \"X\", \"name\": \"gloo:barrier\", \"tid\": 5, \"ts\": 42, \"dur\": 1}]}";
    pb_jobprof_t jp;
    int rc = read_text("idle.json", text, &jp);
    CHECK(rc == PB_OK);
    int m01[2] = {0, 1}, m02[2] = {0, 2};
    const pb_jcomm_t *a = comm_of(&jp, 2, m01), *b = comm_of(&jp, 2, m02);
    CHECK(a && b);
    /* 8 elements gathered from each of 2 ranks: 16 x 4 B */
    CHECK(a && count(&jp, 0, a, "_allgather_base", 8, 64) == 2);
    CHECK(b && count(&jp, 0, b, "_allgather_base", 8, 64) == 2);
    pb_jobprof_free(&jp);
}

/* a gloo all_to_all_single of 8 x 2 floats with split sizes [4, 4] (a
 * group of 2), called at ts on thread 1, and its worker's event */
#define A2AB(ts)                                                                                \
    "{\"ph\": \"X\", \"name\": \"c10d::alltoall_base_\", \"tid\": 1, \"ts\": " ts           \
    ", \"dur\": 9, \"args\": {\"Input Dims\": [[8, 2], [8, 2], [], [], [], [], []], "           \
    "\"Input type\": [\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"Scalar\", " \
    "\"Scalar\"], \"Concrete Inputs\": [\"\", \"\", \"\", \"[4, 4]\", \"[4, 4]\", \"True\", "    \
    "\"-1\"]}},"
#define GLOO_A2A(tid, ts)                                                                      \
    "{\"ph\": \"X\", \"name\": \"gloo:all_to_all\", \"tid\": " tid ", \"ts\": " ts           \
    ", \"dur\": 1},"

/* An MoE job's groups (tests/fixtures/pytorch/gloo-moe): default {0,1,2,3}
 * (FSDP), "1" {0,2} (expert FSDP), "3" {0,1} (EP), "5" {0,1,2,3} (the
 * loss group, one all-reduce a step: one thread).  Threads 5, 6 gather 4
 * apart, 7, 8 gather 2 apart, 9, 10 run all-to-alls, 11 an all-reduce.
 * Sizes alone fit two placements (9 the EP group's and 10, 11 the loss
 * group's, or 9, 10 the EP group's and 11 the loss group's); the
 * all-to-alls' split lists, one entry per rank, say 2 and leave one (11
 * the loss group's, whose work the default group of the same members
 * takes). */
static void test_moe_groups(void)
{
    static const char text[] =
        "{\"distributedInfo\": {\"rank\": 0, \"world_size\": 4, \"pg_config\": ["
        PG("0", "4", "[0, 1, 2, 3]", "cpu:gloo") ", " PG("1", "2", "[0, 2]", "cpu:gloo") ", "
        PG("3", "2", "[0, 1]", "cpu:gloo") ", " PG("5", "4", "[0, 1, 2, 3]", "cpu:gloo") "]},"
        "\"traceEvents\": ["
        AGB("1", "4") GLOO_AG("5", "2") AGB("11", "4") GLOO_AG("6", "12")
        AGB("21", "8") GLOO_AG("7", "22") AGB("31", "8") GLOO_AG("8", "32")
        A2AB("41") GLOO_A2A("9", "42") A2AB("51") GLOO_A2A("10", "52")
        "{\"ph\": \"X\", \"name\": \"c10d::allreduce_\", \"tid\": 1, \"ts\": 61, \"dur\": 9},"
        "{\"ph\": \"X\", \"name\": \"gloo:all_reduce\", \"tid\": 11, \"ts\": 62, \"dur\": 1}]}";
    pb_jobprof_t jp;
    int rc = read_text("moe.json", text, &jp);
    CHECK(rc == PB_OK);
    int m01[2] = {0, 1}, m02[2] = {0, 2};
    const pb_jcomm_t *ep = comm_of(&jp, 2, m01), *efsdp = comm_of(&jp, 2, m02);
    CHECK(ep && efsdp);
    /* 16 floats sent by each all-to-all: 64 B; 8 gathered from each of 2 */
    CHECK(ep && count(&jp, 0, ep, "alltoall_base", 16, 64) == 2);
    CHECK(efsdp && count(&jp, 0, efsdp, "_allgather_base", 8, 64) == 2);
    pb_jobprof_free(&jp);
}

/* Two gloo groups of the same members (DeepSpeed's data-parallel group
 * beside the default one: tests/fixtures/pytorch/gloo-ds-zero1), 3
 * worker threads seen: which group ran what no trace can tell, nor does
 * it change what is counted, so the ways count as one and the first
 * group takes the work - one communicator of {0, 1}, 3 all-reduces. */
static void test_same_members(void)
{
    static const char text[] =
        "{\"distributedInfo\": {\"rank\": 0, \"world_size\": 2, \"pg_config\": ["
        PG("0", "2", "[0, 1]", "cpu:gloo") ", " PG("1", "2", "[0, 1]", "cpu:gloo") "]},"
        "\"traceEvents\": [{\"ph\": \"X\", \"name\": \"c10d::allreduce_\", \"tid\": 1, "
        "\"ts\": 1, \"dur\": 1},"
        "{\"ph\": \"X\", \"name\": \"gloo:all_reduce\", \"tid\": 5, \"ts\": 2, \"dur\": 1},"
        "{\"ph\": \"X\", \"name\": \"c10d::allreduce_\", \"tid\": 1, \"ts\": 3, \"dur\": 1},"
        "{\"ph\": \"X\", \"name\": \"gloo:all_reduce\", \"tid\": 6, \"ts\": 4, \"dur\": 1},"
        "{\"ph\": \"X\", \"name\": \"c10d::allreduce_\", \"tid\": 1, \"ts\": 5, \"dur\": 1},"
        "{\"ph\": \"X\", \"name\": \"gloo:all_reduce\", \"tid\": 9, \"ts\": 6, \"dur\": 1}]}";
    pb_jobprof_t jp;
    int rc = read_text("same.json", text, &jp);
    CHECK(rc == PB_OK && jp.ncomms == 1);
    int m01[2] = {0, 1};
    const pb_jcomm_t *c = comm_of(&jp, 2, m01);
    CHECK(c && count(&jp, 0, c, NULL, 0, 0) == 3);
    pb_jobprof_free(&jp);
}

/* Across files: a rank twice, a world that changes. */
static void test_files(void)
{
    pb_jobprof_t jp;
    pb_err_t err = {0};
    pb_jobprof_init(&jp);
    const char *twice[2] = {FIX "/trace-rank0.json", FIX "/trace-rank0.json"};
    CHECK(pb_jp_load(twice, 2, &jp, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "trace-rank0.json: rank 0 was already read from another trace"));
    pb_jobprof_free(&jp);
    pb_jobprof_init(&jp);
    pb_err_clear(&err);
    CHECK(pb_jp_load(twice, 1, &jp, &err) == PB_OK && jp.nops == 25);
    bad_into(&jp, DI("1", "8", ""), "world_size 8, but an earlier trace says 4");
    pb_jobprof_free(&jp);
}

static void test_sniff(void)
{
    static const char yes[] = " \n{\"schemaVersion\": 1, \"traceEvents\": []}";
    static const char no1[] = "[{\"traceEvents\": []}]", no2[] = "world,every,rank\n";
    CHECK(pb_jp_is_kineto(yes, sizeof yes - 1));
    CHECK(!pb_jp_is_kineto(no1, sizeof no1 - 1) && !pb_jp_is_kineto(no2, sizeof no2 - 1));
    /* the key cut by len is not there */
    CHECK(!pb_jp_is_kineto(yes, 20));
}

int main(void)
{
    test_real();
    test_nccl();
    test_bad();
    test_idle_group();
    test_moe_groups();
    test_same_members();
    test_files();
    test_sniff();
    PB_TEST_END("test_jp_kineto");
}
