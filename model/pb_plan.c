#include "pb_plan.h"

#include "../patterns/pb_stages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The search space (doc/prediction.md, "Planner"), a policy with no
 * published source: tp and cp powers of two up to 64 and 16, every vp up
 * to 16, micro-batches 1, 2, 4, 8 */
#define PB_PLAN_MAX_TP 64
#define PB_PLAN_MAX_CP 16
#define PB_PLAN_MAX_VP 16
#define PB_PLAN_MAX_MBS 8
/* pb_plan_reason: a part's growth starts below any real one; two plans
 * within 0.01 % of the step are a tie */
#define PB_PLAN_GROWTH_NONE (-1e300)
#define PB_PLAN_TIE_REL 1e-4

/* The entry's memory verdict: its band from the memory record (one per
 * set of mechanisms, worked out the first time the search meets it), or
 * the central prediction alone without a record. */
static int mem_verdict(const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *sc,
                       const pb_plan_cfg_t *c, pb_plan_result_t *r, pb_plan_entry_t *en,
                       pb_err_t *err)
{
    memset(&en->mem, 0, sizeof en->mem);
    if (c->nmem_runs > 0) {
        unsigned k = pb_band_mech(m, l, sc) & PB_MECH_ALL;
        if (!r->band_known[k] &&
            pb_band_from_runs(c->mem_runs, c->nmem_runs, k, &r->band[k], err) != PB_OK)
            return err->code;
        r->band_known[k] = 1;
        en->mem.band = r->band[k];
    }
    en->mem.fit = pb_mem_fit(pb_mem_needed(en->st.mem.total), en->st.cap.usable,
                             en->mem.band.err_lo, en->mem.band.err_hi, &en->mem.lo, &en->mem.hi);
    return PB_OK;
}

static int push(pb_plan_result_t *r, const pb_plan_entry_t *e, pb_err_t *err)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        pb_plan_entry_t *p = realloc(r->e, cap * sizeof *p);
        if (p == NULL)
            return pb_err_set(err, PB_ERUNTIME, "out of memory for the layouts");
        r->e = p;
        r->cap = cap;
    }
    r->e[r->n++] = *e;
    return PB_OK;
}

static int by_time(const void *pa, const void *pb)
{
    const pb_plan_entry_t *a = pa, *b = pb;
    if (a->st.total != b->st.total)
        return a->st.total < b->st.total ? -1 : 1;
    /* equal times: the less memory first, a stable order */
    return a->st.mem.total < b->st.mem.total ? -1 : a->st.mem.total > b->st.mem.total;
}

void pb_plan_free(pb_plan_result_t *r)
{
    free(r->e);
    memset(r, 0, sizeof *r);
}

void pb_plan_entry_setup(const pb_model_t *m, const pb_plan_cfg_t *c, const pb_plan_entry_t *e,
                         pb_model_t *mo, pb_step_cfg_t *so)
{
    if (mo) {
        *mo = *m;
        mo->mbs = e->mbs;
        mo->pp_trim = e->pp_trim;
    }
    *so = c->step;
    so->recomp = e->recomp;
    so->traffic.zero = e->zero;
    so->flash = e->flash;
    /* causal counting follows the kernel, as on the command line: a
     * fused kernel skips the masked half of a decoder's scores, the
     * materialised path computes them all (bench/glue/pb_job.c) */
    so->causal = c->step.causal && e->flash;
    so->tp_overlap = e->tp_overlap;
}

/* The recomputation modes searched: Megatron's none, selective and full,
 * full on every second layer (Megatron's --recompute-method block over
 * half the layers, torchtitan's selective_ac_option 2), and torchtitan's
 * op-level policy where the stack runs it (torchtitan, eager FSDP). */
static int recomp_modes(const pb_step_cfg_t *s, pb_recomp_t *out)
{
    int n = 0;
    out[n++] = PB_RECOMP_NONE, out[n++] = PB_RECOMP_SELECTIVE, out[n++] = PB_RECOMP_FULL;
    out[n++] = (pb_recomp_t)(PB_RECOMP_LAYER + 2);
    if (s->framework == PB_FW_TORCHTITAN || s->framework == PB_FW_FSDP)
        out[n++] = PB_RECOMP_OP;
    return n;
}

/* A refused layout's kind: the batch when mbs x dp does not divide it and
 * the layout passes without it (pb_layout_check tests the batch last),
 * else another constraint; the first words of each are kept. */
