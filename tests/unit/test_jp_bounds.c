/* test_jp_bounds.c - issue 49: what a recording may not hold, refused
 * where it is read with one line naming the file and the value (exit 2),
 * and what the readers' consumers survive when handed it anyway.
 *
 * - item 7: a process group listing ranks outside the world (23 ranks of
 *   10 digits, the trigger), and the ops CSV written for such
 *   members without overflowing its buffer;
 * - item 10: element counts, byte sizes and times past 2^62 (jobprof/
 *   pb_jp_bounds.h), each an input that overflowed a signed 64-bit sum or
 *   product before (UBSan: -DPARBENCH_SANITIZE=address,undefined);
 * - item 11: an ops CSV row that ends before it starts; the ranks of the
 *   world a recording holds no record of (three traces of four);
 * - item 13: gzipped traces (torch.profiler's *.pt.trace.json.gz), read
 *   as the plain ones they were made from.
 *
 * `unit_jp_bounds NAME` runs one test (a sanitizer stops the program at
 * the first report: one at a time shows each). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_test.h"
#include "jobprof/pb_jobprof.h"
#include "jobprof/pb_jp_csv.h"
#include "jobprof/pb_jp_inst.h"
#include "jobprof/pb_jp_kineto.h"
#include "jobprof/pb_jp_ranks.h"
#include "jobprof/pb_jp_stats.h"

#define PYT PB_SOURCE_DIR "/tests/fixtures/pytorch"

/* text read as "bad.json": PB_EINPUT, the message naming the file and
 * holding want. */
static void bad(const char *text, const char *want)
{
    pb_jobprof_t jp;
    pb_err_t err = {0};
    pb_jobprof_init(&jp);
    int rc = pb_jp_kineto("bad.json", text, strlen(text), &jp, &err);
    if (rc != PB_EINPUT || strncmp(err.msg, "bad.json: ", 10) || !strstr(err.msg, want))
        fprintf(stderr, "want PB_EINPUT '%s', got %d '%s'\n", want, rc, err.msg);
    CHECK(rc == PB_EINPUT && strncmp(err.msg, "bad.json: ", 10) == 0 && strstr(err.msg, want));
    pb_jobprof_free(&jp);
}

/* "0, 1000000001, ..., 1000000022": rank 0 and 22 ranks of 10 digits */
static void big_ranks(char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "0");
    for (int i = 1; i < 23; i++)
        n += (size_t)snprintf(buf + n, len - n, ", %d", 1000000000 + i);
}

/* Item 7 in the reader: rank 0 of 32, one group of 23 ranks naming ranks
 * past the world, listed in pg_config, or only in its record. */
static void test_group_ranks(void)
{
    static const char pg[] =
        "{\"distributedInfo\": {\"rank\": 0, \"world_size\": 32, \"pg_config\": [{\"pg_name\": "
        "\"1\", \"pg_desc\": \"undefined\", \"backend_config\": \"cuda:nccl\", \"pg_size\": 23, "
        "\"ranks\": [%s]}]}, \"traceEvents\": [{\"ph\": \"X\", \"name\": \"record_param_comms\", "
        "\"tid\": 1, \"ts\": 5, \"dur\": 1, \"args\": {\"Collective name\": \"allreduce\", "
        "\"dtype\": \"Float\", \"In msg nelems\": 8, \"Out msg nelems\": 8, \"Group size\": 23, "
        "\"Process Group Name\": \"1\"}}]}";
    static const char rpc[] =
        "{\"distributedInfo\": {\"rank\": 0, \"world_size\": 32}, \"traceEvents\": [{\"ph\": "
        "\"X\", \"name\": \"record_param_comms\", \"tid\": 1, \"ts\": 5, \"dur\": 1, \"args\": "
        "{\"Collective name\": \"allreduce\", \"dtype\": \"Float\", \"In msg nelems\": 8, "
        "\"Out msg nelems\": 8, \"Group size\": 23, \"Process Group Name\": \"1\", "
        "\"Process Group Ranks\": \"[%s]\"}}]}";
    char ranks[512], text[2048];
    big_ranks(ranks, sizeof ranks);
    snprintf(text, sizeof text, pg, ranks);
    bad(text, "process group '1' lists rank 1000000001, outside the world's [0, 32)");
    snprintf(text, sizeof text, rpc, ranks);
    bad(text, "process group '1' lists rank 1000000001, outside the world's [0, 32)");
    /* a negative rank is no rank either (it read as a count mismatch) */
    bad("{\"distributedInfo\": {\"rank\": 0, \"world_size\": 4, \"pg_config\": [{\"pg_name\": "
        "\"1\", \"pg_size\": 2, \"ranks\": [0, -3]}]}, \"traceEvents\": []}",
        "process group '1' lists rank -3, outside the world's [0, 4)");
}

