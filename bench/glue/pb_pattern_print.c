#include "pb_pattern_print.h"

#include <inttypes.h>
#include <string.h>

void pb_fmt_bytes(char *buf, size_t len, double b)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (b >= 1024.0 && u < 5) {
        b /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%.0f B", b);
    else
        snprintf(buf, len, "%.1f %s", b, unit[u]);
}

#define U(x) ((unsigned long long)(x))

void pb_pattern_raised_str(const pb_pattern_plan_t *p, char *buf, size_t len)
{
    const pb_layout_t *l = &p->layout;
    snprintf(buf, len,
             "the quick run's %llu raised to a multiple of pp %d x vp %d so that every stage "
             "holds whole layers; --layers N sets them",
             U(p->layers_from), l->size[PB_DIM_PP], l->vp > 1 ? l->vp : 1);
}

/* What the --size rule chose and how far its short model is from a real
 * one of that width: the counts of the layer-wise operations (TP, SP, CP,
 * EP) grow with the layers, so a reader scales them. */
static void print_size_rule(FILE *f, const pb_pattern_plan_t *p)
{
    const pb_model_t *m = &p->model;
    const char *real = NULL;
    uint64_t layers = pb_model_family_llama_layers(m->hidden, &real);
    fprintf(f,
            "# the --size rule (--size without --preset): Llama 3-style at width h: heads of %d, "
            "%d KV heads, ffn 3.5 h (rounded up to 256), vocab %d, seq %d, gated MLP, bf16; "
            "the flags given win\n",
            PB_FAMILY_HEAD_DIM, PB_FAMILY_KV_HEADS, PB_FAMILY_VOCAB, PB_FAMILY_SEQ);
    if (layers)
        fprintf(f, "# layers: %llu of the %llu %s has at %llu", U(m->layers), U(layers), real,
                U(m->hidden));
    else
        fprintf(f, "# layers: %llu (Llama 3 has 32 at 4096, 80 at 8192, 126 at 16384)",
                U(m->layers));
    if (p->layers_from) {
        char why[160];
        pb_pattern_raised_str(p, why, sizeof why);
        fprintf(f, " (%s)", why);
    }
    fprintf(f, "; the per-layer counts (tp, sp, cp, ep) scale with them\n");
}

void pb_pattern_print_raised(FILE *f, const pb_pattern_plan_t *p, const char *prefix)
{
    if (!p->layers_from)
        return;
    char why[160];
    pb_pattern_raised_str(p, why, sizeof why);
    fprintf(f, "%slayers: %llu, %s\n", prefix, U(p->model.layers), why);
}

/* The product that makes strategy s's message o (patterns/pb_traffic_*.c),
 * symbolic in sym and in numbers in num; returns it, or 0 where there is
 * none to show. */