static void note_refusal(const pb_model_t *m, const pb_layout_t *l, uint64_t gpus,
                         const pb_err_t *e, uint64_t combos, pb_plan_result_t *out)
{
    pb_model_t any = *m;
    any.gbs = 0;
    pb_err_t ignore;
    int batch = m->gbs > 0 && m->gbs % (m->mbs * (uint64_t)l->size[PB_DIM_DP]) != 0 &&
                pb_layout_check(l, &any, gpus, &ignore) == PB_OK;
    out->bad_batch += batch ? combos : 0;
    char *msg = batch ? out->batch_msg : out->other_msg;
    if (msg[0] == '\0')
        snprintf(msg, sizeof out->batch_msg, "%.159s", e->msg);
}

/* Every training setting of one layout and micro-batch: recomputation,
 * ZeRO stage, flash attention, TP overlap. */
static int evaluate(const pb_model_t *m0, const pb_plan_cfg_t *c, const pb_cost_t *cost,
                    const pb_layout_t *l, uint64_t mbs, pb_plan_result_t *out, pb_err_t *err)
{
    pb_model_t m = *m0;
    m.mbs = mbs;
    int pp = l->size[PB_DIM_PP];
    /* ZeRO-2/3 shard gradients per micro-batch, which a pipeline's
     * accumulation across micro-batches defeats: DeepSpeed refuses them
     * with pipeline parallelism (its docs, "Pipeline Parallelism"), and
     * Megatron-Core's FSDP runs without a pipeline */
    int zeros = pp > 1 ? 2 : PB_ZERO3 + 1;
    /* and HSDP with node-sized shard groups (FSDP's HYBRID_SHARD as
     * recipes run it: gathers over NVLink, replicas across nodes) where
     * the data-parallel group spans nodes */
    int gpn = c->step.gpus_per_node, d = l->size[PB_DIM_DP] * l->size[PB_DIM_CP];
    int hsdp = zeros == PB_ZERO3 + 1 && m.experts == 0 && gpn > 1 && d > gpn && d % gpn == 0;
    zeros += hsdp;
    int overlaps = pb_step_tp_overlap_runs(l, c->step.gpus_per_node) ? 2 : 1;
    double on = c->step.tp_overlap > 0.0 ? c->step.tp_overlap : PB_PLAN_TP_OVERLAP;
    pb_recomp_t modes[8];
    int nmodes = recomp_modes(&c->step, modes);
    uint64_t combos = (uint64_t)nmodes * (uint64_t)zeros * 2u * (uint64_t)overlaps;
    pb_err_t e;
    pb_err_clear(&e);
    out->considered += combos;
    /* a layout the schedule cannot run (DualPipe: an even pp, enough
     * micro-batches) breaks a constraint as an invalid layout does */
    if (pb_layout_check(l, &m, (uint64_t)c->gpus, &e) != PB_OK ||
        (c->step.dualpipe && pb_step_dualpipe_check(l, pb_traffic_micro(&m, l), &e) != PB_OK)) {
        out->invalid += combos;
        note_refusal(&m, l, (uint64_t)c->gpus, &e, combos, out);
        return PB_OK;
    }
    for (uint64_t k = 0; k < combos; k++) {
        uint64_t rest = k;
        pb_plan_entry_t en;
        memset(&en, 0, sizeof en);
        en.layout = *l;
        en.mbs = mbs;
        en.recomp = modes[rest % (uint64_t)nmodes];
        rest /= (uint64_t)nmodes;
        en.zero = (int)(rest % (uint64_t)zeros);
        rest /= (uint64_t)zeros;
        if (en.zero == PB_ZERO3 + 1) /* HSDP */
            en.zero = PB_ZERO3, en.layout.shard = gpn;
        en.flash = (int)(1 - rest % 2); /* flash first: on a tie it is named */
        rest /= 2;
        en.tp_overlap = rest % (uint64_t)overlaps ? on : 0.0;
        en.pp_trim = m.pp_trim;
        pb_step_cfg_t sc;
        pb_plan_entry_setup(&m, c, &en, NULL, &sc);
        if (pb_step_model(&m, &en.layout, &sc, cost, &en.st, err) != PB_OK)
            return err->code;
        if (mem_verdict(&m, &en.layout, &sc, c, out, &en, err) != PB_OK)
            return err->code;
        if (en.mem.fit == PB_FIT_NO) {
            out->oom++;
            continue;
        }
        out->tight += en.mem.fit == PB_FIT_TIGHT;
        if (push(out, &en, err))
            return err->code;
    }
    return PB_OK;
}

