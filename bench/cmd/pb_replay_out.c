/* pb_replay_out.c - what parbench replay prints and writes (pb_replay.h):
 * the head (the recording, what is replayed and how), the table of
 * recorded against replayed time per communicator and for the job, and
 * the same table as CSV. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_replay.h"
#include "../glue/pb_pattern_print.h"
#include "../../reports/pb_replay_csv.h"

/* What a communicator is: its dimension where pb_jp_infer found one,
 * else its recorded name. */
static const char *group_name(const pb_jcomm_t *c)
{
    return c->dim != PB_JD_UNKNOWN ? pb_jdim_name(c->dim) : c->name[0] ? c->name : "-";
}

static void print_skipped(const pb_replay_t *r)
{
    const pb_replay_plan_t *p = &r->plan;
    for (int s = 0; s < PB_RP_SKIP_COUNT; s++)
        if (p->skipped[s])
            printf("# not replayed: %" PRIu64 " records %s%s%s%s\n", p->skipped[s],
                   pb_rp_skip_text((pb_rp_skip_t)s), s == PB_RP_SKIP_FUNC ? " (" : "",
                   s == PB_RP_SKIP_FUNC ? p->skipped_funcs : "", s == PB_RP_SKIP_FUNC ? ")" : "");
    if (p->mismatched)
        printf("# %" PRIu64 " operations recorded with different sizes, types or roots by their "
               "members: the lowest rank's replayed\n",
               p->mismatched);
    if (r->jp.dropped)
        printf("# the recorder dropped %" PRIu64 " operations (its ring was full): not replayed\n",
               r->jp.dropped);
    if (r->jp.every > 1)
        printf("# one operation in %d was recorded (sampling): the others are not replayed\n",
               r->jp.every);
}

void pb_replay_print_head(const pb_replay_t *r)
{
    const pb_ctx_t *ctx = r->ctx;
    const pb_replay_plan_t *p = &r->plan;
    const pb_replay_opts_t *ro = &r->o->replay;
    printf("# parbench %s | replay | backend %s: %s | run %s | %d ranks on %d node%s\n",
           PB_VERSION, ctx->be.comm->name, ctx->version, ctx->run_id, ctx->size, ctx->nodes,
           ctx->nodes == 1 ? "" : "s");
    pb_ctx_print_oversub(ctx, stdout);
    printf("# recording: %s%s (%s) | %d ranks | %zu communicators | %zu records", ro->inputs[0],
           ro->ninputs > 1 ? " ..." : "", r->jp.source, p->world, r->jp.ncomms, r->jp.nops);
    if (r->shape.consistent)
        printf(" | layout tp %d cp %d dp %d pp %d", r->shape.tp, r->shape.cp, r->shape.dp,
               r->shape.pp);
    size_t pairs = 0;
    for (size_t u = 0; u < p->nunits; u++)
        pairs += p->units[u].src >= 0;
    printf("\n# replayed: %zu operations (%zu collectives, %zu send/receive pairs) in one order "
           "every rank shares, each at the median of its records' issue times, each completed "
           "before the next\n",
           p->nunits, p->nunits - pairs, pairs);
    print_skipped(r);
    if (ro->scale != 1.0)
        printf("# sizes x %g, rounded down to what each collective needs: the replayed times are "
               "the smaller sizes'\n",
               ro->scale);
    uint64_t warm = r->o->meas.check && ro->warmup ? ro->warmup - 1 : ro->warmup;
    printf("# passes: %s%" PRIu64 " warm-up, %" PRIu64 " timed; %s\n",
           r->o->meas.check ? "1 verified (every result checked, untimed), " : "", warm, ro->iters,
           ro->gaps ? "each rank busy for its recorded idle time before each operation (--gaps)"
                    : "operations back to back (--gaps: with the recorded idle time between)");
    fflush(stdout);
}

static void print_row(const pb_replay_t *r, size_t c)
{
    const pb_jcomm_t *cm = &r->jp.comms[c];
    const pb_rp_comm_t *pc = &r->plan.comms[c];
    char members[24], hb[32], rec[16] = "-", ratio[16] = "-", wrong[24] = "-";
    pb_rp_members_text(cm, members, sizeof members);
    pb_fmt_bytes(hb, sizeof hb, (double)pc->bytes);
    double rep = r->replayed_s[c];
    if (pc->timed)
        snprintf(rec, sizeof rec, "%.6f", pc->recorded_s);
    if (pc->timed && pc->recorded_s > 0.0)
        snprintf(ratio, sizeof ratio, "%.3g", rep / pc->recorded_s);
    if (r->verified)
        snprintf(wrong, sizeof wrong, "%" PRId64, r->wrong[c]);
    printf("%4zu %-10.10s %5d %-20s %7" PRIu64 " %11s %12s %12.6f %7s %7s\n", c, group_name(cm),
           cm->nranks, members, pc->units, hb, rec, rep, ratio, wrong);
}

