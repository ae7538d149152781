/* pb_megatron.c - pretrain_gpt.py arguments to parbench settings (the
 * map is the table below; see pb_megatron.h for the reading rules). */
#include "pb_megatron.h"
#include "pb_megatron_priv.h"
#include "pb_model.h"
#include "pb_traffic_cfg.h"
#include "../util/pb_list.h"
#include "../util/pb_num.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum act {
    A_KV,       /* value -> model key */
    A_FLAGKV,   /* flag -> model key = fixed value */
    A_TP, A_CP, A_EP, A_PP, A_VP, A_VP_LAYERS,
    A_SP, A_RECOMP_GRAN, A_RECOMP_ACT, A_DISTOPT, A_FLASH, A_GQA, A_GRAD_FP32,
    A_OVERLAP_GRAD, A_OVERLAP_PARAM, A_TP_COMM_OVERLAP, A_ACCOUNT_EMB, A_ACCOUNT_LOSS,
    A_FSDP, A_FSDP_SHARD, /* Megatron-FSDP and its sharding strategy */
    A_MOE_FREQ, A_MOE_OVERLAP, /* --moe-layer-freq, --overlap-moe-expert-parallel-comm */
    A_QUIET_V, A_QUIET_F, /* known, no effect on the traffic */
    A_NOCP_V, A_NOCP_F    /* known, change the traffic, no parbench counterpart */
};

