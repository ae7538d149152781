#include "pb_pattern_plan.h"
#include "../../model/pb_framework.h"
#include "../../patterns/pb_hf_config.h"
#include "../run/pb_launch_env.h"

#include <stdio.h>
#include <string.h>

static int flag_given(const pb_model_opts_t *o, const char *key)
{
    for (int i = 0; i < o->nmodel_kv; i++)
        if (strcmp(o->model_kv[i][0], key) == 0)
            return 1;
    return 0;
}

/* --size (--hidden) with a preset (or a model or config file) scales that
 * model's family: the MLP keeps its ratio to the hidden size (tiny's 4h,
 * Llama 3's 3.5h), the heads their dimension and the GQA groups their
 * size, unless given too.  A user who
 * types `--preset tiny --size 8192` means a bigger tiny, not hidden 8192
 * with tiny's 4096-wide MLP. */
static void keep_family(const pb_model_opts_t *o, const pb_model_t *base, pb_model_t *m)
{
    if (m->hidden == base->hidden || base->hidden == 0)
        return;
    if (!flag_given(o, "ffn"))
        m->ffn = base->ffn * m->hidden / base->hidden;
    if (!flag_given(o, "moe-ffn") && base->moe_ffn)
        m->moe_ffn = base->moe_ffn * m->hidden / base->hidden;
    uint64_t head_dim = base->heads ? base->hidden / base->heads : 0;
    if (!flag_given(o, "heads") && head_dim && m->hidden % head_dim == 0) {
        uint64_t group = base->kv_heads ? base->heads / base->kv_heads : 1;
        m->heads = m->hidden / head_dim;
        if (!flag_given(o, "kv-heads") && group && m->heads % group == 0)
            m->kv_heads = m->heads / group;
    }
}

static int apply_flags(const pb_model_opts_t *o, pb_model_t *m, pb_err_t *err)
{
    for (int i = 0; i < o->nmodel_kv; i++) {
        pb_err_t e;
        pb_err_clear(&e);
        if (pb_model_set(m, o->model_kv[i][0], o->model_kv[i][1], &e) != PB_OK)
            return pb_err_set(err, PB_EINPUT, "--%s: %s", o->model_kv[i][0], e.msg);
    }
    return PB_OK;
}

/* The name the hidden size was last given by (--size or --hidden), NULL
 * when neither was given. */
static const char *hidden_flag(const pb_model_opts_t *o)
{
    const char *k = NULL;
    for (int i = 0; i < o->nmodel_kv; i++)
        if (strcmp(o->model_kv[i][0], "size") == 0 || strcmp(o->model_kv[i][0], "hidden") == 0)
            k = o->model_kv[i][0];
    return k;
}

/* The flags that name a model's shape.  Any of them beside --size makes
 * the model the user's own, typed by its shape, and keeps the --size
 * rule out of it (issue 50: GPT-3 typed by hand is not a Llama); --seq,
 * --mbs, --gbs, the type and the stage split are the run's, not the
 * shape's. */