/* The job's row: every rank's operations on all its communicators
 * summed, the slowest rank's sum, recorded and replayed alike. */
static void print_job(const pb_replay_t *r)
{
    const pb_replay_plan_t *p = &r->plan;
    const pb_replay_opts_t *ro = &r->o->replay;
    uint64_t bytes = 0;
    for (size_t u = 0; u < p->nunits; u++)
        bytes += p->units[u].bytes;
    char hb[32], ratio[16] = "-", wrong[24] = "-";
    pb_fmt_bytes(hb, sizeof hb, (double)bytes);
    if (p->rank_recorded_s > 0.0)
        snprintf(ratio, sizeof ratio, "%.3g", r->rank_med / p->rank_recorded_s);
    if (r->verified)
        snprintf(wrong, sizeof wrong, "%" PRId64, r->wrong_total);
    printf("%-4s %-10s %5d %-20s %7zu %11s %12.6f %12.6f %7s %7s\n", "job", "-", p->world,
           "(slowest rank)", p->nunits, hb, p->rank_recorded_s, r->rank_med, ratio, wrong);
    if (p->untimed)
        printf("# %" PRIu64 " replayed records have no recorded duration: 0 on the recorded "
               "side\n",
               p->untimed);
    printf("# a timed pass: %.6f s on the slowest rank (the median pass), from a common start\n",
           r->wall_med);
    double k = ro->steps ? (double)ro->steps : 1.0;
    printf("# this job's communication on this cluster: recorded %.6f s, replayed %.6f s "
           "(ratio %s) %s\n",
           p->rank_recorded_s / k, r->rank_med / k, ratio,
           ro->steps ? "per step" : "over the whole recording (--steps K: per step)");
    if (r->verified)
        printf("# check: every result of the verified pass compared with its exact expected "
               "value: %" PRId64 " wrong elements\n",
               r->wrong_total);
    else
        printf("# check: off (-c 0)\n");
}

void pb_replay_print_table(const pb_replay_t *r)
{
    printf("# time: each member's operations summed, the slowest member's sum (job: over every "
           "communicator, the slowest rank's); recorded: GPU time where recorded, else end - "
           "start; replayed: between the backend's marks, the median of %" PRIu64
           " timed passes\n",
           r->timed);
    printf("%4s %-10s %5s %-20s %7s %11s %12s %12s %7s %7s\n", "comm", "group", "ranks",
           "members", "ops", "bytes", "recorded_s", "replayed_s", "ratio", "wrong");
    for (size_t c = 0; c < r->plan.ncomms; c++)
        if (r->plan.comms[c].units)
            print_row(r, c);
    print_job(r);
    fflush(stdout);
}

static void csv_row(const pb_replay_t *r, size_t c, pb_replay_row_t *row)
{
    const pb_jcomm_t *cm = &r->jp.comms[c];
    const pb_rp_comm_t *pc = &r->plan.comms[c];
    memset(row, 0, sizeof *row);
    snprintf(row->run_id, sizeof row->run_id, "%s", r->ctx->run_id);
    snprintf(row->backend, sizeof row->backend, "%s", r->ctx->be.comm->name);
    snprintf(row->comm, sizeof row->comm, "%zu", c);
    snprintf(row->group, sizeof row->group, "%s", group_name(cm));
    row->ranks = cm->nranks;
    pb_rp_members_text(cm, row->members, sizeof row->members);
    row->ops = pc->units;
    row->bytes = pc->bytes;
    row->recorded_s = pc->timed ? pc->recorded_s : -1.0;
    row->replayed_s = r->replayed_s[c];
    row->wrong = r->verified ? r->wrong[c] : -1;
}

int pb_replay_write_csv(const pb_replay_t *r, const char *path, pb_err_t *err)
{
    pb_replay_row_t *rows = calloc(r->plan.ncomms + 1, sizeof *rows);
    if (rows == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    size_t n = 0;
    pb_replay_row_t job; /* the table's job row: the slowest rank's sums */
    memset(&job, 0, sizeof job);
    for (size_t c = 0; c < r->plan.ncomms; c++) {
        if (!r->plan.comms[c].units)
            continue;
        csv_row(r, c, &rows[n]);
        job.ops += rows[n].ops;
        job.bytes += rows[n].bytes;
        n++;
    }
    snprintf(job.run_id, sizeof job.run_id, "%s", r->ctx->run_id);
    snprintf(job.backend, sizeof job.backend, "%s", r->ctx->be.comm->name);
    snprintf(job.comm, sizeof job.comm, "job");
    snprintf(job.group, sizeof job.group, "-");
    snprintf(job.members, sizeof job.members, "slowest rank");
    job.ranks = r->plan.world;
    job.recorded_s = r->plan.rank_recorded_s;
    job.replayed_s = r->rank_med;
    job.wrong = r->verified ? r->wrong_total : -1;
    rows[n++] = job;
    int code = pb_replay_csv_write(path, rows, n, err);
    free(rows);
    return code;
}