static const struct arg {
    const char *name;
    enum act act;
    const char *key; /* A_KV / A_FLAGKV: the model key ("key=value" for flags) */
} args[] = {
    {"num-layers", A_KV, "layers"},             {"hidden-size", A_KV, "hidden"},
    {"ffn-hidden-size", A_KV, "ffn"},           {"num-attention-heads", A_KV, "heads"},
    {"num-query-groups", A_KV, "kv-heads"},     {"seq-length", A_KV, "seq"},
    /* one head's width (arguments.py: hidden_size // num_attention_heads
     * when not given): Q, K and V are heads (groups) x kv-channels wide */
    {"kv-channels", A_KV, "head_dim"},
    {"vocab-size", A_KV, "vocab"},              {"micro-batch-size", A_KV, "mbs"},
    {"global-batch-size", A_KV, "gbs"},         {"num-experts", A_KV, "experts"},
    {"moe-router-topk", A_KV, "topk"},          {"moe-ffn-hidden-size", A_KV, "moe-ffn"},
    {"moe-layer-freq", A_MOE_FREQ, NULL},
    {"moe-shared-expert-intermediate-size", A_KV, "shared_ffn"},
    {"swiglu", A_FLAGKV, "gated=1"},            {"bf16", A_FLAGKV, "dtype=bf16"},
    {"fp16", A_FLAGKV, "dtype=fp16"},
    {"tensor-model-parallel-size", A_TP, NULL}, {"context-parallel-size", A_CP, NULL},
    {"expert-model-parallel-size", A_EP, NULL}, {"pipeline-model-parallel-size", A_PP, NULL},
    {"num-virtual-stages-per-pipeline-rank", A_VP, NULL},
    {"num-layers-per-virtual-pipeline-stage", A_VP_LAYERS, NULL},
    {"sequence-parallel", A_SP, NULL},          {"recompute-granularity", A_RECOMP_GRAN, NULL},
    {"recompute-activations", A_RECOMP_ACT, NULL},
    {"use-distributed-optimizer", A_DISTOPT, NULL}, {"use-flash-attn", A_FLASH, NULL},
    {"group-query-attention", A_GQA, NULL},
    {"accumulate-allreduce-grads-in-fp32", A_GRAD_FP32, NULL},
    {"overlap-grad-reduce", A_OVERLAP_GRAD, NULL}, {"overlap-param-gather", A_OVERLAP_PARAM, NULL},
    {"tp-comm-overlap", A_TP_COMM_OVERLAP, NULL},
    /* change the traffic, no counterpart in parbench's model */
    {"recompute-method", A_NOCP_V, NULL},       {"recompute-num-layers", A_NOCP_V, NULL},
    {"expert-tensor-parallel-size", A_NOCP_V, NULL},
    {"moe-token-dispatcher-type", A_NOCP_V, NULL}, {"moe-router-load-balancing-type", A_NOCP_V, NULL},
    {"moe-expert-capacity-factor", A_NOCP_V, NULL},
    {"decoder-first-pipeline-num-layers", A_KV, "pp_first"},
    {"decoder-last-pipeline-num-layers", A_KV, "pp_last"},
    {"ddp-bucket-size", A_NOCP_V, NULL},        {"num-distributed-optimizer-instances", A_NOCP_V, NULL},
    {"fp8-format", A_NOCP_V, NULL},             {"multi-latent-attention", A_NOCP_F, NULL},
    {"use-torch-fsdp2", A_NOCP_F, NULL},
    /* FP8 halves the GEMMs' time and, with --fp8-param-gather, the
     * parameter all-gather: parbench models bf16/fp16 only */
    {"fp8-recipe", A_NOCP_V, NULL},             {"fp8-param-gather", A_NOCP_F, NULL},
    {"fp8-amax-history-len", A_NOCP_V, NULL},   {"fp8-amax-compute-algo", A_NOCP_V, NULL},
    {"fp8-margin", A_NOCP_V, NULL},
    /* EP all-to-alls beside the other micro-batch's compute (pb_moe.h);
     * it needs --delay-wgrad-compute, which parbench does not model apart */
    {"overlap-moe-expert-parallel-comm", A_MOE_OVERLAP, NULL},
    {"delay-wgrad-compute", A_NOCP_F, NULL},
    /* Megatron-FSDP (--use-custom-fsdp, renamed --use-megatron-fsdp in
     * Megatron-LM af28b5a, Aug 2025): its sharding strategy is the ZeRO
     * stage, not the distributed optimizer (see A_FSDP) */
    {"use-custom-fsdp", A_FSDP, NULL},          {"use-megatron-fsdp", A_FSDP, NULL},
    {"data-parallel-sharding-strategy", A_FSDP_SHARD, NULL},
    /* the embedding and the loss count as a layer in the split: one layer
     * fewer in the first (last) model chunk, parbench's pp_trim */
    {"account-for-embedding-in-pipeline-split", A_ACCOUNT_EMB, NULL},
    {"account-for-loss-in-pipeline-split", A_ACCOUNT_LOSS, NULL},
    {"moe-grouped-gemm", A_QUIET_F, NULL},
    /* no effect on the traffic (or already parbench's assumption) */
    {"max-position-embeddings", A_QUIET_V, NULL}, {"train-iters", A_QUIET_V, NULL},
    {"train-samples", A_QUIET_V, NULL},         {"lr", A_QUIET_V, NULL},
    {"min-lr", A_QUIET_V, NULL},                {"lr-decay-style", A_QUIET_V, NULL},
    {"lr-decay-iters", A_QUIET_V, NULL},        {"lr-warmup-iters", A_QUIET_V, NULL},
    {"lr-warmup-fraction", A_QUIET_V, NULL},    {"weight-decay", A_QUIET_V, NULL},
    {"clip-grad", A_QUIET_V, NULL},             {"adam-beta1", A_QUIET_V, NULL},
    {"adam-beta2", A_QUIET_V, NULL},            {"adam-eps", A_QUIET_V, NULL},
    {"init-method-std", A_QUIET_V, NULL},       {"attention-dropout", A_QUIET_V, NULL},
    {"hidden-dropout", A_QUIET_V, NULL},        {"normalization", A_QUIET_V, NULL},
    {"position-embedding-type", A_QUIET_V, NULL}, {"rotary-base", A_QUIET_V, NULL},
    {"tokenizer-type", A_QUIET_V, NULL},        {"tokenizer-model", A_QUIET_V, NULL},
    {"vocab-file", A_QUIET_V, NULL},            {"merge-file", A_QUIET_V, NULL},
    {"data-path", A_QUIET_V, NULL},             {"split", A_QUIET_V, NULL},
    {"save", A_QUIET_V, NULL},                  {"load", A_QUIET_V, NULL},
    {"save-interval", A_QUIET_V, NULL},         {"eval-interval", A_QUIET_V, NULL},
    {"eval-iters", A_QUIET_V, NULL},            {"log-interval", A_QUIET_V, NULL},
    {"tensorboard-dir", A_QUIET_V, NULL},       {"seed", A_QUIET_V, NULL},
    {"distributed-backend", A_QUIET_V, NULL},   {"transformer-impl", A_QUIET_V, NULL},
    {"make-vocab-size-divisible-by", A_QUIET_V, NULL}, {"norm-epsilon", A_QUIET_V, NULL},
    {"wandb-project", A_QUIET_V, NULL},         {"wandb-exp-name", A_QUIET_V, NULL},
    {"moe-aux-loss-coeff", A_QUIET_V, NULL},    {"distributed-timeout-minutes", A_QUIET_V, NULL},
    {"untie-embeddings-and-output-weights", A_QUIET_F, NULL}, /* parbench counts them untied */
    {"disable-bias-linear", A_QUIET_F, NULL},   {"use-mcore-models", A_QUIET_F, NULL},
    {"no-masked-softmax-fusion", A_QUIET_F, NULL}, {"attention-softmax-in-fp32", A_QUIET_F, NULL},
    {"no-bias-gelu-fusion", A_QUIET_F, NULL},   {"no-bias-dropout-fusion", A_QUIET_F, NULL},
    {"no-position-embedding", A_QUIET_F, NULL}, {"use-rotary-position-embeddings", A_QUIET_F, NULL},
    {"log-throughput", A_QUIET_F, NULL},        {"log-timers-to-tensorboard", A_QUIET_F, NULL},
    {"bf16-grad-reduce", A_QUIET_F, NULL},      {"no-gradient-accumulation-fusion", A_QUIET_F, NULL},
};