static uint64_t msg_formula(const pb_pattern_plan_t *p, pb_strategy_t s, const pb_pat_op_t *o,
                            char *sym, char *num, size_t n)
{
    const pb_model_t *m = &p->model;
    const pb_layout_t *l = &p->layout;
    uint64_t e = pb_dtype_size(o->dtype), tp = (uint64_t)l->size[PB_DIM_TP];
    uint64_t cp = (uint64_t)l->size[PB_DIM_CP], sc = m->seq / cp;
    const char *sq = cp > 1 ? "s/cp" : "s";
    uint64_t split = l->sp ? tp : 1; /* sequence parallelism: 1/tp of the tokens */
    switch (s) {
    case PB_STRAT_TP:
    case PB_STRAT_SP:
        snprintf(sym, n, "b x %s x h x %llu B", sq, U(e));
        snprintf(num, n, "%llu x %llu x %llu x %llu", U(m->mbs), U(sc), U(m->hidden), U(e));
        return m->mbs * sc * m->hidden * e;
    case PB_STRAT_PP:
        snprintf(sym, n, "b x %s x h x %llu B%s", sq, U(e), l->sp ? " / tp" : "");
        snprintf(num, n, "%llu x %llu x %llu x %llu%s", U(m->mbs), U(sc), U(m->hidden), U(e),
                 l->sp ? " / tp" : "");
        return m->mbs * sc * m->hidden * e / split;
    case PB_STRAT_EP:
        snprintf(sym, n, "b x %s%s x topk x h x %llu B", sq, l->sp ? "/tp" : "", U(e));
        snprintf(num, n, "%llu x %llu x %llu x %llu x %llu", U(m->mbs), U(sc / split),
                 U(m->topk), U(m->hidden), U(e));
        return m->mbs * sc / split * m->topk * m->hidden * e;
    case PB_STRAT_CP: {
        uint64_t kv = m->kv_heads / tp, hd = pb_model_head_dim(m);
        snprintf(sym, n, "K and V: 2 x b x %s x kv_heads/tp x head x %llu B", sq, U(e));
        snprintf(num, n, "2 x %llu x %llu x %llu x %llu x %llu", U(m->mbs), U(sc), U(kv), U(hd),
                 U(e));
        return 2 * m->mbs * sc * kv * hd * e;
    }
    default: /* DP: a bucket of gradients or parameters, in elements */
        sym[0] = '\0';
        snprintf(num, n, "%llu elements x %llu B", U(o->bytes / e), U(e));
        return o->bytes % e == 0 ? o->bytes : 0;
    }
}

/* Each strategy's largest message, the product it is made of, and its
 * collectives: what a reader checks the sizes of the tables against. */
static void print_messages(FILE *f, const pb_pattern_plan_t *p)
{
    for (int s = 0; s < PB_STRAT_COUNT; s++) {
        const pb_pat_op_t *big = NULL;
        int several = 0;
        for (size_t i = 0; i < p->ops.n; i++) {
            const pb_pat_op_t *o = &p->ops.ops[i];
            if ((int)o->strategy != s)
                continue;
            several |= big && o->bytes != big->bytes;
            if (!big || o->bytes > big->bytes)
                big = o;
        }
        if (!big)
            continue;
        char colls[64] = "", hb[32], sym[96], num[96];
        for (size_t i = 0; i < p->ops.n; i++) { /* the collectives at that size, once each */
            const pb_pat_op_t *o = &p->ops.ops[i];
            const char *c = pb_coll_name(o->coll);
            if ((int)o->strategy == s && o->bytes == big->bytes && !strstr(colls, c))
                snprintf(colls + strlen(colls), sizeof colls - strlen(colls), "%s%s",
                         colls[0] ? ", " : "", c);
        }
        pb_fmt_bytes(hb, sizeof hb, (double)big->bytes);
        fprintf(f, "# %s message: %s %s%s", pb_strategy_name((pb_strategy_t)s), colls,
                several ? "up to " : "", hb);
        if (msg_formula(p, (pb_strategy_t)s, big, sym, num, sizeof sym) == big->bytes)
            fprintf(f, " = %s%s%s", sym, sym[0] ? " = " : "", num);
        fprintf(f, " (%s)\n", big->what);
    }
}

