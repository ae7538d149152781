/* parbench model --against: the step model against the published runs of
 * model/published_runs.csv (sources in its last column), with one preset
 * per GPU type and nothing tuned per run.  The summary is asserted so a
 * change that loses accuracy fails here; the file's rows and the per-run
 * errors are in the README's validation table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_test.h"
#include "bench/glue/pb_against.h"

static void published(void)
{
    pb_against_sum_t s;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_against(PB_SOURCE_DIR "/model/published_runs.csv", stdout, &s, &err) == PB_OK);
    printf("within %d of %d, mean %.3f max %.3f\n", s.within, s.runs, s.mean_abs, s.max_abs);
    CHECK(s.runs == 29);      /* the file's rows */
    CHECK(s.predicted == 29); /* every layout accepted, MoE folding included */
    /* the accuracy reached when this test was last updated: 24 of 29
     * within +-10 %, mean absolute error 6.6 %, max 35.8 % (Qwen3-235B
     * at TP 4, EP 8; the EP 32 run whose DeepEP dispatch crosses 4 nodes
     * was +58.6 % before the node-deduplicated dispatch, now +1.5 %; the
     * FSDP2 Llama 3 70B run was -31 % before its recipe's recomputation
     * and FSDP2's per-micro-batch traffic and copies, now -0.5 %) */
    CHECK(s.within >= 24);
    CHECK(s.mean_abs <= 0.067);
    CHECK(s.max_abs <= 0.36);
}

/* one bad row: refused with the file and line, nothing predicted */
static void bad_rows(void)
{
    static const char head[] =
        "name,gpu,gpus,layers,hidden,heads,kv_heads,head_dim,ffn,vocab,gated,experts,topk,"
        "moe_ffn,seq,mbs,gbs,tp,pp,dp,cp,ep,etp,vp,sp,pp_trim,recompute,zero,flash,overlap,"
        "metric,value,flops,source\n";
    static const char *const rows[] = {
        /* overlap letter outside g, t, p */
        "x,a100,8,4,1024,16,16,0,4096,32000,0,0,0,0,512,1,8,8,1,1,1,1,0,1,0,0,none,0,0,q,"
        "step_s,1,none,s\n",
        /* an unknown metric */
        "x,a100,8,4,1024,16,16,0,4096,32000,0,0,0,0,512,1,8,8,1,1,1,1,0,1,0,0,none,0,0,g,"
        "speed,1,none,s\n",
        /* an unknown GPU */
        "x,v100,8,4,1024,16,16,0,4096,32000,0,0,0,0,512,1,8,8,1,1,1,1,0,1,0,0,none,0,0,g,"
        "step_s,1,none,s\n",
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char path[] = "/tmp/pb_against_XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        FILE *f = fdopen(fd, "w");
        fputs(head, f);
        fputs(rows[i], f);
        fclose(f);
        pb_against_sum_t s;
        pb_err_t err;
        pb_err_clear(&err);
        CHECK(pb_against(path, NULL, &s, &err) == PB_EINPUT);
        CHECK(strstr(err.msg, ":2:") != NULL);
        printf("refused: %s\n", err.msg);
        unlink(path);
    }
}

/* the optional dispatcher column: a name it does not know is refused
 * with the file and line; a row without the column takes the default */
static void dispatcher_column(void)
{
    static const char text[] =
        "name,gpu,gpus,layers,hidden,heads,kv_heads,head_dim,ffn,vocab,gated,experts,topk,"
        "moe_ffn,seq,mbs,gbs,tp,pp,dp,cp,ep,etp,vp,sp,pp_trim,recompute,zero,flash,overlap,"
        "dispatcher,metric,value,flops,source\n"
        "x,h100,16,4,1024,16,16,0,4096,32000,0,8,2,1024,512,1,16,1,1,16,1,16,0,1,0,0,none,0,1,g,"
        "allgather,step_s,1,none,s\n";
    char path[] = "/tmp/pb_against_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    pb_against_sum_t s;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_against(path, NULL, &s, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, ":2:") != NULL && strstr(err.msg, "allgather") != NULL);
    printf("refused: %s\n", err.msg);
    unlink(path);
}

int main(void)
{
    published();
    bad_rows();
    dispatcher_column();
    PB_TEST_END("model_against");
}
