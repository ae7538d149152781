/* pb_validate_report.c - the end of `parbench validate` on rank 0: the
 * table of pairs and the verdict, each flagged pair with its cause
 * (validate/pb_attrib.h). */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pb_validate_judge.h"

/* A re-measured pair's numbers alone: GB/s, and the ratio or share
 * that was voted on again. */
static void alone_text(const pb_vpair_t *p, char *buf, size_t len)
{
    int n = snprintf(buf, len, " (alone %.3f GB/s", p->alone_gbps);
    if (n > 0 && (size_t)n < len && !isnan(p->alone_ratio))
        n += snprintf(buf + n, len - (size_t)n, ", ratio %.2f to %d-%d", p->alone_ratio, p->ref_a,
                      p->ref_b);
    if (n > 0 && (size_t)n < len && !isnan(p->alone_share))
        n += snprintf(buf + n, len - (size_t)n, ", share %.2f", p->alone_share);
    if (n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ")");
}

static const char *cause_text(const pb_vjudge_t *j, const pb_vpair_t *p, char *buf, size_t len)
{
    char alone[96] = "";
    if (p->state == PB_VS_SLOW || p->state == PB_VS_CLEARED)
        alone_text(p, alone, sizeof alone);
    if (p->state == PB_VS_CLEARED) {
        snprintf(buf, len, "cleared: fast alone, slow only beside its round%s", alone);
        return buf;
    }
    if (p->state == PB_VS_UNCONFIRMED) {
        snprintf(buf, len, "flagged, not re-measured (%s)",
                 (p->flags & PB_VFLAG_REL) && p->ref_a < 0 ? "no pair of its class to compare"
                                                            : "past --confirm");
        return buf;
    }
    pb_attrib_pair_t ap = {p->a, p->b, p->rail, p->state == PB_VS_SLOW, 0};
    int who = -1;
    char what[48];
    switch (pb_attrib_cause(&j->at, &ap, &who)) {
    case PB_CAUSE_RANK:
        snprintf(what, sizeof what, "rank %d", who);
        break;
    case PB_CAUSE_RAIL:
        snprintf(what, sizeof what, "rail %d", who);
        break;
    case PB_CAUSE_NIC:
        snprintf(what, sizeof what, "NIC of rank %d", who);
        break;
    case PB_CAUSE_PAIR:
        snprintf(what, sizeof what, "pair");
        break;
    default:
        snprintf(buf, len, "%s", p->state == PB_VS_OK ? "ok"
                                 : p->judged.peers == 0
                                     ? "alone in its class, no expectation: not judged"
                                     : "no other pair of its class moved data: not judged");
        return buf;
    }
    snprintf(buf, len, "SLOW, confirmed: %s%s", what, alone);
    return buf;
}

static void print_table(const pb_vjudge_t *j)
{
    const pb_nodemap_t *m = &j->ctx->map;
    int all = j->measured <= PB_VJ_LISTED;
    if (!all)
        printf("# %zu pairs measured: the flagged ones are listed\n", j->measured);
    printf("%-11s %-5s %-8s %-29s %10s %7s %6s %9s %6s  %s\n", "pair", "round", "class",
           "bus ids", "GB/s", "ratio", "slow", "expected", "share", "");
    for (size_t i = 0; i < j->nkept; i++) {
        const pb_vpair_t *p = &j->kept[i];
        const pb_outlier_t *o = &p->judged;
        if (!all && !p->flags)
            continue;
        char pair[24], bus[2 * PB_TOPO_NAME + 2], ratio[16], slow[24], why[160], exp[24], sh[16];
        snprintf(pair, sizeof pair, "%d-%d", p->a, p->b);
        snprintf(bus, sizeof bus, "%s %s", pb_rankmap_busid(m, p->a), pb_rankmap_busid(m, p->b));
        snprintf(ratio, sizeof ratio, o->rounds > 0 ? "%.2f" : "-", o->ratio);
        if (o->rounds > 0)
            snprintf(slow, sizeof slow, "%d/%d", o->slow_rounds, o->rounds);
        else
            snprintf(slow, sizeof slow, "-");
        snprintf(exp, sizeof exp, p->expect.gbps > 0.0 ? "%.1f" : "-", p->expect.gbps);
        snprintf(sh, sizeof sh, isnan(p->share) ? "-" : "%.2f", p->share);
        printf("%-11s %-5d %-8s %-29s %10.3f %7s %6s %9s %6s  %s\n", pair, p->round, p->cls, bus,
               p->gbps, ratio, slow, exp, sh, cause_text(j, p, why, sizeof why));
    }
}

