/* pb_megatron.h - a Megatron-LM launch script's pretrain_gpt.py arguments
 * as parbench's model, layout and step settings.
 *
 * The text is read as a shell reads it, as far as a plain script needs:
 * line continuations, comments, quotes, VAR=value and arrays VAR=( ... ),
 * $VAR / ${VAR} / ${VAR:-default} / ${ARR[@]} where the script itself sets
 * them (others are listed as unresolved).  The arguments are those after
 * the word naming pretrain_*.py; torchrun's --nnodes and --nproc_per_node
 * before it give the GPU count.  A text without such a word is read as
 * bare arguments.
 *
 * Megatron's defaults apply where the script is silent and parbench's
 * would differ: multi-head attention unless --group-query-attention,
 * GeLU (not gated) unless --swiglu, ffn 4h (swiglu: 8h/3 rounded down to
 * a multiple of 64), gradients reduced in the parameters' type unless
 * --accumulate-allreduce-grads-in-fp32.  Arguments parbench does not know
 * are listed once; known ones that change the traffic but have no
 * parbench counterpart are named. */
#ifndef PB_MEGATRON_H
#define PB_MEGATRON_H

#include <stddef.h>

#include "../util/pb_err.h"

#define PB_MEG_KV 24

typedef struct pb_megatron {
    /* model fields as pb_model_set keys, in the order to apply */
    char key[PB_MEG_KV][16];
    char value[PB_MEG_KV][24];
    int nkv;
    /* layout (0: not given): tp, cp, ep, pp, and vp */
    int tp, cp, ep, pp, vp;
    int sp;
    int recompute;   /* 0 none, 1 full, 2 selective */
    int dist_opt;    /* --use-distributed-optimizer */
    int fsdp;        /* --use-custom-fsdp / --use-megatron-fsdp */
    int fsdp_zero;   /* --data-parallel-sharding-strategy as a ZeRO stage; -1 unsaid */
    int zero;        /* the ZeRO stage the script means: FSDP's, else 1 with the
                      * distributed optimizer, else 0 */
    int nknown;      /* arguments of the table read (0: refused, not a script) */
    int flash;       /* --use-flash-attn */
    int overlap_grad, overlap_param, tp_comm_overlap;
    int moe_ep_overlap; /* --overlap-moe-expert-parallel-comm (pb_moe.h ep_overlap) */
    int account;     /* --account-for-{embedding (1), loss (2)}-in-pipeline-split */
    char grad_dtype[8]; /* "" unsaid, "bf16", "fp16" or "fp32" */
    int gpus, gpus_per_node; /* from torchrun's --nnodes x --nproc_per_node */
    int found_cmd;   /* a pretrain_*.py word was found */
    char unknown[400];       /* arguments parbench does not know */
    char no_counterpart[640]; /* known, change the traffic, not modelled */
    char unresolved[160];    /* variables the script does not set */
    char notes[320];         /* how a read argument is modelled, where not plain */
} pb_megatron_t;

/* PB_EINPUT "name: ..." for a text with no argument parbench knows (an
 * empty file, a config.json), a script whose numbers are not numbers or
 * are past pb_model_set's bounds, or whose virtual-pipeline split does
 * not divide; unknown arguments never fail. */
int pb_megatron_parse(const char *name, const char *text, pb_megatron_t *out, pb_err_t *err);

#endif
