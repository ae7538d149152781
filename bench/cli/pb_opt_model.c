/* The option groups of the model and what a prediction assumes: the
 * model, its layout, the training settings, the hardware.  Taken by the
 * main job (--pattern), step, model and plan (cmd/pb_cmd_*.c). */
#include <stdio.h>
#include <string.h>

#include "../../model/pb_framework.h"
#include "../../patterns/pb_traffic_cfg.h"
#include "pb_opt_set.h"


/* ---- model --------------------------------------------------------- */

static int model_kv(pb_options_t *o, const char *key, const char *v, pb_err_t *err)
{
    pb_model_opts_t *m = &o->model;
    if (m->nmodel_kv == PB_MODEL_FLAGS)
        return pb_err_set(err, PB_EINPUT, "too many model options");
    m->model_kv[m->nmodel_kv][0] = key;
    m->model_kv[m->nmodel_kv++][1] = v;
    return PB_OK;
}

/* a model field: the option's name is the model-file key, applied over
 * the preset and the model file by pb_model_set (pb_pattern_plan.c) */
static int set_field(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                     pb_err_t *err)
{
    (void)shown;
    return model_kv(o, s->lng, v, err);
}

/* a SwiGLU-style MLP: fused gate and up projections */
static int set_gated(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                     pb_err_t *err)
{
    (void)v, (void)shown;
    return model_kv(o, "gated", strcmp(s->lng, "gated") == 0 ? "1" : "0", err);
}

#define FIELD(name, arg, help) {name, 0, arg, set_field, 0, 0, help, NULL, NULL}

static const pb_opt_spec_t model_specs[] = {
    {"preset", 0, "NAME", pb_opt_str, PB_OFF(model.preset), 0,
     "gpt3-175b, llama2-7b, llama2-70b, llama3-8b, llama3-70b,\n"
     "llama3-405b, mixtral-8x7b, deepseek-v3, example-70b,\n"
     "tiny (default)",
     "gpt3-175b llama2-7b llama2-70b llama3-8b llama3-70b llama3-405b mixtral-8x7b deepseek-v3 "
     "example-70b tiny",
     NULL},
    {"model-file", 0, "F", pb_opt_str, PB_OFF(model.model_file), 0,
     "key = value lines (the keys are these options' names)", "@file", NULL},
    {"hf-config", 0, "F", pb_opt_str, PB_OFF(model.hf_config), 0,
     "a Hugging Face config.json (Llama, Mistral, Mixtral, Qwen2,\n"
     "Qwen2-MoE, DeepSeek); over the preset, under the flags", "@file", NULL},
    {"megatron-args", 0, "F", pb_opt_str, PB_OFF(model.megatron_args), 0,
     "a Megatron-LM launch script (or - for stdin): model,\n"
     "layout, batch, recomputation, precision; flags win", "@file", NULL},
    FIELD("size", "H", "hidden size; alone (no --preset, file or shape flag)\n"
                       "a Llama 3-style model of that width (heads of 128, 8\n"
                       "KV heads, ffn 3.5 H SwiGLU, vocab 128256, seq 8192, 4\n"
                       "layers); with shape flags (--layers, --heads, --ffn,\n"
                       "...) a model of those, GPT-style where they are silent\n"
                       "(full attention, plain 4 H MLP); with --preset, that\n"
                       "preset widened.  The header names what was assumed"),
    FIELD("hidden", "H", "hidden size (= --size)"),
    FIELD("layers", "N", "transformer layers (default: the preset's; tiny's and\n"
                         "the --size rule's 4 rise to a multiple of pp x vp)"),
    FIELD("seq", "S", "sequence length"),
    FIELD("mbs", "B", "micro-batch size"),
    FIELD("gbs", "B", "global batch size"),
    FIELD("heads", "A", "attention heads"),
    FIELD("kv-heads", "G", "key/value heads (GQA; default: the preset's, else\n"
                           "= --heads: full attention)"),
    FIELD("ffn", "F", "MLP inner size"),
    FIELD("vocab", "V", "vocabulary size"),
    FIELD("experts", "E", "experts per MoE layer"),
    FIELD("topk", "K", "experts each token is routed to"),
    FIELD("moe-every", "N", "every N-th layer is an MoE layer"),
    FIELD("moe-ffn", "F", "an expert's MLP inner size"),
    FIELD("head-dim", "D", "width of one attention head (default hidden / heads)"),
    FIELD("shared-ffn", "F", "MoE: the shared experts' total MLP inner size\n"
                             "(DeepSeek-style; 0 none)"),
    FIELD("dense-first", "N", "MoE: the first N layers are dense (DeepSeek's\n"
                              "first_k_dense_replace)"),
    FIELD("pp-trim", "N", "layers fewer on the first and last pipeline stage"),
    FIELD("pp-first", "N", "layers on the first pipeline stage (Megatron's\n"
                           "--decoder-first-pipeline-num-layers); the rest even"),
    FIELD("pp-last", "N", "layers on the last pipeline stage (Megatron's\n"
                          "--decoder-last-pipeline-num-layers)"),
    {"gated", 0, NULL, set_gated, 0, 0, "gated MLP (SwiGLU: three matrices)", NULL, NULL},
    {"no-gated", 0, NULL, set_gated, 0, 0,
     "plain MLP (two matrices; a model typed by its shape\nhas one unless --gated)", NULL, NULL},
};
const pb_opt_group_t pb_grp_model = {
    "model:", model_specs, PB_NSPECS(model_specs),
    "model options (--hidden, --layers, --seq, ...) belong to --pattern and parbench gemm"};