/* an argument named once in a note list, as the script spells it */
static void list_add(char *list, size_t cap, const char *item)
{
    char arg[160];
    snprintf(arg, sizeof arg, "--%.150s", item);
    pb_list_add(list, cap, arg, ", ");
}

static void put_kv(pb_megatron_t *m, const char *key, const char *value)
{
    for (int i = 0; i < m->nkv; i++)
        if (strcmp(m->key[i], key) == 0) {
            snprintf(m->value[i], sizeof m->value[i], "%.23s", value);
            return;
        }
    if (m->nkv == PB_MEG_KV)
        return;
    snprintf(m->key[m->nkv], sizeof m->key[0], "%.15s", key);
    snprintf(m->value[m->nkv++], sizeof m->value[0], "%.23s", value);
}

static const char *get_kv(const pb_megatron_t *m, const char *key)
{
    for (int i = 0; i < m->nkv; i++)
        if (strcmp(m->key[i], key) == 0)
            return m->value[i];
    return NULL;
}

/* A model field's value as a number: it passed model_value, so it is a
 * whole number within pb_model_set's bounds; 0 when absent (or not). */
static uint64_t kv_num(const char *v)
{
    uint64_t x = 0;
    return v && pb_num_u64(v, 0, UINT32_MAX, &x) == PB_NUM_OK ? x : 0;
}

static int whole(const char *name, const char *arg, const char *v, int *out, pb_err_t *err)
{
    /* a parallel size or a stage count: 2^24 is far past any run's GPUs */
    uint64_t x = 0;
    int rc = pb_num_u64(v, 1, 1 << 24, &x);
    if (rc == PB_NUM_NAN || (rc == PB_NUM_RANGE && x < 1))
        return pb_err_set(err, PB_EINPUT, "%s: --%s needs a whole number, not '%.40s'", name, arg, v);
    if (rc != PB_NUM_OK)
        return pb_err_set(err, PB_EINPUT, "%s: --%s %.40s is above the bound %d", name, arg, v,
                          1 << 24);
    *out = (int)x;
    return PB_OK;
}

/* A model field's value: a whole number (else the message above), within
 * the bounds pb_model_set keeps for every reader (flags, model files,
 * config.json), said here with the script's name and argument. */
static int model_value(const char *name, const struct arg *a, const char *v, pb_err_t *err)
{
    int unused;
    uint64_t x;
    /* past 2^64 - 1 is still a whole number here: pb_model_set says it is above the bound */
    if (pb_num_u64(v, 0, UINT64_MAX, &x) == PB_NUM_NAN)
        return whole(name, a->name, v, &unused, err);
    pb_model_t scratch;
    memset(&scratch, 0, sizeof scratch);
    pb_err_t e;
    pb_err_clear(&e);
    if (pb_model_set(&scratch, a->key, v, &e) != PB_OK)
        return pb_err_set(err, PB_EINPUT, "%s: --%s: %s", name, a->name, e.msg);
    return PB_OK;
}

/* --moe-layer-freq (Megatron-LM arguments.py moe_freq_type; MoE README):
 * an integer N (every N-th layer MoE: parbench's moe_every), or a Python
 * list expression; parbench reads the one with a leading dense block,
 * DeepSeek-V3's "([0]*3+[1]*58)" (examples in the MoE README), as
 * dense_first K and moe_every 1. */
