/* libFuzzer target: a PyTorch profiler trace as parbench reads one -
 * gunzipped when it starts with gzip's magic (jobprof/pb_jp_gz.h), then
 * the Kineto reader (jobprof/pb_jp_kineto.h), or the ops CSV reader
 * where the text is that CSV - and what is done with the job it gives:
 * the records joined and counted, written as the ops CSV and read back.
 * The seeds (corpus/kineto) are a small real trace (tests/fixtures/
 * pytorch/gloo-ds-zero1, rank 0), its gzip, a hand-written trace of the
 * NCCL form (record_param_comms and kernels: no recording of it can be
 * made without a GPU), and the ops CSV parbench import writes from that
 * real trace.
 *
 * A refusal must be PB_EINPUT with a message (PB_ERUNTIME only out of
 * memory), never a crash, a leak or undefined behaviour; and a trace
 * taken must hold only what a reader may pass on (pb_jp_bounds.h): ranks
 * and members in the world, counts, sizes and times within 2^62, no
 * record that ends before it starts - so that the ops CSV the job is
 * written as (by parbench import) is read back whole. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprof/pb_jp_bounds.h"
#include "jobprof/pb_jp_csv.h"
#include "jobprof/pb_jp_gz.h"
#include "jobprof/pb_jp_inst.h"
#include "jobprof/pb_jp_kineto.h"
#include "jobprof/pb_jp_stats.h"
#include "pb_fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int time_ok(int64_t t)
{
    return t >= 0 && t <= PB_JP_MAX_TIME_NS;
}

/* What the reader promises of a job it took. */
static void check_job(const pb_jobprof_t *jp)
{
    if (jp->world < 1 || jp->world > (1 << 24))
        abort();
    for (size_t c = 0; c < jp->ncomms; c++)
        for (int k = 0; k < jp->comms[c].nranks; k++)
            if (jp->comms[c].members[k] < -1 || jp->comms[c].members[k] >= jp->world)
                abort();
    for (size_t i = 0; i < jp->nops; i++) {
        const pb_jop_t *o = &jp->ops[i];
        if (o->rank < 0 || o->rank >= jp->world || o->comm < 0 || (size_t)o->comm >= jp->ncomms ||
            o->count > (uint64_t)PB_JP_MAX_COUNT || o->bytes > (uint64_t)PB_JP_MAX_COUNT ||
            !time_ok(o->t_issue_ns) || !time_ok(o->t_start_ns) || !time_ok(o->t_end_ns) ||
            (o->gpu_ns != -1 && !time_ok(o->gpu_ns)) || o->peer >= jp->comms[o->comm].nranks ||
            (o->t_start_ns > 0 && o->t_end_ns > 0 && o->t_end_ns < o->t_start_ns))
            abort();
    }
}

/* The job as the ops CSV and back: every record again. */
static void round_trip(const pb_jobprof_t *jp)
{
    char path[64];
    const char *p = pb_fuzz_file((const uint8_t *)"", 0, path, sizeof path);
    pb_err_t err;
    pb_err_clear(&err);
    if (p == NULL || pb_jp_csv_write(p, jp, &err) != PB_OK)
        return; /* the machine's file, not the reader: nothing to judge */
    pb_jobprof_t back;
    pb_jobprof_init(&back);
    int code = pb_jp_csv_read(p, &back, &err);
    if (code != PB_OK || back.nops != jp->nops || back.ncomms != jp->ncomms) {
        fprintf(stderr, "fuzz_kineto: the CSV of a trace taken is refused: %s\n", err.msg);
        abort();
    }
    pb_jobprof_free(&back);
}

/* What profile counts of a job. */
static void analyse(const pb_jobprof_t *jp)
{
    pb_err_t err;
    pb_err_clear(&err);
    pb_jp_insts_t in;
    if (pb_jp_insts_build(jp, &in, &err) != PB_OK)
        abort();
    pb_jp_stats_t st;
    int code = pb_jp_stats_build(jp, &in, &st, &err);
    if (code == PB_OK)
        pb_jp_stats_free(&st);
    else if (code != PB_EINPUT || err.msg[0] == '\0')
        abort();
    pb_jp_insts_free(&in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pb_err_t err;
    pb_err_clear(&err); /* the first error set is kept: start clear */
    const char *text = (const char *)data;
    char *own = NULL;
    size_t len = size;
    int code = PB_OK;
    if (pb_jp_is_gzip(data, size) &&
        (code = pb_jp_gunzip("fuzz.json.gz", data, size, &own, &len, &err)) == PB_OK)
        text = own;
    pb_jobprof_t jp;
    pb_jobprof_init(&jp);
    /* told apart as pb_jp_load tells them: the ops CSV import writes
     * from traces is read here too (its seed: corpus/kineto/ops.csv) */
    int csv = code == PB_OK && !pb_jp_is_kineto(text, len) && pb_jp_is_csv(text, len);
    if (code == PB_OK)
        code = csv ? pb_jp_csv_read_text("fuzz.csv", text, len, &jp, &err)
                   : pb_jp_kineto("fuzz.json", text, len, &jp, &err);
    if (code != PB_OK && (code != err.code || err.msg[0] == '\0' ||
                          (code != PB_EINPUT && code != PB_ERUNTIME)))
        abort();
    if (code == PB_OK && !csv)
        check_job(&jp);
    if (code == PB_OK) {
        analyse(&jp);
        round_trip(&jp);
    }
    pb_jobprof_free(&jp);
    free(own);
    return 0;
}