void pb_pattern_print_head(FILE *f, const pb_pattern_plan_t *p, const char *what)
{
    const pb_model_t *m = &p->model;
    const pb_layout_t *l = &p->layout;
    char order[40];
    pb_layout_order_str(l, order, sizeof order);
    fprintf(f, "# parbench %s | %s\n", PB_VERSION, what);
    fprintf(f,
            "# model %s: layers %" PRIu64 ", hidden %" PRIu64 ", heads %" PRIu64 " (kv %" PRIu64
            "), ffn %" PRIu64 ", vocab %" PRIu64 ", seq %" PRIu64 ", mbs %" PRIu64 ", gbs %" PRIu64
            "%s, %s, %.2f B parameters",
            m->name, m->layers, m->hidden, m->heads, m->kv_heads, m->ffn, m->vocab, m->seq, m->mbs,
            m->gbs, m->gbs ? "" : " (auto)", pb_dtype_name(m->dtype),
            (double)pb_model_params(m) / 1e9);
    if (m->experts)
        fprintf(f, ", %" PRIu64 " experts top %" PRIu64 " every %" PRIu64 " layer(s)",
                m->experts, m->topk, m->moe_every);
    fprintf(f, "\n");
    if (p->size_rule)
        print_size_rule(f, p); /* says it beside the real model's depth */
    else
        pb_pattern_print_raised(f, p, "# ");
    if (p->assumed[0] && !p->size_rule) /* the rule's line names its own */
        fprintf(f, "# assumed (%s): %s\n", p->assumed_from, p->assumed);
    fprintf(f, "# layout tp %d, cp %d, ep %d, dp %d, pp %d, vp %d, sp %s, order %s: %d ranks\n",
            l->size[PB_DIM_TP], l->size[PB_DIM_CP], l->size[PB_DIM_EP], l->size[PB_DIM_DP],
            l->size[PB_DIM_PP], l->vp, l->sp ? "on" : "off", order, p->world);
    fprintf(f,
            "# per step: %" PRIu64 " micro-batches per replica, %" PRIu64
            " layers on the busiest stage; dp: %s buckets, ZeRO %d, gradients %s%s\n",
            pb_traffic_micro(m, l), pb_traffic_stage_layers(m, l),
            p->cfg.bucket == PB_BUCKET_DDP         ? "DDP 25 MiB"
            : p->cfg.bucket == PB_BUCKET_DEEPSPEED ? "DeepSpeed 5e8-element"
                                                   : "Megatron max(40M, 1M x dp) params",
            p->cfg.zero, pb_dtype_name(p->cfg.grad_dtype),
            p->cfg.recompute ? "; full recomputation" : "");
    print_messages(f, p);
}

void pb_pattern_print_ops(FILE *f, const pb_pattern_plan_t *p)
{
    fprintf(f, "# per rank; bytes in nccl-tests' convention (allgather: gathered output, "
               "reducescatter: full input, alltoall: send buffer)\n");
    fprintf(f, "%-9s %-9s %-13s %-5s %6s %15s %11s %12s %-8s %-7s %s\n", "#strategy", "phase",
            "collective", "group", "size", "bytes", "", "count/step", "dtype", "overlap", "what");
    for (size_t i = 0; i < p->ops.n; i++) {
        const pb_pat_op_t *o = &p->ops.ops[i];
        char hb[32];
        pb_fmt_bytes(hb, sizeof hb, (double)o->bytes);
        fprintf(f, "%-9s %-9s %-13s %-5s %6d %15" PRIu64 " %11s %12" PRIu64 " %-8s %-7s %s%s\n",
                pb_strategy_name(o->strategy), pb_phase_name(o->phase), pb_coll_name(o->coll),
                pb_gkind_name(o->group), o->group_size, o->bytes, hb, o->count,
                pb_dtype_name(o->dtype), o->overlap ? "yes" : "no", o->what,
                pb_pat_stage_note(o->stage));
    }
    if (p->ops.n == 0)
        fprintf(f, "# no operations: every requested strategy has groups of one rank\n");
    fprintf(f, "#\n# totals per strategy, per GPU per step (wire: bytes a rank sends with ring "
               "algorithms, 2(n-1)/n of an all-reduce)\n");
    fprintf(f, "%-9s %12s %20s %11s %20s %11s\n", "#strategy", "ops/step", "message bytes", "",
            "wire bytes", "");
    for (int s = 0; s < PB_STRAT_COUNT; s++) {
        pb_traffic_total_t t = pb_traffic_total(&p->ops, (pb_strategy_t)s);
        if (t.ops == 0)
            continue;
        char a[32], b[32];
        pb_fmt_bytes(a, sizeof a, (double)t.msg_bytes);
        pb_fmt_bytes(b, sizeof b, (double)t.wire_bytes);
        fprintf(f, "%-9s %12" PRIu64 " %20" PRIu64 " %11s %20" PRIu64 " %11s\n",
                pb_strategy_name((pb_strategy_t)s), t.ops, t.msg_bytes, a, t.wire_bytes, b);
    }
}