/* ---- layout -------------------------------------------------------- */

/* --tp --cp --ep --dp --pp: the spec's lo is its dimension */
static int set_dim(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                   pb_err_t *err)
{
    o->model.layout_given |= 1u << s->lo;
    return pb_parse_int(shown, v, 1, &o->model.layout[s->lo], err);
}

static const pb_opt_spec_t layout_specs[] = {
    {"tp", 0, "N", set_dim, 0, PB_LAYOUT_TP, "tensor-parallel size", NULL, NULL},
    {"cp", 0, "N", set_dim, 0, PB_LAYOUT_CP, "context-parallel size", NULL, NULL},
    {"ep", 0, "N", set_dim, 0, PB_LAYOUT_EP, "expert-parallel size", NULL, NULL},
    {"dp", 0, "N", set_dim, 0, PB_LAYOUT_DP,
     "data-parallel size (default: what the others leave of\nthe world)", NULL, NULL},
    {"pp", 0, "N", set_dim, 0, PB_LAYOUT_PP, "pipeline-parallel size", NULL, NULL},
    {"vp", 0, "N", pb_opt_int, PB_OFF(model.vp), 1,
     "model chunks per pipeline stage (interleaving)", NULL, NULL},
    {"sp", 0, NULL, pb_opt_flag, PB_OFF(model.sp), 0, "sequence parallelism (with tp)", NULL, NULL},
    {"etp", 0, "N", pb_opt_int, PB_OFF(model.etp), 1,
     "experts' tensor parallelism: expert groups folded out of\ntp x cp x dp (MoE parallel "
     "folding)",
     NULL, NULL},
    {"shard-group", 0, "N", pb_opt_int, PB_OFF(model.shard), 1,
     "shard within groups of N data-parallel ranks and\nreplicate across them: HSDP with --zero 3, "
     "Megatron's\npartial distributed optimizer with --zero 1 or 2\n(default: all of them)",
     NULL, NULL},
    {"order", 0, "ORDER", pb_opt_str, PB_OFF(model.order), 0,
     "rank order, first fastest (default tp-cp-ep-dp-pp,\nMegatron's)", NULL, NULL},
};
const pb_opt_group_t pb_grp_layout = {"layout:", layout_specs, PB_NSPECS(layout_specs),
                                      "a layout (--tp ...) belongs to --pattern and parbench topo"};