/* Appends to the verdict line while it has room. */
__attribute__((format(printf, 4, 5))) static void add(char *buf, size_t len, size_t *used,
                                                      const char *fmt, ...);
static void add(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
    if (*used + 2 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, len - *used, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used = *used + (size_t)n < len ? *used + (size_t)n : len - 1;
}

/* The verdict: slow ranks, rails, NICs, then the pairs none of them
 * explains, in that order (validate/pb_attrib.h). */
static void verdict(const pb_vjudge_t *j, char *buf, size_t len, int print)
{
    const pb_nodemap_t *m = &j->ctx->map;
    const pb_attrib_t *a = &j->at;
    size_t used = strlen(buf);
    const char *sep = "";
    /* Every judged pair slow: only expectations can do that (a class's
     * median cannot be below itself), and then no rank, rail or NIC is
     * to blame more than another: the cause is one they all share. */
    if (j->at.nflagged == j->judged && j->judged > 1) {
        add(buf, len, &used, "every judged pair, below its expected GB/s together: a cause they "
            "share (firmware, driver, fabric settings, or an expectation that is wrong)");
        if (print)
            printf("# every judged pair slow: not one rank, rail or NIC; see the expected column\n");
        return;
    }
    for (int r = 0; r < a->size; r++)
        if (pb_attrib_rank_slow(a, r)) {
            add(buf, len, &used, "%srank %d slow with every partner (%d of %d pairs, bus %s)", sep,
                r, a->slow[r], a->pairs[r], pb_rankmap_busid(m, r));
            if (print)
                printf("# slow rank (GPU/process; slow with every partner): %d on %s, bus %s, "
                       "%d of %d pairs flagged\n", r, pb_rankmap_host(m, r),
                       pb_rankmap_busid(m, r), a->slow[r], a->pairs[r]);
            sep = ", ";
        }
    for (int i = 0; i < a->rails; i++)
        if (pb_attrib_rail_slow(a, i)) {
            add(buf, len, &used, "%srail %d slow on every node pair (%d pairs)", sep, i,
                a->rail_pairs[i]);
            if (print)
                printf("# slow rail (slow on every node pair using it): %d, %d of %d cross-node "
                       "pairs flagged\n", i, a->rail_slow[i], a->rail_pairs[i]);
            sep = ", ";
        }
    for (int r = 0; r < a->size; r++)
        if (pb_attrib_nic_slow(a, r) && !pb_attrib_rail_slow(a, m->local[r])) {
            const char *also = a->xpairs[r] == a->pairs[r] ? " (or its GPU: no pair on its node)"
                                                           : "";
            add(buf, len, &used, "%sNIC of rank %d (%s on %s) slow across nodes%s", sep, r,
                pb_rankmap_nic(m, r), pb_rankmap_host(m, r), also);
            if (print)
                printf("# slow NIC (slow with every partner across nodes): rank %d's %s on %s, "
                       "%d of %d cross-node pairs flagged%s\n", r, pb_rankmap_nic(m, r),
                       pb_rankmap_host(m, r), a->xslow[r], a->xpairs[r], also);
            sep = ", ";
        }
    for (size_t i = 0; i < a->nkept; i++) {
        int who;
        const pb_attrib_pair_t *p = &a->flagged[i];
        if (pb_attrib_cause(a, p, &who) != PB_CAUSE_PAIR)
            continue;
        char cls[16];
        pb_link_format(pb_nodemap_link(m, p->a, p->b), cls, sizeof cls);
        add(buf, len, &used, "%s%d-%d (%s, bus %s %s)", sep, p->a, p->b, cls,
            pb_rankmap_busid(m, p->a), pb_rankmap_busid(m, p->b));
        if (print)
            printf("# slow pair: %d-%d (%s)\n", p->a, p->b, cls);
        sep = ", ";
    }
}

/* No pair judged: say why, naming a class that lacks an expectation. */
static int none_judged(const pb_vjudge_t *j, pb_err_t *err)
{
    const char *cls = j->nkept > 0 ? j->kept[0].cls : "?";
    return pb_err_set(err, PB_EINPUT, "validate: none of the %zu pairs measured could be judged: "
                      "each was alone in its class in its round, and no expected bandwidth is "
                      "known for %s (give --expect %s=GB/s)", j->measured, cls, cls);
}

/* The exit: PB_OK, PB_EINPUT when nothing was judged, PB_EVERIFY naming
 * what is confirmed slow. */
static int verdict_of(const pb_vjudge_t *j, int print, pb_err_t *err)
{
    const pb_validate_opts_t *o = &j->ctx->opt->validate;
    if (j->judged == 0)
        return none_judged(j, err);
    if (print && j->judged < j->measured)
        printf("# %zu of %zu pairs not judged (alone in their class, no expectation)\n",
               j->measured - j->judged, j->measured);
    if (print && j->flagged > 0)
        printf("# %zu flagged pair%s re-measured alone: %zu confirmed slow, %zu cleared (fast "
               "alone: load or contention in its round)%s\n", j->flagged,
               j->flagged == 1 ? "" : "s", j->at.nflagged, j->cleared,
               j->unconfirmed ? ", the rest not re-measured (--confirm)" : "");
    if (j->at.nflagged == 0) {
        if (print)
            printf("# every judged pair within %.2f of its class median and %.2f of its "
                   "expected GB/s, or cleared alone\n", o->min_ratio, o->min_share);
        return PB_OK;
    }
    char list[640];
    snprintf(list, sizeof list, "validate: %zu of %zu pairs slow, confirmed alone (below %.2f x "
             "their class median or %.2f x their expected GB/s): ", j->at.nflagged, j->measured,
             o->min_ratio, o->min_share);
    verdict(j, list, sizeof list, print);
    return pb_err_set(err, PB_EVERIFY, "%s", list);
}

int pb_vjudge_report(pb_vjudge_t *j, size_t total, const char *stopped, pb_err_t *err)
{
    pb_ctx_t *ctx = j->ctx;
    const pb_options_t *o = ctx->opt;
    int print = !o->run.quiet;
    static const char *const modes[] = {"all", "local", "rails", "leaders"};
    if (print) {
        printf("# parbench %s | validate | %zu of %zu pairs in %d of %d rounds (%d intra-node, "
               "%d cross-node rail-aligned; --pairs %s), %" PRIu64
               " B send/recv both ways, %d votes, each the best of %d trials x %d exchanges\n",
               PB_VERSION, j->measured, total, j->rounds_done, pb_tourn_total(j->t), j->t->intra,
               j->t->cross, modes[j->t->pairs], j->bytes, PB_VALIDATE_VOTES, PB_VALIDATE_TRIALS,
               PB_VALIDATE_REPS);
        pb_ctx_print_oversub(ctx, stdout);
        if (stopped[0])
            printf("# %s: %zu pairs unmeasured\n", stopped, total - j->measured);
        printf("# the pairs of a round run at once; GB/s per direction (1e9 B), median of the "
               "votes; ratio per vote = GB/s / median of the other pairs of its class in its "
               "round, shown: the votes' upper median\n");
        printf("# expected: the link's line rate per direction (NVLinks x their generation's "
               "rate, the PCIe link under a switch, the NIC shared by the round's ranks on it) or "
               "--expect; none for host classes, PHB, NODE, SYS; share per vote = GB/s / "
               "expected, shown: the votes' upper median\n");
        printf("# flagged: ratio below %.2f or share below %.2f in most votes (slow = votes below "
               "the ratio); a flagged pair is re-measured alone beside a pair of its class before "
               "it is called slow\n", o->validate.min_ratio, o->validate.min_share);
        print_table(j);
    }
    int code = verdict_of(j, print, err);
    /* the table before the error line (stderr) that follows it */
    fflush(stdout);
    return code;
}