/* Item 7 in the writer: members of any int, 23 of 10 digits here (each
 * 11 characters with its blank, where 10 were allowed), written whole. */
static void test_csv_members(void)
{
    pb_jobprof_t jp;
    pb_err_t err = {0};
    pb_jobprof_init(&jp);
    int c = pb_jp_comm(&jp, 0xab, "big", 23, &err);
    CHECK(c == 0);
    char want[512];
    size_t n = 0;
    for (int i = 0; c == 0 && i < 23; i++) {
        jp.comms[c].members[i] = 1000000000 + i;
        n += (size_t)snprintf(want + n, sizeof want - n, "%s%d", i ? " " : "", 1000000000 + i);
    }
    pb_jop_t op = {.comm = 0, .peer = -1, .gpu_ns = -1};
    snprintf(op.func, sizeof op.func, "AllReduce");
    CHECK(c != 0 || pb_jp_add_op(&jp, &op, &err) == PB_OK);
    char path[] = "/tmp/pb-jp-bounds-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    CHECK(pb_jp_csv_write(path, &jp, &err) == PB_OK);
    char text[4096] = "";
    FILE *f = fopen(path, "r");
    size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[got] = '\0';
    if (f)
        fclose(f);
    char quoted[520];
    snprintf(quoted, sizeof quoted, ",\"%s\",", want); /* libcsv quotes every string */
    CHECK(strstr(text, quoted) != NULL);
    remove(path);
    pb_jobprof_free(&jp);
}

/* a single gloo group (rank 0 of 2): one all-reduce of Input Dims DIMS */
#define GLOO1(dims)                                                                            \
    "{\"distributedInfo\": {\"rank\": 0, \"world_size\": 2, \"pg_config\": [{\"pg_name\": "    \
    "\"0\", \"pg_desc\": \"default_pg\", \"backend_config\": \"cpu:gloo\", \"pg_size\": 2, "   \
    "\"ranks\": [0, 1]}]}, \"traceEvents\": [{\"ph\": \"X\", \"name\": \"c10d::allreduce_\", " \
    "\"tid\": 1, \"ts\": 1, \"dur\": 9, \"args\": {\"Input Dims\": [" dims "], \"Input type\": " \
    "[\"float\"]}}, {\"ph\": \"X\", \"name\": \"gloo:all_reduce\", \"tid\": 5, \"ts\": 2, "       \
    "\"dur\": 1}]}"
/* rank 1 of 32, one record_param_comms on the world: its args ARGS */
#define RPC1(base, ts, args)                                                                   \
    "{\"baseTimeNanoseconds\": " base ", \"distributedInfo\": {\"rank\": 1, \"world_size\": "  \
    "32}, \"traceEvents\": [{\"ph\": \"X\", \"name\": \"record_param_comms\", \"tid\": 1, "     \
    "\"ts\": " ts ", \"dur\": 1, \"args\": {\"Group size\": 32, \"Process Group Name\": "       \
    "\"0\", " args "}}]}"

/* Item 10 in the trace reader: a gloo op's tensor sizes. */
static void test_dims(void)
{
    /* 2^31 x 2^31 x 4 = 2^64 elements: the product overflowed */
    bad(GLOO1("[2147483648, 2147483648, 4]"),
        "event 0 (c10d::allreduce_): Input Dims entry 0, [2147483648, 2147483648, 4], holds "
        "more than 2^62 elements");
    /* a list of tensors: 2^62 + 2^62 elements, the sum overflowed */
    bad(GLOO1("[[4611686018427387904], [4611686018427387904]]"),
        "holds more than 2^62 elements");
    bad(GLOO1("[[8, -2]]"), "Input Dims entry 0, [[8, -2]], holds a negative dimension");
}

