/* pb_validate_report.c - the end of `parbench validate` on rank 0: the
 * table of pairs and the verdict, each flagged pair with its cause
 * (validate/pb_attrib.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pb_validate_judge.h"

static const char *cause_text(const pb_vjudge_t *j, const pb_vpair_t *p, char *buf, size_t len)
{
    pb_attrib_pair_t ap = {p->a, p->b, p->rail, p->judged.flagged, 0};
    int who = -1;
    switch (pb_attrib_cause(&j->at, &ap, &who)) {
    case PB_CAUSE_RANK:
        snprintf(buf, len, "FLAGGED: slow rank %d", who);
        break;
    case PB_CAUSE_RAIL:
        snprintf(buf, len, "FLAGGED: slow rail %d", who);
        break;
    case PB_CAUSE_NIC:
        snprintf(buf, len, "FLAGGED: slow NIC of rank %d", who);
        break;
    case PB_CAUSE_PAIR:
        snprintf(buf, len, "FLAGGED: slow pair");
        break;
    default:
        snprintf(buf, len, "%s", p->judged.peers == 0 ? "alone in its class: not judged"
                                 : p->judged.rounds == 0
                                     ? "no other pair of its class moved data: not judged"
                                     : "ok");
    }
    return buf;
}

static void print_table(const pb_vjudge_t *j)
{
    const pb_nodemap_t *m = &j->ctx->map;
    int all = j->measured <= PB_VJ_LISTED;
    if (!all)
        printf("# %zu pairs measured: the flagged ones are listed\n", j->measured);
    printf("%-11s %-5s %-8s %-29s %10s %7s %6s  %s\n", "pair", "round", "class", "bus ids",
           "GB/s", "ratio", "slow", "");
    for (size_t i = 0; i < j->nkept; i++) {
        const pb_vpair_t *p = &j->kept[i];
        const pb_outlier_t *o = &p->judged;
        if (!all && !o->flagged)
            continue;
        char pair[24], bus[2 * PB_TOPO_NAME + 2], ratio[16], slow[24], why[64];
        snprintf(pair, sizeof pair, "%d-%d", p->a, p->b);
        snprintf(bus, sizeof bus, "%s %s", pb_rankmap_busid(m, p->a), pb_rankmap_busid(m, p->b));
        snprintf(ratio, sizeof ratio, o->rounds > 0 ? "%.2f" : "-", o->ratio);
        if (o->rounds > 0)
            snprintf(slow, sizeof slow, "%d/%d", o->slow_rounds, o->rounds);
        else
            snprintf(slow, sizeof slow, "-");
        printf("%-11s %-5d %-8s %-29s %10.3f %7s %6s  %s\n", pair, p->round, p->cls, bus, p->gbps,
               ratio, slow, cause_text(j, p, why, sizeof why));
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
        printf("# flagged: ratio below %.2f in most votes (slow = votes below)\n", o->validate.min_ratio);
        print_table(j);
    }
    if (j->at.nflagged == 0) {
        if (print)
            printf("# every pair judged within %.2f of its class median\n", o->validate.min_ratio);
        return PB_OK;
    }
    char list[640];
    snprintf(list, sizeof list, "validate: %zu of %zu pairs below %.2f x their class median: ",
             j->at.nflagged, j->measured, o->validate.min_ratio);
    verdict(j, list, sizeof list, print);
    return pb_err_set(err, PB_EVERIFY, "%s", list);
}
