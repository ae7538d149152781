/* pb_import_jobsum.c - import's summary of a PyTorch job, counted as
 * profile counts it (pb_import_jobsum.h). */
#include "pb_import_jobsum.h"

#include <stdio.h>

#include "../../jobprof/pb_jp_inst.h"
#include "../../jobprof/pb_jp_stats.h"
#include "../../reports/pb_report.h"

int pb_import_jobsum(const pb_jobprof_t *jp, pb_err_t *err)
{
    pb_jp_insts_t insts = {0};
    pb_jp_stats_t stats = {0};
    int code = pb_jp_insts_build(jp, &insts, err);
    if (code == PB_OK)
        code = pb_jp_stats_build(jp, &insts, &stats, err);
    if (code == PB_OK) {
        printf("# %s: world %d, %zu communicators, %zu records, %zu operations\n", jp->source,
               jp->world, jp->ncomms, jp->nops, insts.n);
        for (size_t c = 0; c < jp->ncomms; c++) {
            const pb_jcomm_t *cm = &jp->comms[c];
            pb_jp_stat_t t = pb_jp_stats_comm(&stats, (int)c);
            char b[32];
            pb_report_bytes(b, sizeof b, (double)t.bytes);
            printf("#   %-24s %3d ranks (%d", cm->name[0] ? cm->name : "(no name)", cm->nranks,
                   cm->members[0]);
            for (int r = 1; r < cm->nranks && r < 8; r++)
                printf(" %d", cm->members[r]);
            printf("%s): %llu ops, %s\n", cm->nranks > 8 ? " ..." : "",
                   (unsigned long long)t.count, b);
        }
    }
    pb_jp_stats_free(&stats);
    pb_jp_insts_free(&insts);
    return code;
}
