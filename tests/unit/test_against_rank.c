/* parbench model --against: the ranking over a file's sweeps and each
 * run's likely range (bench/glue/pb_against_rank.c, pb_against_print.c).
 * The runs are made for the test: one small model on 8 H100 (tp 8), the
 * same layout with and without full recomputation.  What is known by hand
 * is only what needs no model: full recomputation runs every layer's
 * forward again, so the model predicts that run slower than the one
 * without (at least the forward's third of fwd + bwd more compute, with
 * nothing else changed); a run with twice the global batch takes as long
 * per sequence as the model sees it within a few per cent, and is
 * published as exactly as long here (a tie, not counted); two rows the
 * same in every column are predicted the same. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_test.h"
#include "bench/glue/pb_against.h"

#define HEAD                                                                                  \
    "name,gpu,gpus,layers,hidden,heads,kv_heads,head_dim,ffn,vocab,gated,experts,topk,"     \
    "moe_ffn,seq,mbs,gbs,tp,pp,dp,cp,ep,etp,vp,sp,pp_trim,recompute,zero,flash,overlap,"    \
    "family,split,inferred,metric,value,flops,source\n"
/* a row: name, gpus, gbs, dp, recompute, family, split, seconds */
#define ROW(n, g, b, d, r, fam, sp, v)                                                        \
    n ",h100," g ",4,1024,16,16,0,4096,32000,0,0,0,0,1024,1," b ",8,1," d                    \
    ",1,1,0,1,0,0," r ",0,1,gtp," fam "," sp ",,step_s," v ",none,s\n"

static void temp_file(char *path, const char *text)
{
    FILE *f = NULL;
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0)
        f = fdopen(fd, "w");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    fputs(text, f);
    fclose(f);
}

static void summed(const char *text, pb_against_sum_t *s)
{
    char path[] = "/tmp/pb_rank_XXXXXX";
    temp_file(path, text);
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_against(path, stdout, s, &err) == PB_OK);
    unlink(path);
}

static void rank_is(const pb_against_rank_t *r, int sweeps, int pairs, int in_order)
{
    CHECK(r->sweeps == sweeps);
    CHECK(r->pairs == pairs);
    CHECK(r->in_order == in_order);
}

/* Sweep S (fit): a none 1.0 s, b full 1.2 s, c none at twice the batch
 * 2.0 s.  Per sequence: a 1/8, b 1.2/8, c 2/16 = 1/8: a-c is a tie (not
 * counted); a-b and c-b are published with b slower, as predicted: 2 of
 * 2.  d is S's model on 16 GPUs and e another source's run of a's
 * configuration: sweeps of one run each, not counted.  Sweep U (test):
 * two identical rows published 1.0 and 1.1 s: one pair, predicted
 * equal, so not in order.  Sweep V: a fit and a test run (none 1.0, full
 * 1.2): its pair counts in all and in neither split.  All: 3 sweeps,
 * 2 + 1 + 1 = 4 pairs, 2 + 0 + 1 = 3 in order; fit 1, 2, 2; test 1, 1, 0. */
static void sweeps(void)
{
    pb_against_sum_t s;
    summed(HEAD ROW("a", "8", "8", "1", "none", "S", "fit", "1.0")
               ROW("b", "8", "8", "1", "full", "S", "fit", "1.2")
               ROW("c", "8", "16", "1", "none", "S", "fit", "2.0")
               ROW("d", "16", "16", "2", "none", "S", "fit", "1.0")
               ROW("e", "8", "8", "1", "none", "T", "fit", "1.0")
               ROW("f", "8", "8", "1", "none", "U", "test", "1.0")
               ROW("g", "8", "8", "1", "none", "U", "test", "1.1")
               ROW("h", "8", "8", "1", "none", "V", "fit", "1.0")
               ROW("i", "8", "8", "1", "full", "V", "test", "1.2"),
           &s);
    rank_is(&s.rank_all, 3, 4, 3);
    rank_is(&s.rank[PB_SPLIT_FIT], 1, 2, 2);
    rank_is(&s.rank[PB_SPLIT_TEST], 1, 1, 0);
    rank_is(&s.rank[PB_SPLIT_NONE], 0, 0, 0);

    /* the same sweep S with b published fastest (0.8 s, 0.1 per
     * sequence): both of its pairs now out of the published order */
    summed(HEAD ROW("a", "8", "8", "1", "none", "S", "fit", "1.0")
               ROW("b", "8", "8", "1", "full", "S", "fit", "0.8")
               ROW("c", "8", "16", "1", "none", "S", "fit", "2.0"),
           &s);
    rank_is(&s.rank_all, 1, 2, 0);
}

static int take(void *arg, const pb_against_run_t *r, pb_err_t *err)
{
    (void)err;
    if (r->step)
        *(double *)arg = r->predicted_s;
    return PB_OK;
}

/* The likely range is the band of the model's error on the built-in
 * runs of every other source around the prediction, widened to hold it
 * (pb_band.h): a run published at exactly the predicted time is inside
 * it; one published 100 times slower needs a run in the record that
 * was, and none is (no error in model/published_runs.csv reaches a
 * factor of 3).  Both are given a range: 2 banded, 1 held. */
static void likely_range(void)
{
    char path[] = "/tmp/pb_rank_XXXXXX", text[4096];
    temp_file(path, HEAD ROW("a", "8", "8", "1", "none", "Z", "test", "1.0"));
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    double pred = 0.0;
    pb_err_t err;
    pb_err_clear(&err);
    if (f) {
        CHECK(pb_against_each(f, path, NULL, take, &pred, &err) == PB_OK);
        fclose(f);
    }
    unlink(path);
    CHECK(pred > 0.0);
    char exact[32], slow[32];
    snprintf(exact, sizeof exact, "%.17g", pred);
    snprintf(slow, sizeof slow, "%.17g", 100.0 * pred);
    snprintf(text, sizeof text,
             HEAD "a,h100,8,4,1024,16,16,0,4096,32000,0,0,0,0,1024,1,8,8,1,1,1,1,0,1,0,0,none,"
                  "0,1,gtp,Z,test,,step_s,%s,none,s\n"
                  "b,h100,8,4,1024,16,16,0,4096,32000,0,0,0,0,1024,1,8,8,1,1,1,1,0,1,0,0,none,"
                  "0,1,gtp,Z,test,,step_s,%s,none,s\n",
             exact, slow);
    pb_against_sum_t s;
    summed(text, &s);
    CHECK(s.all.banded == 2 && s.all.held == 1);
    CHECK(s.split[PB_SPLIT_TEST].banded == 2 && s.split[PB_SPLIT_TEST].held == 1);
    CHECK(s.split[PB_SPLIT_FIT].banded == 0);
}

int main(void)
{
    sweeps();
    likely_range();
    PB_TEST_END("unit_against_rank");
}
