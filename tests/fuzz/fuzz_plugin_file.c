/* libFuzzer target: the NCCL profiler plugin's record files
 * (jobprof/pb_jp_plugin.h) and the analysis parbench profile runs on the
 * job they join into.  One input is one or more files: it is cut before
 * every later "PBPROF01" (the magic a file starts with), so that one
 * input is a job of several ranks and communicators (the seeds in
 * corpus/plugin_file are jobs pb_jp_synth writes, their files one after
 * the other).  Every file is read, the files joined, the records joined
 * into collectives, counted, checked for members that disagree, searched
 * for stragglers, and the dimensions inferred, then matched with a
 * layout of tp 2 where the world is even: a refusal must be PB_EINPUT
 * with a message, never a crash, a leak or undefined behaviour. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprof/pb_jp_agree.h"
#include "jobprof/pb_jp_infer.h"
#include "jobprof/pb_jp_inst.h"
#include "jobprof/pb_jp_plugin.h"
#include "jobprof/pb_jp_stats.h"
#include "jobprof/pb_jp_strag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Where the file starting at `at` ends: the next magic, or the end. */
static size_t file_end(const uint8_t *data, size_t size, size_t at)
{
    for (size_t i = at + 8; i + 8 <= size; i++)
        if (memcmp(data + i, PB_PROF_MAGIC, 8) == 0)
            return i;
    return size;
}

/* The dimensions, inferred and then given as tp 2 x dp world/2. */
static int dims(pb_jobprof_t *jp, pb_err_t *err)
{
    pb_jp_shape_t sh;
    int code = pb_jp_infer(jp, NULL, &sh, err);
    int world = pb_jp_world(jp);
    if (code != PB_OK || world % 2 != 0)
        return code;
    pb_layout_t l;
    pb_layout_default(&l);
    l.size[PB_DIM_TP] = 2;
    l.size[PB_DIM_DP] = world / 2;
    return pb_jp_infer(jp, &l, &sh, err);
}

/* What profile computes of a job, in its order. */
static int analyse(pb_jobprof_t *jp, pb_err_t *err)
{
    pb_jp_insts_t in;
    int code = pb_jp_insts_build(jp, &in, err);
    if (code != PB_OK)
        return code;
    pb_jp_agree_t ag;
    pb_jp_agree_find(jp, &in, &ag);
    if (ag.differ > 0 && (ag.inst >= in.n || ag.op_a >= jp->nops || ag.op_b >= jp->nops))
        abort();
    pb_jp_stats_t st;
    code = pb_jp_stats_build(jp, &in, &st, err);
    if (code == PB_OK) {
        pb_jp_stats_free(&st);
        pb_jp_strag_t s;
        code = pb_jp_strag_find(jp, &in, 100000, &s, err);
        if (code == PB_OK)
            pb_jp_strag_free(&s);
    }
    pb_jp_insts_free(&in);
    return code == PB_OK ? dims(jp, err) : code;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pb_jp_plugin_t pl;
    memset(&pl, 0, sizeof pl);
    pb_err_t err;
    pb_err_clear(&err); /* the first error set is kept: start clear */
    int code = PB_OK;
    for (size_t at = 0, k = 0; at < size && code == PB_OK; k++) {
        size_t end = file_end(data, size, at);
        char name[32];
        snprintf(name, sizeof name, "fuzz-%zu.bin", k);
        code = pb_jp_plugin_read(&pl, name, data + at, end - at, &err);
        at = end;
    }
    pb_jobprof_t jp;
    pb_jobprof_init(&jp);
    if (code == PB_OK)
        code = pb_jp_plugin_join(&pl, &jp, &err);
    pb_jp_plugin_free(&pl);
    if (code == PB_OK && jp.nops > 0)
        code = analyse(&jp, &err);
    if (code != PB_OK && (code != PB_EINPUT || err.code != PB_EINPUT || err.msg[0] == '\0'))
        abort();
    pb_jobprof_free(&jp);
    return 0;
}