static int moe_freq(const char *name, pb_megatron_t *m, const char *v, pb_err_t *err)
{
    uint64_t x = 0;
    if (pb_num_u64(v, 1, 1 << 16, &x) == PB_NUM_OK) {
        put_kv(m, "moe-every", v);
        return PB_OK;
    }
    char buf[64];
    size_t n = 0;
    for (const char *p = v; *p && n + 1 < sizeof buf; p++)
        if (*p != ' ' && *p != '(' && *p != ')')
            buf[n++] = *p;
    buf[n] = '\0';
    unsigned long k = 0, rest = 0;
    char tail;
    if (sscanf(buf, "[0]*%lu+[1]*%lu%c", &k, &rest, &tail) != 2 || rest == 0 || k > (1u << 16))
        return pb_err_set(err, PB_EINPUT, "%s: --moe-layer-freq '%.40s': parbench reads an "
                          "integer N or a leading dense block ([0]*K+[1]*N)", name, v);
    char num[24];
    snprintf(num, sizeof num, "%lu", k);
    put_kv(m, "dense_first", num);
    put_kv(m, "moe-every", "1");
    return PB_OK;
}

/* One argument (a = its table entry, v = its value or NULL). */
static int apply_one(const char *name, pb_megatron_t *m, const struct arg *a, const char *v,
                     int *gqa, int *vp_layers, pb_err_t *err)
{
    switch (a->act) {
    case A_KV:
        if (model_value(name, a, v, err))
            return err->code;
        put_kv(m, a->key, v);
        return PB_OK;
    case A_FLAGKV: {
        const char *eq = strchr(a->key, '=');
        char key[16];
        snprintf(key, sizeof key, "%.*s", (int)(eq - a->key), a->key);
        put_kv(m, key, eq + 1);
        return PB_OK;
    }
    case A_TP: return whole(name, a->name, v, &m->tp, err);
    case A_CP: return whole(name, a->name, v, &m->cp, err);
    case A_EP: return whole(name, a->name, v, &m->ep, err);
    case A_PP: return whole(name, a->name, v, &m->pp, err);
    case A_VP: return whole(name, a->name, v, &m->vp, err);
    case A_VP_LAYERS: return whole(name, a->name, v, vp_layers, err);
    case A_SP: m->sp = 1; return PB_OK;
    case A_RECOMP_GRAN:
        if (strcmp(v, "full") != 0 && strcmp(v, "selective") != 0)
            return pb_err_set(err, PB_EINPUT, "%s: --recompute-granularity takes full or "
                              "selective, not '%.40s'", name, v);
        m->recompute = v[0] == 'f' ? 1 : 2;
        return PB_OK;
    case A_RECOMP_ACT: m->recompute = 2; return PB_OK; /* Megatron: selective */
    case A_DISTOPT: m->dist_opt = 1; return PB_OK;
    case A_FSDP: m->fsdp = a->name[4] == 'c' ? 1 : 2; return PB_OK; /* use-custom / use-megatron */
    case A_FSDP_SHARD: {
        static const char *const stages[] = {"no_shard", "optim", "optim_grads",
                                             "optim_grads_params"};
        for (int z = 0; z < (int)(sizeof stages / sizeof stages[0]); z++)
            if (strcmp(v, stages[z]) == 0) {
                m->fsdp_zero = z;
                return PB_OK;
            }
        return pb_err_set(err, PB_EINPUT, "%s: --data-parallel-sharding-strategy takes no_shard, "
                          "optim, optim_grads or optim_grads_params, not '%.40s'", name, v);
    }
    case A_MOE_FREQ: return moe_freq(name, m, v, err);
    case A_MOE_OVERLAP: m->moe_ep_overlap = 1; return PB_OK;
    case A_FLASH: m->flash = 1; return PB_OK;
    case A_GQA: *gqa = 1; return PB_OK;
    case A_GRAD_FP32: snprintf(m->grad_dtype, sizeof m->grad_dtype, "fp32"); return PB_OK;
    case A_OVERLAP_GRAD: m->overlap_grad = 1; return PB_OK;
    case A_OVERLAP_PARAM: m->overlap_param = 1; return PB_OK;
    case A_ACCOUNT_EMB: m->account |= 1; return PB_OK;
    case A_ACCOUNT_LOSS: m->account |= 2; return PB_OK;
    case A_TP_COMM_OVERLAP:
        m->tp_comm_overlap = 1;
        list_add(m->no_counterpart, sizeof m->no_counterpart,
                 "tp-comm-overlap (parbench: --tp-overlap F, the hidden fraction)");
        return PB_OK;
    case A_NOCP_V:
    case A_NOCP_F:
        list_add(m->no_counterpart, sizeof m->no_counterpart, a->name);
        return PB_OK;
    default:
        return PB_OK;
    }
}