/* Item 10 in the trace reader: an NCCL record's counts, sizes, times. */
static void test_trace_bounds(void)
{
    /* 2^62 + 1 elements */
    bad(RPC1("0", "5", "\"Collective name\": \"allreduce\", \"dtype\": \"Float\", "
             "\"In msg nelems\": 4611686018427387905"),
        "record_param_comms 'allreduce' has In msg nelems 4611686018427387905, outside [0, 2^62]");
    bad(RPC1("0", "5", "\"Collective name\": \"allreduce\", \"dtype\": \"Float\", "
             "\"In msg nelems\": 8, \"Out msg nelems\": -1"),
        "has Out msg nelems -1, outside [0, 2^62]");
    /* 2^60 floats gathered from 32 ranks: 2^60 x 4 x 32 = 2^67 bytes */
    bad(RPC1("0", "5", "\"Collective name\": \"_allgather_base\", \"dtype\": \"Float\", "
             "\"In msg nelems\": 1152921504606846976"),
        "_allgather_base of 1152921504606846976 elements of 4 bytes on 32 ranks: more than "
        "2^62 bytes");
    /* 3e18 ns + 2e15 us = 5e18 ns since the epoch: past 2^62 (2116) */
    bad(RPC1("3000000000000000000", "2000000000000000",
             "\"Collective name\": \"allreduce\", \"dtype\": \"Float\", \"In msg nelems\": 8"),
        "event 0 (record_param_comms) ends at 5000000000000001000 ns, past 2^62 ns since the "
        "epoch (the year 2116)");
}

/* Item 11 in the trace reader: an event that ends before it starts (a
 * negative "dur") is refused, the NCCL record's kernel here; it was before
 * issue 49 too (read_events), this keeps it so. */
static void test_trace_backwards(void)
{
    bad("{\"distributedInfo\": {\"rank\": 1, \"world_size\": 2}, \"traceEvents\": [{\"ph\": "
        "\"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce\", \"ts\": 50, "
        "\"dur\": -10, \"args\": {\"External id\": 7}}]}",
        "event 0 (ncclDevKernel_AllReduce) has no ts or dur in [0, 3e15] us");
}

/* Item 10 in the statistics: two instances of 2^62 ns each (the most a
 * reader lets through) sum to 2^63, one past INT64_MAX. */
static void test_stats_sum(void)
{
    pb_jobprof_t jp;
    pb_err_t err = {0};
    pb_jobprof_init(&jp);
    CHECK(pb_jp_comm(&jp, 1, "w", 1, &err) == 0);
    jp.comms[0].members[0] = 0;
    for (uint64_t s = 0; s < 2; s++) {
        pb_jop_t op = {.comm = 0, .known = 1, .coll = PB_ALLREDUCE, .dtype = PB_F32, .count = 1,
                       .bytes = 4, .peer = -1, .seq = s, .gpu_ns = INT64_C(1) << 62};
        snprintf(op.func, sizeof op.func, "AllReduce");
        CHECK(pb_jp_add_op(&jp, &op, &err) == PB_OK);
    }
    pb_jp_insts_t in;
    pb_jp_stats_t st;
    CHECK(pb_jp_insts_build(&jp, &in, &err) == PB_OK && in.n == 2);
    int rc = pb_jp_stats_build(&jp, &in, &st, &err);
    CHECK(rc == PB_EINPUT && strstr(err.msg, "the recorded durations sum past 2^63 ns"));
    if (rc == PB_OK)
        pb_jp_stats_free(&st);
    pb_jp_insts_free(&in);
    pb_jobprof_free(&jp);
}

#define CSV_HEAD                                                                                \
    "world,every,rank,comm_id,comm_name,comm_size,members,dim,seq,kind,func,collective,dtype,"  \
    "count,bytes,peer,t_issue_ns,t_start_ns,t_end_ns,gpu_ns,algo,proto,nchannels\n"

/* One ops CSV row (world 2, rank RANK, members MEMBERS, count, times)
 * read: its code and message. */