/* The stage splits searched for pp stages: the model's own, and the ends
 * one layer lighter (pp_trim 2) where the model gives neither ends nor
 * that trim already.  Returns how many (0: pp does not split the
 * layers either way). */
static int splits(const pb_model_t *m, int pp, pb_model_t out[2])
{
    int n = 0;
    pb_stages_t st;
    pb_err_t e;
    if (pb_stages_split(m, pp, 1, &st, &e) == PB_OK)
        out[n++] = *m;
    if (pp > 1 && !m->pp_first && !m->pp_last && m->pp_trim != 2) {
        out[n] = *m;
        out[n].pp_trim = 2;
        if (pb_stages_split(&out[n], pp, 1, &st, &e) == PB_OK)
            n++;
    }
    return n;
}

/* a pipeline size that splits the layers in no way, once */
static void note_unsplit(pb_plan_result_t *r, int pp)
{
    for (int i = 0; i < r->nunsplit; i++)
        if (r->unsplit[i] == pp)
            return;
    if (r->nunsplit < (int)(sizeof r->unsplit / sizeof r->unsplit[0]))
        r->unsplit[r->nunsplit++] = pp;
}

/* Every vp, ep and micro-batch of one tp x cp x pp and stage split. */
static int inner(const pb_model_t *m, const pb_plan_cfg_t *c, const pb_cost_t *cost, int tp,
                 int cp, int pp, pb_plan_result_t *out, pb_err_t *err)
{
    int dp = c->gpus / (tp * cp * pp);
    for (int vp = 1; vp <= PB_PLAN_MAX_VP; vp++) {
        pb_stages_t st;
        pb_err_t e;
        if (vp > 1 && (pp == 1 || pb_stages_split(m, pp, vp, &st, &e) != PB_OK))
            continue;
        for (int ep = 1; ep <= dp * cp; ep++) {
            if ((dp * cp) % ep || (ep > 1 && (m->experts == 0 || m->experts % (uint64_t)ep)))
                continue;
            for (uint64_t mbs = 1; mbs <= PB_PLAN_MAX_MBS; mbs *= 2) {
                pb_layout_t l;
                pb_layout_default(&l);
                l.size[PB_DIM_TP] = tp;
                l.size[PB_DIM_CP] = cp;
                l.size[PB_DIM_PP] = pp;
                l.size[PB_DIM_DP] = dp;
                l.size[PB_DIM_EP] = ep;
                l.vp = vp;
                l.sp = tp > 1;
                if (evaluate(m, c, cost, &l, mbs, out, err))
                    return err->code;
            }
        }
    }
    return PB_OK;
}

int pb_plan(const pb_model_t *m, const pb_plan_cfg_t *c, const pb_cost_t *cost,
            pb_plan_result_t *out, pb_err_t *err)
{
    memset(out, 0, sizeof *out);
    int G = c->gpus;
    for (int tp = 1; tp <= PB_PLAN_MAX_TP && tp <= G; tp *= 2) {
        if (m->heads % (uint64_t)tp || m->kv_heads % (uint64_t)tp || G % tp)
            continue;
        for (int cp = 1; cp <= PB_PLAN_MAX_CP && tp * cp <= G; cp *= 2) {
            /* 2 x cp must divide the sequence only where it is split
             * (pb_layout_check): an odd one runs at cp 1 */
            if (G % (tp * cp) || (cp > 1 && m->seq % (uint64_t)(2 * cp)))
                continue;
            for (int pp = 1; pp <= G / (tp * cp) && (uint64_t)pp <= m->layers + 2; pp++) {
                pb_model_t ms[2];
                if ((G / (tp * cp)) % pp)
                    continue;
                int ns = splits(m, pp, ms);
                if (ns == 0)
                    note_unsplit(out, pp);
                for (int i = 0; i < ns; i++)
                    if (inner(&ms[i], c, cost, tp, cp, pp, out, err))
                        return err->code;
            }
        }
    }
    if (out->n > 1)
        qsort(out->e, out->n, sizeof *out->e, by_time);
    return PB_OK;
}

/* n to the list in buf: "1", "1, 2" */
static void list_int(char *buf, size_t len, int n)
{
    size_t at = strlen(buf);
    snprintf(buf + at, len - at, "%s%d", at ? ", " : "", n);
}

/* the text so far in buf, one more clause at its end */
#define APPEND(buf, len, ...) snprintf((buf) + strlen(buf), (len) - strlen(buf), __VA_ARGS__)