static int has_value(enum act a)
{
    return a == A_KV || a == A_MOE_FREQ || (a >= A_TP && a <= A_VP_LAYERS) ||
           a == A_RECOMP_GRAN || a == A_QUIET_V ||
           a == A_NOCP_V || a == A_FSDP_SHARD;
}

/* Megatron's defaults where the script is silent (pb_megatron.h) */
static int defaults(const char *name, pb_megatron_t *m, int gqa, int vp_layers, pb_err_t *err)
{
    char buf[24];
    const char *heads = get_kv(m, "heads"), *hidden = get_kv(m, "hidden");
    if (!gqa && heads)
        put_kv(m, "kv-heads", heads); /* --num-query-groups counts only with GQA */
    if (hidden && get_kv(m, "gated") == NULL)
        put_kv(m, "gated", "0");
    if (hidden && get_kv(m, "ffn") == NULL) {
        unsigned long long h = kv_num(hidden);
        unsigned long long f = strcmp(get_kv(m, "gated"), "1") == 0
                                   ? PB_MEG_FFN_X_H * 2 * h / PB_MEG_SWIGLU_DIV / PB_MEG_SWIGLU_ROUND *
                                         PB_MEG_SWIGLU_ROUND
                                   : PB_MEG_FFN_X_H * h;
        snprintf(buf, sizeof buf, "%llu", f);
        put_kv(m, "ffn", buf);
    }
    if (get_kv(m, "experts") == NULL && hidden)
        put_kv(m, "experts", "0"), put_kv(m, "topk", "0");
    /* pp_trim takes ceil(N/2) from the first stage: N = 1 is the embedding
     * alone; the loss alone has no counterpart */
    if ((m->account & 1) && (m->account & 2))
        put_kv(m, "pp_trim", "2");
    else if (m->account == 1)
        put_kv(m, "pp_trim", "1");
    else if (m->account == 2)
        list_add(m->no_counterpart, sizeof m->no_counterpart,
                 "account-for-loss-in-pipeline-split without the embedding's");
    /* the ZeRO stage: Megatron-FSDP shards by its strategy, whatever the
     * distributed optimizer says (FSDP v1 requires that flag and turns it
     * on itself: megatron/training/arguments.py).  The strategies are
     * ZeRO-0 (DDP) to ZeRO-3: _init_each_parameter_group_buffers in
     * megatron/core/distributed/custom_fsdp/param_and_grad_buffer.py
     * distributes nothing, the main weights (optimizer state), + the
     * gradients, + the model weights; docs/user-guide/parallelism-guide.md
     * names them ZeRO-1/2/3.  Unsaid, the strategy is Megatron's default:
     * no_shard while the flag was --use-custom-fsdp (arguments.py until
     * Megatron-LM af28b5a, Aug 2025), optim_grads_params for
     * --use-megatron-fsdp since 3499efef (Apr 2026; no_shard before). */
    if (m->fsdp) {
        static const char *const stages[] = {"no_shard", "optim", "optim_grads",
                                             "optim_grads_params"};
        int unsaid = m->fsdp_zero < 0;
        m->zero = unsaid ? (m->fsdp == 1 ? 0 : PB_ZERO3) : m->fsdp_zero;
        snprintf(m->notes, sizeof m->notes,
                 "--use-%s-fsdp (Megatron-FSDP) with sharding strategy %s%s modelled as "
                 "--zero %d (no_shard, optim, optim_grads, optim_grads_params: ZeRO-0 to 3), "
                 "not as the distributed optimizer",
                 m->fsdp == 1 ? "custom" : "megatron", stages[m->zero],
                 unsaid ? " (Megatron's default for that flag)" : "", m->zero);
    } else {
        m->zero = m->dist_opt;
        if (m->fsdp_zero >= 0)
            list_add(m->no_counterpart, sizeof m->no_counterpart,
                     "data-parallel-sharding-strategy without Megatron-FSDP");
    }
    const char *dt = get_kv(m, "dtype");
    if (m->grad_dtype[0] == '\0' && dt) /* grads reduced in the parameters' type */
        snprintf(m->grad_dtype, sizeof m->grad_dtype, "%s", dt);
    /* parbench's step model overlaps both (model/pb_step.h): say where the
     * script does not */
    if (m->found_cmd && !m->overlap_grad)
        list_add(m->no_counterpart, sizeof m->no_counterpart,
                 "overlap-grad-reduce absent (parbench overlaps the gradient reduction with "
                 "the last backward)");
    if (m->found_cmd && m->zero >= 1 && !m->overlap_param)
        list_add(m->no_counterpart, sizeof m->no_counterpart,
                 "overlap-param-gather absent (parbench overlaps the parameter all-gather "
                 "with the next forward)");
    if (vp_layers) {
        const char *layers = get_kv(m, "layers");
        int pp = m->pp ? m->pp : 1;
        long l = (long)kv_num(layers);
        if (l == 0 || l % ((long)pp * vp_layers) != 0)
            return pb_err_set(err, PB_EINPUT, "%s: --num-layers-per-virtual-pipeline-stage %d "
                              "does not divide %ld layers over %d stages", name, vp_layers, l, pp);
        m->vp = (int)(l / pp / vp_layers);
    }
    return PB_OK;
}