static int csv_row(const char *rank, const char *members, const char *count, const char *times,
                   pb_err_t *err)
{
    char path[] = "/tmp/pb-jp-bounds-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK(f != NULL);
    if (f == NULL)
        return -1;
    fprintf(f, CSV_HEAD "2,1,%s,00000000000000ab,tp,2,%s,tp,0,coll,AllReduce,allreduce,bf16,%s,"
            "0,-1,%s,,,0\n", rank, members, count, times);
    fclose(f);
    pb_jobprof_t jp;
    pb_jobprof_init(&jp);
    pb_err_clear(err);
    const char *p = path;
    int rc = pb_jp_load(&p, 1, &jp, err);
    /* the message names the file: the part after it */
    const char *at = strstr(err->msg, path);
    if (at)
        memmove(err->msg, at + strlen(path), strlen(at + strlen(path)) + 1);
    pb_jobprof_free(&jp);
    remove(path);
    return rc;
}

static void csv_bad(const char *rank, const char *members, const char *count, const char *times,
                    const char *want)
{
    pb_err_t err;
    int rc = csv_row(rank, members, count, times, &err);
    if (rc != PB_EINPUT || strstr(err.msg, want) == NULL)
        fprintf(stderr, "want PB_EINPUT '%s', got %d '%s'\n", want, rc, err.msg);
    CHECK(rc == PB_EINPUT && strstr(err.msg, want) != NULL);
}

/* Items 7, 10 and 11 in the ops CSV, which `parbench import` writes and
 * profile and replay read: each field in its range. */
static void test_csv_bounds(void)
{
    pb_err_t err;
    /* a good row first: 1000 issue, 2000 start, 3000 end, no GPU time */
    CHECK(csv_row("0", "0 1", "1024", "1000,2000,3000,-1", &err) == PB_OK);
    csv_bad("0", "0 1", "1024", "1000,2000,1500,-1",
            ":2: the operation ends (t_end_ns 1500) before it starts (t_start_ns 2000)");
    csv_bad("0", "0 1", "1024", "1000,4611686018427387905,4611686018427387906,-1",
            ":2: t_start_ns 4611686018427387905 is not in [0, 2^62]");
    /* t_start + gpu_ns: the replay's end of a record without one */
    csv_bad("0", "0 1", "1024", "1000,9223372036854775000,0,9223372036854775000",
            ":2: t_start_ns 9223372036854775000 is not in [0, 2^62]");
    csv_bad("0", "0 1", "4611686018427387905", "1000,2000,3000,-1",
            ":2: count 4611686018427387905 is not in [0, 2^62]");
    csv_bad("2", "0 1", "1024", "1000,2000,3000,-1", ":2: rank 2 is outside the world's [0, 2)");
    csv_bad("0", "0 7", "1024", "1000,2000,3000,-1",
            ":2: members '0 7' name rank 7, outside the world's [0, 2)");
}

/* A row refused for its communicator is refused, however many
 * communicators came before.  The reader's helper once returned the
 * error's code, 2, as the communicator's index: with three communicators
 * read, a row naming the first with other members was added to the
 * third (found by fuzz_kineto's round trip). */
static void test_csv_comm_index(void)
{
    static const char rows[] =
        CSV_HEAD
        "2,1,0,00000000000000aa,a,2,0 1,tp,0,coll,AllReduce,allreduce,bf16,8,0,-1,1,2,3,-1,,,0\n"
        "2,1,0,00000000000000bb,b,2,0 1,tp,0,coll,AllReduce,allreduce,bf16,8,0,-1,1,2,3,-1,,,0\n"
        "2,1,0,00000000000000cc,c,2,0 1,tp,0,coll,AllReduce,allreduce,bf16,8,0,-1,1,2,3,-1,,,0\n"
        "2,1,0,00000000000000aa,a,2,1 0,tp,1,coll,AllReduce,allreduce,bf16,8,0,-1,1,2,3,-1,,,0\n";
    pb_jobprof_t jp;
    pb_err_t err = {0};
    pb_jobprof_init(&jp);
    int rc = pb_jp_csv_read_text("rows.csv", rows, sizeof rows - 1, &jp, &err);
    CHECK(rc == PB_EINPUT && strstr(err.msg, "rows.csv:5: members '1 0' are not 2 global ranks "
                                             "agreeing with earlier rows") != NULL);
    pb_jobprof_free(&jp);
}

static int load_dir(const char *dir, pb_jobprof_t *jp, pb_err_t *err)
{
    pb_jobprof_init(jp);
    pb_err_clear(err);
    int rc = pb_jp_load(&dir, 1, jp, err);
    if (rc != PB_OK)
        fprintf(stderr, "%s: %s\n", dir, err->msg);
    return rc;
}