void pb_plan_why_none(const pb_model_t *m, const pb_plan_cfg_t *c, const pb_plan_result_t *r,
                      char *buf, size_t len)
{
    /* the tp and cp pb_plan's loops take, by the same tests */
    int G = c->gpus, ntp = 0, ncp = 0;
    char tps[64] = "", cps[64] = "", pps[64] = "";
    for (int tp = 1; tp <= PB_PLAN_MAX_TP && tp <= G; tp *= 2)
        if (m->heads % (uint64_t)tp == 0 && m->kv_heads % (uint64_t)tp == 0 && G % tp == 0)
            list_int(tps, sizeof tps, tp), ntp++;
    for (int cp = 1; cp <= PB_PLAN_MAX_CP && cp <= G; cp *= 2) {
        int any = 0;
        for (int tp = 1; tp <= PB_PLAN_MAX_TP && tp * cp <= G; tp *= 2)
            any |= m->heads % (uint64_t)tp == 0 && m->kv_heads % (uint64_t)tp == 0 &&
                   G % (tp * cp) == 0;
        if (any && (cp == 1 || m->seq % (uint64_t)(2 * cp) == 0))
            list_int(cps, sizeof cps, cp), ncp++;
    }
    for (int i = 0; i < r->nunsplit; i++)
        list_int(pps, sizeof pps, r->unsplit[i]);
    buf[0] = '\0';
    APPEND(buf, len,
           "tp can %s %s (a power of two up to %d dividing %d GPUs, heads %llu and KV heads "
           "%llu), cp %s%s",
           ntp == 1 ? "only be" : "be", tps, PB_PLAN_MAX_TP, G, (unsigned long long)m->heads,
           (unsigned long long)m->kv_heads, ncp == 1 ? "only " : "", cps);
    if (r->nunsplit)
        APPEND(buf, len, "; pp %s split%s the %llu layers neither evenly nor with lighter ends",
               pps, r->nunsplit == 1 ? "s" : "", (unsigned long long)m->layers);
    if (r->bad_batch == r->invalid && r->invalid > 0)
        APPEND(buf, len, "; and every layout left breaks the batch: %s", r->batch_msg);
    else if (r->bad_batch > 0)
        APPEND(buf, len, "; %llu of the %llu settings left break the batch (%s)",
               (unsigned long long)r->bad_batch, (unsigned long long)r->invalid, r->batch_msg);
    if (r->invalid > r->bad_batch)
        APPEND(buf, len, "; %llu break another constraint (the first: %s)",
               (unsigned long long)(r->invalid - r->bad_batch), r->other_msg);
    if (r->bad_batch > 0)
        APPEND(buf, len, " (give a --gbs that micro-batch x dp divide, or other --gpus)");
}

void pb_plan_describe(const pb_plan_entry_t *e, char *buf, size_t len)
{
    const pb_layout_t *l = &e->layout;
    char vp[16] = "", cp[16] = "", ep[16] = "";
    if (l->vp > 1)
        snprintf(vp, sizeof vp, " vp %d", l->vp);
    if (l->size[PB_DIM_CP] > 1)
        snprintf(cp, sizeof cp, " cp %d", l->size[PB_DIM_CP]);
    if (l->size[PB_DIM_EP] > 1)
        snprintf(ep, sizeof ep, " ep %d", l->size[PB_DIM_EP]);
    static const char *const zero[] = {"no opt-shard", "dist-opt", "zero 2", "zero 3"};
    char z[32];
    if (e->zero == PB_ZERO3 && l->shard > 0)
        snprintf(z, sizeof z, "zero 3 hsdp %d", l->shard);
    else
        snprintf(z, sizeof z, "%s", zero[e->zero & 3]);
    char ends[32] = "";
    if (l->size[PB_DIM_PP] > 1 && e->pp_trim)
        snprintf(ends, sizeof ends, ", ends -%llu", (unsigned long long)e->pp_trim);
    snprintf(buf, len, "tp %d%s, pp %d%s, dp %d%s%s, mbs %llu, %s, %s%s%s%s", l->size[PB_DIM_TP],
             l->sp ? " sp" : "", l->size[PB_DIM_PP], vp, l->size[PB_DIM_DP], cp, ep,
             (unsigned long long)e->mbs, pb_recomp_name(e->recomp), z,
             e->flash ? "" : ", no-flash", e->tp_overlap > 0.0 ? ", tp-overlap" : "", ends);
}