/* ---- training settings --------------------------------------------- */

static int set_bucket(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                      pb_err_t *err)
{
    (void)s, (void)shown;
    pb_bucket_t b;
    if (pb_bucket_parse(v, &b) != 0)
        return pb_err_set(err, PB_EINPUT, "--dp-bucket takes megatron, ddp or deepspeed, not '%s'",
                          v);
    o->model.train.dp_bucket = 1 + (int)b;
    return PB_OK;
}

/* named as the command line is read, so no later error hides it */
static int set_framework(pb_options_t *o, const pb_opt_spec_t *s, const char *v,
                         const char *shown, pb_err_t *err)
{
    (void)s, (void)shown;
    pb_fw_t fw;
    if (pb_fw_parse(v, &fw) != 0)
        return pb_err_set(err, PB_EINPUT, "--framework takes %s, not '%s'", pb_fw_names(), v);
    o->model.train.framework = v;
    return PB_OK;
}

static int set_zero(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                    pb_err_t *err)
{
    (void)s;
    if (pb_parse_int(shown, v, 0, &o->model.train.zero, err) != PB_OK)
        return err->code;
    if (o->model.train.zero > 3)
        return pb_err_set(err, PB_EINPUT, "--zero takes 0, 1, 2 or 3, not %s", v);
    return PB_OK;
}

static int set_dist_opt(pb_options_t *o, const pb_opt_spec_t *s, const char *v,
                        const char *shown, pb_err_t *err)
{
    (void)s, (void)v, (void)shown, (void)err;
    o->model.train.zero = 1;
    return PB_OK;
}

static int set_imbalance(pb_options_t *o, const pb_opt_spec_t *s, const char *v,
                         const char *shown, pb_err_t *err)
{
    (void)s;
    if (pb_parse_double(shown, v, 0, &o->model.train.imbalance, err) != PB_OK)
        return err->code;
    if (o->model.train.imbalance < 1.0)
        return pb_err_set(err, PB_EINPUT, "--imbalance must be at least 1 (got %s)", v);
    return PB_OK;
}

static const pb_opt_spec_t train_specs[] = {
    {"dp-bucket", 0, "B", set_bucket, 0, 0,
     "megatron, ddp or deepspeed gradient buckets (default: the\n--framework's)",
     "megatron ddp deepspeed", NULL},
    {"zero", 0, "Z", set_zero, 0, 0, "optimizer sharding 0, 1, 2 or 3 (default 0)", NULL, NULL},
    {"dist-opt", 0, NULL, set_dist_opt, 0, 0, "distributed optimizer (= --zero 1)", NULL, NULL},
    {"grad-dtype", 0, "T", pb_opt_str, PB_OFF(model.train.grad_dtype), 0,
     "fp32 or bf16 gradients (default fp32)", NULL, NULL},
    {"recompute", 0, NULL, pb_opt_flag, PB_OFF(model.train.recompute), 0,
     "full activation recomputation (repeats TP forward ops)", NULL, NULL},
    {"imbalance", 0, "F", set_imbalance, 0, 0,
     "EP: the hottest destination gets F x the mean (alltoallv)", NULL, NULL},
    {"framework", 0, "NAME", set_framework, 0, 0,
     "the training stack: megatron (default), nemo, deepspeed,\n"
     "fsdp (eager PyTorch modules), torchtitan (FSDP2 +\n"
     "torch.compile) or maxtext (JAX/XLA): the operations it\n"
     "sends, its kernels, overlaps and gradient accumulation;\n"
     "the other flags override its defaults",
     "megatron nemo deepspeed fsdp torchtitan maxtext", NULL},
    {"tokens-per-step", 0, "T", pb_opt_u64, PB_OFF(model.train.tokens_per_step), 1,
     "the global batch in tokens (= --gbs T / --seq)", NULL, NULL},
};
const pb_opt_group_t pb_grp_train = {"training:", train_specs, PB_NSPECS(train_specs), NULL};