static int shape_given(const pb_model_opts_t *o)
{
    static const char *const keys[] = {"layers",  "heads",     "kv-heads", "ffn",
                                       "vocab",   "head-dim",  "gated",    "experts",
                                       "topk",    "moe-every", "moe-ffn",  "shared-ffn",
                                       "dense-first"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (flag_given(o, keys[i]))
            return 1;
    return 0;
}

/* Where the model comes from: a preset, file or launch script names it;
 * else --size alone is the --size rule, shape flags type a model of the
 * user's own over the tiny preset (GPT-style: full attention, a plain
 * 4h MLP), and nothing at all is the tiny default. */
enum { MODEL_NAMED, MODEL_SIZE_RULE, MODEL_TYPED, MODEL_TINY };

static int model_kind(const pb_model_opts_t *o)
{
    if (o->preset || o->model_file || o->hf_config || o->megatron_args)
        return MODEL_NAMED;
    if (shape_given(o))
        return MODEL_TYPED;
    return hidden_flag(o) ? MODEL_SIZE_RULE : MODEL_TINY;
}

/* `--size H` with nothing else that names a model means a model of width
 * H, not the tiny default widened: the --size rule
 * (pb_model_family_llama), under the run's flags (--seq, --gbs ...).  The
 * flags are applied to a scratch model first to learn H as typed, with
 * their own errors. */
static int size_rule_model(const pb_model_opts_t *o, const char *flag, pb_model_t *m,
                           pb_err_t *err)
{
    pb_model_t typed;
    if (pb_model_preset("tiny", &typed, err) || apply_flags(o, &typed, err))
        return err->code;
    pb_err_t e;
    pb_err_clear(&e);
    if (pb_model_family_llama(typed.hidden, 0, m, &e))
        return pb_err_set(err, PB_EINPUT,
                          "--%s %llu: %s (the --size rule: a Llama-style model); give its "
                          "shape (--heads, --ffn, ...) for a model of your own, or --preset "
                          "NAME to widen a preset",
                          flag, (unsigned long long)typed.hidden, e.msg);
    return PB_OK;
}

static int build_model(const pb_model_opts_t *o, pb_model_t *m, int *size_rule, pb_err_t *err)
{
    const char *hflag = hidden_flag(o);
    int kind = model_kind(o);
    *size_rule = kind == MODEL_SIZE_RULE;
    if (*size_rule ? size_rule_model(o, hflag, m, err)
                   : pb_model_preset(o->preset ? o->preset : "tiny", m, err))
        return err->code;
    /* a width of the user's own: no longer tiny */
    if (kind == MODEL_TYPED && hflag)
        snprintf(m->name, sizeof m->name, "custom");
    if (o->hf_config) { /* over the preset, under the model file and flags */
        pb_hf_config_t hf;
        if (pb_hf_config_read(o->hf_config, &hf, err) ||
            pb_hf_config_apply(&hf, o->hf_config, m, err))
            return err->code;
        /* said once, by rank 0, on stderr: stdout stays the tables */
        if (pb_launch_rank_hint() == 0 && (hf.unmodelled[0] || hf.notes[0]))
            fprintf(stderr, "note: %s: %s%s%s%s\n", o->hf_config, hf.notes,
                    hf.notes[0] && hf.unmodelled[0] ? "; " : "",
                    hf.unmodelled[0] ? "read but not modelled: " : "", hf.unmodelled);
    }
    if (o->model_file && pb_model_load(o->model_file, m, err))
        return err->code;
    /* a model that only a launch script describes is named after it, not
     * after the preset its unset fields come from */
    if (!o->preset && !o->hf_config && !o->model_file && o->megatron_args)
        snprintf(m->name, sizeof m->name, "%.47s",
                 strcmp(o->megatron_args, "-") ? o->megatron_args : "megatron-args");
    pb_model_t base = *m;
    if (apply_flags(o, m, err))
        return err->code;
    keep_family(o, &base, m); /* the size rule's model is already of width H */
    /* typed by its shape: full attention unless --kv-heads says otherwise
     * (tiny's own 16 of 16 would make --heads 32 a GQA of pairs) */
    if ((kind == MODEL_TYPED || kind == MODEL_TINY) && !flag_given(o, "kv-heads"))
        m->kv_heads = m->heads;
    /* the model's type: --dtype with --pattern, model and plan (the main
     * job's --dtype is its sweep's list, and leaves this NULL) */
    if (o->dtype && pb_model_set(m, "dtype", o->dtype, err))
        return err->code;
    /* --tokens-per-step: the batch as training recipes state it (Llama 3:
     * "16M tokens"), in whole sequences */
    if (o->train.tokens_per_step) {
        if (flag_given(o, "gbs"))
            return pb_err_set(err, PB_EINPUT, "give --gbs or --tokens-per-step, not both");
        if (o->train.tokens_per_step % m->seq != 0)
            return pb_err_set(err, PB_EINPUT,
                              "--tokens-per-step %llu is not a whole number of sequences of %llu "
                              "tokens",
                              (unsigned long long)o->train.tokens_per_step,
                              (unsigned long long)m->seq);
        m->gbs = o->train.tokens_per_step / m->seq;
    }
    return pb_model_check(m, err);
}

static int largest_divisor_upto(uint64_t a, uint64_t b)
{
    for (uint64_t d = a; d > 1; d--)
        if (a % d == 0 && b % d == 0)
            return (int)d;
    return 1;
}

/* No layout flags: one strategy gets every rank; several (the main job,
 * `all`) get tp 2, pp 2 where the world allows, dp the rest, and ep as
 * large as dp and the experts allow.  An MoE model's tp above 1 comes
 * with sequence parallelism, as Megatron-Core requires (pb_layout_check),
 * so tp 2 is taken only where the sequence splits in two. */
static void default_layout(const pb_model_opts_t *o, unsigned mask, int world, const pb_model_t *m,
                           pb_layout_t *l)
{
    (void)o;
    int single = mask && (mask & (mask - 1)) == 0;
    if (single) {
        if (mask & (1u << PB_STRAT_TP | 1u << PB_STRAT_SP)) {
            l->size[PB_DIM_TP] = world;
            l->sp |= m->experts > 0 && world > 1;
        }
        else if (mask & 1u << PB_STRAT_PP)
            l->size[PB_DIM_PP] = world;
        else if (mask & 1u << PB_STRAT_CP)
            l->size[PB_DIM_CP] = world;
        else if (mask & 1u << PB_STRAT_EP)
            l->size[PB_DIM_EP] = l->size[PB_DIM_DP] = world;
        else
            l->size[PB_DIM_DP] = world;
        return;
    }
    int rest = world;
    if (rest % 2 == 0 && m->heads % 2 == 0 && m->kv_heads % 2 == 0 &&
        (m->experts == 0 || m->seq % 2 == 0)) {
        l->size[PB_DIM_TP] = 2;
        l->sp |= m->experts > 0;
        rest /= 2;
    }
    if (rest % 2 == 0 && m->layers % 2 == 0) {
        l->size[PB_DIM_PP] = 2;
        rest /= 2;
    }
    l->size[PB_DIM_DP] = rest;
    if (m->experts > 0)
        l->size[PB_DIM_EP] = largest_divisor_upto((uint64_t)rest, m->experts);
}

static int build_layout(const pb_model_opts_t *o, unsigned mask, int world, int np,
                        const pb_model_t *m, pb_layout_t *l, pb_err_t *err)
{
    pb_layout_default(l);
    if (o->order && pb_layout_parse_order(l, o->order, err))
        return err->code;
    l->vp = o->vp ? o->vp : 1;
    l->etp = o->etp;
    l->shard = o->shard;
    l->sp = o->sp || (mask & 1u << PB_STRAT_SP);
    int given = 0;
    for (int d = 0; d < PB_DIM_COUNT; d++)
        given |= o->layout[d] != 0;
    if (!given && world == 0)
        world = np ? np : 8;
    if (!given) {
        default_layout(o, mask, world, m, l);
        return PB_OK;
    }
    for (int d = 0; d < PB_DIM_COUNT; d++)
        if (o->layout[d])
            l->size[d] = o->layout[d];
    if (o->layout[PB_DIM_DP] == 0 && world > 0) {
        /* Megatron: dp is what tp, cp and pp leave of the world */
        int other = l->size[PB_DIM_TP] * l->size[PB_DIM_CP] * l->size[PB_DIM_PP];
        if (world % other != 0)
            return pb_err_set(err, PB_EINPUT,
                              "tp %d x cp %d x pp %d = %d does not divide the world of %d ranks",
                              l->size[PB_DIM_TP], l->size[PB_DIM_CP], l->size[PB_DIM_PP], other,
                              world);
        l->size[PB_DIM_DP] = world / other;
    }
    return PB_OK;
}

static const char *dtype_short(pb_dtype_t t)
{
    return t == PB_BF16 ? "bf16" : t == PB_F16 ? "fp16" : "fp32";
}

/* The item, if any, at the end of the assumed list; it is emptied for
 * the next. */
static void add_item(char *buf, size_t len, char *item)
{
    size_t at = strlen(buf);
    if (item[0])
        snprintf(buf + at, len - at, "%s%s", at ? ", " : "", item);
    item[0] = '\0';
}

#define ULL(x) ((unsigned long long)(x))

/* The model's fields that no flag gave, where the model is not one the
 * user named (a preset or a file): the --size rule's, or those of a
 * model typed by its shape, which the header must name (issue 50). */
static void assumed_fields(const pb_model_opts_t *o, pb_pattern_plan_t *p)
{
    const pb_model_t *m = &p->model;
    int kind = model_kind(o);
    char *b = p->assumed, it[96];
    size_t n = sizeof p->assumed;
    b[0] = '\0';
    p->assumed_from = kind == MODEL_SIZE_RULE ? "not given: the --size rule, Llama 3-style"
                      : hidden_flag(o)        ? "not given: GPT-style, as the tiny preset widened"
                                              : "not given: the tiny preset's";
    if (kind == MODEL_NAMED || kind == MODEL_TINY)
        return; /* a preset, a file, or the tiny default: named by its name */
    it[0] = '\0';
    if (!flag_given(o, "layers"))
        snprintf(it, sizeof it, "layers %llu", ULL(m->layers));
    add_item(b, n, it);
    if (!hidden_flag(o))
        snprintf(it, sizeof it, "hidden %llu", ULL(m->hidden));
    add_item(b, n, it);
    if (!flag_given(o, "heads"))
        snprintf(it, sizeof it, "heads %llu of size %llu", ULL(m->heads),
                 ULL(pb_model_head_dim(m)));
    add_item(b, n, it);
    if (!flag_given(o, "kv-heads") && m->kv_heads == m->heads)
        snprintf(it, sizeof it, "kv_heads %llu = heads (full attention)", ULL(m->kv_heads));
    else if (!flag_given(o, "kv-heads"))
        snprintf(it, sizeof it, "kv_heads %llu (GQA, groups of %llu)", ULL(m->kv_heads),
                 ULL(m->heads / m->kv_heads));
    add_item(b, n, it);
    if (!flag_given(o, "ffn"))
        snprintf(it, sizeof it, "ffn %llu (%.3g h)", ULL(m->ffn),
                 (double)m->ffn / (double)m->hidden);
    add_item(b, n, it);
    if (!flag_given(o, "gated"))
        snprintf(it, sizeof it, "%s", m->gated ? "gated MLP (SwiGLU)" : "plain MLP");
    add_item(b, n, it);
    if (!flag_given(o, "vocab"))
        snprintf(it, sizeof it, "vocab %llu", ULL(m->vocab));
    add_item(b, n, it);
    if (!flag_given(o, "seq"))
        snprintf(it, sizeof it, "seq %llu", ULL(m->seq));
    add_item(b, n, it);
    if (!o->dtype)
        snprintf(it, sizeof it, "dtype %s", dtype_short(m->dtype));
    add_item(b, n, it);
}

/* The depth of the tiny preset and of the --size rule (4) is a quick
 * run's, not a model's: no layer count is right for it, and a pipeline it
 * does not split (--pattern pp on 3 or 8 ranks) would refuse the user's
 * command for a number they never typed.  So where no flag, file or
 * script set the layers (or the stages' split), they rise to the next
 * multiple of pp x vp, every stage holding whole layers; the header says
 * so.  A depth the user gave is theirs: a pipeline it does not fit is
 * refused, as Megatron-Core refuses it. */
static void quick_depth(const pb_model_opts_t *o, const pb_layout_t *l, pb_pattern_plan_t *p)
{
    pb_model_t *m = &p->model;
    static const char *const split[] = {"layers", "pp-first", "pp-last", "pp-trim"};
    for (size_t i = 0; i < sizeof split / sizeof split[0]; i++)
        if (flag_given(o, split[i]))
            return;
    if (o->model_file || o->hf_config || o->megatron_args ||
        (o->preset && strcmp(o->preset, "tiny") != 0))
        return;
    uint64_t chunks = (uint64_t)l->size[PB_DIM_PP] * (uint64_t)(l->vp > 1 ? l->vp : 1);
    if (chunks < 2 || m->layers % chunks == 0)
        return;
    pb_model_t up = *m;
    up.layers = (m->layers / chunks + 1) * chunks;
    pb_err_t e;
    pb_err_clear(&e);
    if (pb_model_check(&up, &e) != PB_OK)
        return; /* past the layers' bound: the stages' check refuses it */
    p->layers_from = m->layers;
    *m = up;
}

int pb_pattern_plan(const pb_model_opts_t *o, unsigned mask, int world, int np,
                    pb_pattern_plan_t *p, pb_err_t *err)
{
    memset(p, 0, sizeof *p);
    p->mask = mask ? mask : ((1u << PB_STRAT_COUNT) - 1) & ~(1u << PB_STRAT_SP);
    if (build_model(o, &p->model, &p->size_rule, err) ||
        build_layout(o, p->mask, world, np, &p->model, &p->layout, err))
        return err->code;
    quick_depth(o, &p->layout, p);
    assumed_fields(o, p);
    if (pb_layout_check(&p->layout, &p->model, (uint64_t)world, err))
        return err->code;
    p->world = (int)pb_layout_world(&p->layout);
    pb_traffic_cfg_default(&p->cfg);
    pb_fw_t fw;
    if (o->train.framework && pb_fw_parse(o->train.framework, &fw) == 0) /* checked when read */
        pb_traffic_cfg_framework(&p->cfg, fw);
    if (o->train.dp_bucket)
        p->cfg.bucket = (pb_bucket_t)(o->train.dp_bucket - 1);
    p->cfg.zero = o->train.zero;
    p->cfg.recompute = o->train.recompute;
    p->cfg.imbalance = o->train.imbalance;
    if (o->train.grad_dtype && pb_pat_dtype_parse(o->train.grad_dtype, &p->cfg.grad_dtype) != 0)
        return pb_err_set(err, PB_EINPUT, "--grad-dtype takes fp32 or bf16, not '%s'",
                          o->train.grad_dtype);
    return pb_traffic_gen(&p->model, &p->layout, &p->cfg, p->mask, &p->ops, err);
}

void pb_pattern_plan_free(pb_pattern_plan_t *p)
{
    pb_op_list_free(&p->ops);
}

int pb_model_opts_given(const pb_model_opts_t *o)
{
    return o->preset || o->model_file || o->hf_config || o->megatron_args || o->nmodel_kv > 0 ||
           o->layout_given != 0;
}
