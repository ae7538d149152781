#include "pb_pattern_print.h"

#include <inttypes.h>

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
    fprintf(f, "\n# layout tp %d, cp %d, ep %d, dp %d, pp %d, vp %d, sp %s, order %s: %d ranks\n",
            l->size[PB_DIM_TP], l->size[PB_DIM_CP], l->size[PB_DIM_EP], l->size[PB_DIM_DP],
            l->size[PB_DIM_PP], l->vp, l->sp ? "on" : "off", order, p->world);
    fprintf(f,
            "# per step: %" PRIu64 " micro-batches per replica, %" PRIu64
            " layers on the busiest stage; dp: %s buckets, ZeRO %d, gradients %s%s\n",
            pb_traffic_micro(m, l), pb_traffic_stage_layers(m, l),
            p->cfg.bucket == PB_BUCKET_DDP ? "DDP 25 MiB" : "Megatron max(40M, 1M x dp) params",
            p->cfg.zero, pb_dtype_name(p->cfg.grad_dtype),
            p->cfg.recompute ? "; full recomputation" : "");
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
        fprintf(f, "%-9s %-9s %-13s %-5s %6d %15" PRIu64 " %11s %12" PRIu64 " %-8s %-7s %s\n",
                pb_strategy_name(o->strategy), pb_phase_name(o->phase), pb_coll_name(o->coll),
                pb_gkind_name(o->group), o->group_size, o->bytes, hb, o->count,
                pb_dtype_name(o->dtype), o->overlap ? "yes" : "no", o->what);
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