/* Item 13: gloo-ds-zero1-gz is gloo-ds-zero1 gzipped (its README): the
 * same job, record for record. */
static void test_gzip(void)
{
    pb_jobprof_t a, b;
    pb_err_t err;
    CHECK(load_dir(PYT "/gloo-ds-zero1", &a, &err) == PB_OK);
    CHECK(load_dir(PYT "/gloo-ds-zero1-gz", &b, &err) == PB_OK);
    CHECK(a.nops > 0 && a.nops == b.nops && a.ncomms == b.ncomms && a.world == b.world);
    for (size_t i = 0; i < a.nops && i < b.nops; i++)
        CHECK(memcmp(&a.ops[i], &b.ops[i], sizeof a.ops[i]) == 0);
    pb_jobprof_free(&b);
    /* one file named alone, as import and replay are given them */
    const char *one = PYT "/gloo-ds-zero1-gz/trace-rank2.pt.trace.json.gz";
    pb_jobprof_init(&b);
    CHECK(pb_jp_load(&one, 1, &b, &err) == PB_OK);
    size_t n2 = 0;
    for (size_t i = 0; i < a.nops; i++)
        n2 += a.ops[i].rank == 2;
    CHECK(n2 > 0 && b.nops == n2);
    pb_jobprof_free(&b);
    pb_jobprof_free(&a);
    /* the same file cut in half: refused, not read as far as it goes */
    FILE *in = fopen(one, "rb");
    char buf[8192], path[] = "/tmp/pb-jp-bounds-XXXXXX";
    size_t n = in ? fread(buf, 1, sizeof buf, in) : 0;
    if (in)
        fclose(in);
    int fd = mkstemp(path);
    CHECK(n > 100 && fd >= 0 && write(fd, buf, n / 2) == (ssize_t)(n / 2));
    if (fd >= 0)
        close(fd);
    const char *cut = path;
    pb_jobprof_init(&b);
    int rc = pb_jp_load(&cut, 1, &b, &err);
    CHECK(rc == PB_EINPUT && strstr(err.msg, path) && strstr(err.msg, "gzip data cut short"));
    pb_jobprof_free(&b);
    remove(path);
}

/* Item 11: three of gloo-ds-zero1's four traces: world 4 (every trace's
 * distributedInfo says so), rank 3 recorded nothing here. */
static void test_missing(void)
{
    const char *three[3] = {PYT "/gloo-ds-zero1/trace-rank0.json",
                            PYT "/gloo-ds-zero1/trace-rank1.json",
                            PYT "/gloo-ds-zero1/trace-rank2.json"};
    pb_jobprof_t jp;
    pb_err_t err = {0};
    pb_jobprof_init(&jp);
    CHECK(pb_jp_load(three, 3, &jp, &err) == PB_OK && jp.world == 4);
    char buf[64];
    CHECK(pb_jp_missing_ranks(&jp, buf, sizeof buf) == 1 && strcmp(buf, "3") == 0);
    pb_jobprof_free(&jp);
    CHECK(load_dir(PYT "/gloo-ds-zero1", &jp, &err) == PB_OK);
    CHECK(pb_jp_missing_ranks(&jp, buf, sizeof buf) == 0 && buf[0] == '\0');
    pb_jobprof_free(&jp);
    /* runs joined; cut where the room ends */
    const unsigned char f[7] = {0, 1, 0, 1, 1, 1, 0};
    pb_jp_ranks_text(f, 7, buf, sizeof buf);
    CHECK(strcmp(buf, "1, 3-5") == 0);
    pb_jp_ranks_text(f, 7, buf, 8); /* "1" then ", 3-5" would leave no room for ", ..." */
    CHECK(strcmp(buf, "1, ...") == 0);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } tests[] = {
        {"group_ranks", test_group_ranks}, {"csv_members", test_csv_members},
        {"dims", test_dims},               {"trace_bounds", test_trace_bounds},
        {"stats_sum", test_stats_sum},
        {"csv_bounds", test_csv_bounds},   {"gzip", test_gzip},
        {"missing", test_missing},         {"trace_backwards", test_trace_backwards},
        {"csv_comm_index", test_csv_comm_index},
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
        if (argc < 2 || strcmp(argv[1], tests[i].name) == 0)
            tests[i].fn();
    PB_TEST_END("unit_jp_bounds");
}