void pb_plan_reason(const pb_plan_entry_t *b, const pb_plan_entry_t *w, char *buf, size_t len)
{
    int worst = 0;
    double dmax = PB_PLAN_GROWTH_NONE;
    for (int p = 0; p < PB_PART_COUNT; p++) {
        double d = w->st.part[p] - b->st.part[p];
        if (d > dmax)
            dmax = d, worst = p;
    }
    double pct = b->st.total > 0 ? 100.0 * (w->st.total / b->st.total - 1.0) : 0.0;
    const pb_layout_t *lb = &b->layout, *lw = &w->layout;
    char why[160];
    switch (worst) {
    case PB_PART_TP:
        if (w->st.net[PB_GK_TP] && !b->st.net[PB_GK_TP])
            snprintf(why, sizeof why, "TP=%d crosses nodes", lw->size[PB_DIM_TP]);
        else
            snprintf(why, sizeof why, "TP exposed %.2f s vs %.2f s (tp %d vs %d)",
                     w->st.part[PB_PART_TP], b->st.part[PB_PART_TP], lw->size[PB_DIM_TP],
                     lb->size[PB_DIM_TP]);
        break;
    case PB_PART_BUBBLE:
        snprintf(why, sizeof why, "bubble %.1f %% vs %.1f %% (pp %d vp %d, %llu micro-batches)",
                 100 * w->st.bubble_frac, 100 * b->st.bubble_frac, lw->size[PB_DIM_PP], lw->vp,
                 (unsigned long long)w->st.micro);
        break;
    case PB_PART_PP:
        snprintf(why, sizeof why, "PP send/recv %.2f s vs %.2f s%s", w->st.part[PB_PART_PP],
                 b->st.part[PB_PART_PP], w->st.net[PB_GK_PP] ? " (across nodes)" : "");
        break;
    case PB_PART_DP:
        snprintf(why, sizeof why, "DP sync exposed %.2f s vs %.2f s (dp %d%s)",
                 w->st.part[PB_PART_DP], b->st.part[PB_PART_DP], lw->size[PB_DIM_DP],
                 w->st.net[PB_GK_DP] ? " across nodes" : "");
        break;
    case PB_PART_EP:
        snprintf(why, sizeof why, "EP all-to-all %.2f s vs %.2f s (ep %d%s)",
                 w->st.part[PB_PART_EP], b->st.part[PB_PART_EP], lw->size[PB_DIM_EP],
                 w->st.net[PB_GK_EP] ? " across nodes" : "");
        break;
    case PB_PART_CP:
        snprintf(why, sizeof why, "CP exchange exposed %.2f s (cp %d)", w->st.part[PB_PART_CP],
                 lw->size[PB_DIM_CP]);
        break;
    case PB_PART_OPT:
        snprintf(why, sizeof why, "optimizer step %.2f s vs %.2f s%s", w->st.part[PB_PART_OPT],
                 b->st.part[PB_PART_OPT], w->zero < b->zero ? " (not sharded)" : "");
        break;
    default:
        if (w->recomp != b->recomp && w->st.flops.hw > b->st.flops.hw)
            snprintf(why, sizeof why, "%s recomputation: %.0f %% more FLOPs than %s",
                     pb_recomp_name(w->recomp), 100.0 * (w->st.flops.hw / b->st.flops.hw - 1.0),
                     pb_recomp_name(b->recomp));
        else if (lw->size[PB_DIM_PP] != lb->size[PB_DIM_PP])
            snprintf(why, sizeof why,
                     "busiest stage computes %.2f s vs %.2f s (pp %d vs %d: the last stage "
                     "also runs the logits)",
                     w->st.part[PB_PART_COMPUTE], b->st.part[PB_PART_COMPUTE],
                     lw->size[PB_DIM_PP], lb->size[PB_DIM_PP]);
        else
            snprintf(why, sizeof why, "compute %.2f s vs %.2f s", w->st.part[PB_PART_COMPUTE],
                     b->st.part[PB_PART_COMPUTE]);
        break;
    }
    if (dmax < PB_PLAN_TIE_REL * b->st.total) {
        /* no part grew noticeably: a tie, kept in order of memory */
        snprintf(why, sizeof why, "ties (within 0.01 %%), uses %.1f GiB vs %.1f GiB",
                 w->st.mem.total / PB_GIB, b->st.mem.total / PB_GIB);
    }
    snprintf(buf, len, "+%.1f %%: %s", pct, why);
}