/* ---- hardware and compute of a prediction -------------------------- */

static int set_hw_set(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                      pb_err_t *err)
{
    (void)s, (void)shown;
    if (strchr(v, '=') == NULL)
        return pb_err_set(err, PB_EINPUT, "--hw-set takes key=value, not '%s'", v);
    if (o->predict.nhw_set == PB_MAX_INPUTS)
        return pb_err_set(err, PB_EINPUT, "too many --hw-set options");
    o->predict.hw_set[o->predict.nhw_set++] = v;
    return PB_OK;
}

/* The largest machine a prediction may describe: 2^20 GPUs, several
 * times the largest training clusters announced (xAI's Colossus, 200,000
 * GPUs in 2025), and small enough that GPUs x anything per GPU stays far
 * inside 64 bits. */
#define PB_MAX_GPUS (1 << 20)

static int set_gpus(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                    pb_err_t *err)
{
    (void)s;
    if (pb_parse_int(shown, v, 1, &o->predict.gpus, err) != PB_OK)
        return err->code;
    if (o->predict.gpus > PB_MAX_GPUS)
        return pb_err_set(err, PB_EINPUT, "%s %s is more than the %d GPUs parbench models", shown,
                          v, PB_MAX_GPUS);
    return PB_OK;
}

/* --gpus first: pb_grp_predict_run leaves it out */
static const pb_opt_spec_t predict_specs[] = {
    {"gpus", 0, "N", set_gpus, 0, 0,
     "GPUs in all (model: dp is what tp x cp x pp leave of\nthem, all of them without layout flags)",
     NULL, NULL},
    {"gpus-per-node", 0, "G", pb_opt_int, PB_OFF(predict.gpus_per_node), 1,
     "GPUs per node (default: the hardware's)", NULL, NULL},
    {"hw", 0, "NAME", pb_opt_str, PB_OFF(predict.hw), 0,
     "a100, a100-40gb, h100, h200, h800, b200, gb200, mi300x,\n"
     "mi325x, mi355x (default a100)",
     "a100 a100-40gb h100 h200 h800 b200 gb200 mi300x mi325x mi355x", NULL},
    {"hw-set", 0, "K=V", set_hw_set, 0, 0,
     "override a hardware field (bf16_tflops, hbm_gib, hbm_tbps,\n"
     "nvlink_gbps (xGMI on AMD), nics_per_node, nic_gbitps, gpus_per_node,\n"
     "achievable, nvlink_eff, net_eff, lat_intra_us, lat_net_us;\n"
     "memory: hbm_cuda_gib, cuda_ctx_gib, nccl_comm_mib,\n"
     "nccl_nvls_mib, alloc_frag)",
     NULL, NULL},
    {"calib", 0, "FILE", pb_opt_str, PB_OFF(predict.calib), 0, "parbench calibrate's CSV", "@file",
     NULL},
    {"gemm-csv", 0, "FILE", pb_opt_str, PB_OFF(predict.gemm_csv), 0,
     "parbench gemm rows measured on your GPU: they calibrate the\n"
     "GEMM efficiency of the kernel model", "@file", NULL},
    {"selective", 0, NULL, pb_opt_flag, PB_OFF(predict.selective), 0,
     "selective activation recomputation (--recompute: full)", NULL, NULL},
    {"recompute-mode", 0, "MODE", pb_opt_str, PB_OFF(predict.recompute_mode), 0,
     "none, selective, full, op (torchtitan's op-level selective\n"
     "AC: memory-bound ops and every second matmul recomputed) or\n"
     "layer:N (every N-th layer fully recomputed); over --recompute\n"
     "and --selective",
     "none selective full op layer:2", NULL},
    {"flash", 0, NULL, pb_opt_flag, PB_OFF(predict.flash), 0,
     "flash attention, the default (one fused kernel, no s^2\nactivations stored)", NULL, NULL},
    {"no-flash", 0, NULL, pb_opt_flag, PB_OFF(predict.no_flash), 0,
     "materialised attention scores instead: two GEMMs, a\nmemory-bound softmax, s^2 activations",
     NULL, NULL},
    {"causal", 0, NULL, pb_opt_flag, PB_OFF(predict.causal), 0,
     "count half the attention scores: a decoder's causal mask,\n"
     "skipped by a fused kernel (the default with flash)", NULL, NULL},
    {"no-causal", 0, NULL, pb_opt_flag, PB_OFF(predict.no_causal), 0,
     "count every attention score (an encoder, or no fused kernel)", NULL, NULL},
    {"fsdp2", 0, NULL, pb_opt_flag, PB_OFF(predict.fsdp2), 0,
     "ZeRO-3 as PyTorch FSDP2 runs it: each gather's copy-out\n"
     "and each gradient's copy-in on the compute stream (needs\n--zero 3)", NULL, NULL},
    {"unfused-grad-accum", 0, NULL, pb_opt_flag, PB_OFF(predict.unfused_accum), 0,
     "each micro-batch's gradients added to the main gradient in\n"
     "a separate pass (Megatron 2021's local DDP) rather than by\nthe wgrad GEMM", NULL, NULL},
    {"no-overlap-grad-reduce", 0, NULL, pb_opt_flag, PB_OFF(model.train.no_overlap_grad), 0,
     "gradients reduced after the last backward, not during it\n"
     "(Megatron without --overlap-grad-reduce)", NULL, NULL},
    {"no-overlap-tp-bwd", 0, NULL, pb_opt_flag, PB_OFF(model.train.no_overlap_tp_bwd), 0,
     "the backward's TP collectives not beside the wgrad GEMMs", NULL, NULL},
    {"no-overlap-p2p", 0, NULL, pb_opt_flag, PB_OFF(model.train.no_overlap_p2p), 0,
     "interleaved pipelines' send/recv not beside compute\n"
     "(Megatron without --overlap-p2p-communication)", NULL, NULL},
    {"tp-overlap", 0, "F", pb_opt_str, PB_OFF(predict.tp_overlap), 0,
     "fraction of TP communication hidden behind GEMMs, 0 to 1,\n"
     "or on (1: userbuffers / async TP; the GEMMs pay the SMs it\n"
     "takes) or off (default: the framework's, megatron 0)",
     "on off", NULL},
    {"overlap", 0, "LETTERS", pb_opt_str, PB_OFF(predict.overlap), 0,
     "what overlaps, as the --against file's column: g gradient\n"
     "reduction, t TP backward beside wgrad, p interleaved\n"
     "send/recv; u unfused gradient accumulation, h 16-bit\n"
     "gradients, c FSDP2 copies; '-' none (over --framework's\n"
     "defaults; the --no-overlap-* flags still apply after)", NULL, NULL},
    {"moe-imbalance", 0, "F", pb_opt_str, PB_OFF(predict.moe_imbalance), 0,
     "MoE: the busiest EP rank's routed tokens over the mean,\n"
     "at least 1 (default 1.5, measured on aux-loss routing;\n"
     "1 for a router forced to balance); drives its expert\n"
     "GEMMs and its all-to-all share", NULL, NULL},
    {"moe-ep-overlap", 0, NULL, pb_opt_flag, PB_OFF(predict.moe_ep_overlap), 0,
     "MoE: the EP all-to-alls beside the other micro-batch's\n"
     "compute (Megatron-Core --overlap-moe-expert-parallel-comm,\n"
     "DeepSeek-V3's DualPipe)", NULL, NULL},
    {"param-dtype", 0, "T", pb_opt_str, PB_OFF(predict.param_dtype), 0,
     "the type ZeRO-3 gathers parameters in: fp32 (FSDP without\n"
     "a param_dtype), bf16, fp16 or fp8 (default: the model's)",
     "fp32 bf16 fp16 fp8", NULL},
    {"optim-dtype", 0, "T", pb_opt_str, PB_OFF(predict.optim_dtype), 0,
     "Adam's state: fp32 (default: an fp32 master and moments)\n"
     "or bf16 (\"pure bf16\": parameters, gradients and moments\nin bf16)",
     "fp32 bf16", NULL},
    {"loss", 0, "KIND", pb_opt_str, PB_OFF(predict.loss), 0,
     "the loss's memory per logit: vocab-parallel (Megatron),\n"
     "fused-ce (torchtitan compiled, llm-foundry), fp32 (an\n"
     "eager upcast), hf (Hugging Face's fp32 logits), chunked\n"
     "(torchtune) or fused-linear (Liger); default: the\n"
     "framework's",
     "vocab-parallel fused-ce fp32 hf chunked fused-linear", NULL},
    {"pp-schedule", 0, "S", pb_opt_str, PB_OFF(predict.pp_schedule), 0,
     "the pipeline schedule modelled: 1f1b (Megatron's,\ninterleaved with --vp; default) or "
     "dualpipe (DeepSeek-V3's:\nstages s and pp-1-s on a rank, both directions, the EP\n"
     "all-to-alls and sends hidden as --moe-ep-overlap)",
     "1f1b dualpipe", NULL},
    {"fp8-recipe", 0, "R", pb_opt_str, PB_OFF(predict.fp8_recipe), 0,
     "with --dtype fp8, how operands are scaled: tensorwise\n"
     "(one scale per tensor: Transformer Engine, torchao's\n"
     "default; the default) or rowwise (torchao's: one per row,\n"
     "more cast passes, the gradient GEMMs scaled after)",
     "tensorwise rowwise", NULL},
    {"ep-dispatcher", 0, "D", pb_opt_str, PB_OFF(predict.ep_dispatcher), 0,
     "MoE token dispatcher: alltoall, flex (DeepEP: a token\n"
     "crosses the network once per node) or auto (default:\n"
     "flex when the EP group spans nodes)",
     "alltoall flex auto", NULL},
    {"tflops", 0, "X", pb_opt_pos, PB_OFF(predict.tflops), 0,
     "compute rate per GPU instead (step: the stand-in's rate,\n"
     "default 156: an A100's 312 dense bf16 at the model's 0.5\n"
     "achievable)",
     NULL, NULL},
};
#define PB_PREDICT_ELSEWHERE                                                                   \
    "--gpus, --gpus-per-node, --hw, --hw-set, --calib, --gemm-csv, --selective, "              \
    "--recompute-mode, --flash, --no-flash, --causal, --no-causal, --fsdp2, "                  \
    "--unfused-grad-accum, --no-overlap-grad-reduce, --no-overlap-tp-bwd, --no-overlap-p2p, "  \
    "--tp-overlap, --optim-dtype, --loss, --pp-schedule, --ep-dispatcher and --tflops "  \
    "belong to parbench model, plan "                                                          \
    "and step"
const pb_opt_group_t pb_grp_predict = {"hardware and compute:", predict_specs,
                                       PB_NSPECS(predict_specs), PB_PREDICT_ELSEWHERE};
/* The same options less the first, --gpus: for a command that runs its
 * ranks (step), where the GPUs in all are the ranks it runs and --gpus is
 * the launch group's (the threads of one process). */
const pb_opt_group_t pb_grp_predict_run = {"hardware and compute:", predict_specs + 1,
                                           PB_NSPECS(predict_specs) - 1, PB_PREDICT_ELSEWHERE};