static int apply_args(const char *name, pb_megatron_t *m, char (*w)[PB_MEG_WORDLEN], int n,
                      pb_err_t *err)
{
    int gqa = 0, vp_layers = 0;
    for (int i = 0; i < n; i++) {
        if (strncmp(w[i], "--", 2) != 0)
            continue; /* a value of an unknown argument, or a stray word */
        char arg[PB_MEG_WORDLEN];
        snprintf(arg, sizeof arg, "%s", w[i] + 2);
        char *eq = strchr(arg, '=');
        const char *v = NULL;
        if (eq)
            *eq = '\0', v = eq + 1;
        for (char *c = arg; *c; c++) /* Megatron accepts --num_layers too */
            *c = *c == '_' ? '-' : *c;
        const struct arg *a = NULL;
        for (size_t k = 0; k < sizeof args / sizeof args[0] && a == NULL; k++)
            if (strcmp(args[k].name, arg) == 0)
                a = &args[k];
        if (a == NULL) {
            list_add(m->unknown, sizeof m->unknown, arg);
            continue;
        }
        m->nknown++;
        if (has_value(a->act) && v == NULL) {
            if (i + 1 >= n || strncmp(w[i + 1], "--", 2) == 0)
                return pb_err_set(err, PB_EINPUT, "%s: --%s needs a value", name, a->name);
            v = w[++i];
        }
        if (v && v[0] == '$')
            continue; /* a variable the script does not set: named in unresolved */
        if (apply_one(name, m, a, v, &gqa, &vp_layers, err) != PB_OK)
            return err->code;
    }
    return defaults(name, m, gqa, vp_layers, err);
}

int pb_megatron_parse(const char *name, const char *text, pb_megatron_t *out, pb_err_t *err)
{
    memset(out, 0, sizeof *out);
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    char **lines = malloc((len + 2) * sizeof *lines);
    pb_meg_sh_t *sh = calloc(1, sizeof *sh);
    char(*w)[PB_MEG_WORDLEN] = malloc(PB_MEG_WORDS * sizeof *w);
    char(*argv)[PB_MEG_WORDLEN] = malloc(PB_MEG_WORDS * sizeof *argv);
    int code = PB_OK, argc = 0;
    if (!copy || !lines || !sh || !w || !argv) {
        code = pb_err_set(err, PB_ERUNTIME, "out of memory reading %s", name);
        goto done;
    }
    /* continuations joined ("\\\n" -> "  "), '\r' dropped, lines split */
    size_t k = 0, nl = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\\' && (text[i + 1] == '\n' || (text[i + 1] == '\r' && text[i + 2] == '\n'))) {
            copy[k++] = ' ';
            i += text[i + 1] == '\r' ? 2 : 1;
        } else if (text[i] != '\r') {
            copy[k++] = text[i];
        }
    }
    copy[k] = '\0';
    for (char *p = copy, *save = NULL, *t; (t = strtok_r(p, "\n", &save)) != NULL; p = NULL)
        lines[nl++] = t;
    sh->out = out;
    out->fsdp_zero = -1;
    pb_meg_walk(sh, lines, nl, w, argv, &argc);
    code = apply_args(name, out, argv, argc, err);
    /* an empty file, a config.json, a model file: nothing to model from,
     * and the preset it would fall back to is not what was meant */
    if (code == PB_OK && out->nknown == 0)
        code = pb_err_set(err, PB_EINPUT, "%s: no Megatron-LM argument found (--num-layers, "
                          "--hidden-size, --tensor-model-parallel-size, ...): not a launch "
                          "script", name);
done:
    free(argv);
    free(w);
    free(sh);
    free(lines);
    free(copy);
    return code;
}
