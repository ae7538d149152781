#include "pb_megatron_opts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../patterns/pb_megatron.h"

#define PB_MEG_MAX_TEXT (4u << 20) /* a launch script, not a data file */

static char *read_all(const char *path, pb_err_t *err)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (f == NULL) {
        pb_err_set(err, PB_EINPUT, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(PB_MEG_MAX_TEXT + 1);
    size_t n = buf ? fread(buf, 1, PB_MEG_MAX_TEXT + 1, f) : 0;
    if (f != stdin)
        fclose(f);
    if (buf == NULL || n > PB_MEG_MAX_TEXT) {
        pb_err_set(err, PB_EINPUT, "%s: larger than a launch script can be", path);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* the script's model fields go before the command line's, so that
 * pb_model_set applies the flags last */
static int merge_model(pb_options_t *o, const pb_megatron_t *m, pb_err_t *err)
{
    if (o->model.nmodel_kv + m->nkv > PB_MODEL_FLAGS)
        return pb_err_set(err, PB_EINPUT, "too many model options with --megatron-args");
    memmove(&o->model.model_kv[m->nkv], &o->model.model_kv[0], (size_t)o->model.nmodel_kv * sizeof o->model.model_kv[0]);
    for (int i = 0; i < m->nkv; i++) {
        snprintf(o->model.file_kv[i][0], sizeof o->model.file_kv[i][0], "%s", m->key[i]);
        snprintf(o->model.file_kv[i][1], sizeof o->model.file_kv[i][1], "%s", m->value[i]);
        o->model.model_kv[i][0] = o->model.file_kv[i][0];
        o->model.model_kv[i][1] = o->model.file_kv[i][1];
    }
    o->model.nmodel_kv += m->nkv;
    return PB_OK;
}

/* layout, schedule and memory settings the command line left unsaid;
 * plan searches the layout itself, so it takes none of the layout.  A
 * size the script does not give is Megatron's default, 1 (arguments.py:
 * --tensor-model-parallel-size, --pipeline-model-parallel-size,
 * --context-parallel-size, --expert-model-parallel-size all default=1),
 * not the layout parbench would pick without a script (tp 2, pp 2). */
static void merge_layout(pb_options_t *o, const pb_megatron_t *m)
{
    int modelish = o->cmd == PB_CMD_MODEL || o->cmd == PB_CMD_PLAN;
    if (o->cmd != PB_CMD_PLAN) {
        const int dims[4] = {PB_LAYOUT_TP, PB_LAYOUT_CP, PB_LAYOUT_EP, PB_LAYOUT_PP};
        const int vals[4] = {m->tp, m->cp, m->ep, m->pp};
        for (int i = 0; i < 4; i++)
            if (!(o->model.layout_given & (1u << dims[i]))) {
                o->model.layout[dims[i]] = vals[i] > 0 ? vals[i] : 1;
                o->model.layout_given |= 1u << dims[i];
            }
        if (o->model.vp == 0 && m->vp > 1)
            o->model.vp = m->vp;
        o->model.sp |= m->sp;
    }
    if (!o->model.train.recompute && !o->predict.selective) {
        o->model.train.recompute = m->recompute == 1;
        o->predict.selective = m->recompute == 2 && modelish;
    }
    /* m->zero: Megatron-FSDP's stage, else 1 with the distributed optimizer */
    if (modelish && m->moe_ep_overlap)
        o->predict.moe_ep_overlap = 1; /* --overlap-moe-expert-parallel-comm */
    if (o->model.train.zero == 0 && m->zero)
        o->model.train.zero = m->zero;
    if (modelish && !o->predict.flash)
        o->predict.flash = m->flash;
    if (o->model.train.grad_dtype == NULL && m->grad_dtype[0]) {
        snprintf(o->model.file_grad_dtype, sizeof o->model.file_grad_dtype, "%s", m->grad_dtype);
        o->model.train.grad_dtype = o->model.file_grad_dtype;
    }
    if (modelish && o->predict.gpus == 0)
        o->predict.gpus = m->gpus;
    if (modelish && o->predict.gpus_per_node == 0)
        o->predict.gpus_per_node = m->gpus_per_node;
}

int pb_megatron_merge(pb_options_t *o, int rank0, pb_err_t *err)
{
    char *text = read_all(o->model.megatron_args, err);
    if (text == NULL)
        return err->code;
    pb_megatron_t *m = malloc(sizeof *m);
    int code = m ? pb_megatron_parse(o->model.megatron_args, text, m, err)
                 : pb_err_set(err, PB_ERUNTIME, "out of memory");
    free(text);
    if (code == PB_OK)
        code = merge_model(o, m, err);
    if (code == PB_OK) {
        merge_layout(o, m);
        int vocab = 0;
        for (int i = 0; i < m->nkv; i++)
            vocab |= strcmp(m->key[i], "vocab") == 0;
        if (rank0 && !vocab)
            fprintf(stderr, "note: %s: no --vocab-size (the tokenizer's): the preset's "
                    "vocabulary is used; give --vocab N\n", o->model.megatron_args);
        if (o->cmd == PB_CMD_PLAN && o->predict.gpus == 0)
            code = pb_err_set(err, PB_EINPUT, "parbench plan needs --gpus N (%s's launcher "
                              "does not say)", o->model.megatron_args);
        if (code == PB_OK && rank0 && m->unknown[0])
            fprintf(stderr, "note: %s: not known to parbench, ignored: %s\n", o->model.megatron_args,
                    m->unknown);
        if (rank0 && m->no_counterpart[0])
            fprintf(stderr, "note: %s: read but not modelled (they change the traffic): %s\n",
                    o->model.megatron_args, m->no_counterpart);
        if (rank0 && m->notes[0])
            fprintf(stderr, "note: %s: %s\n", o->model.megatron_args, m->notes);
        if (rank0 && m->unresolved[0])
            fprintf(stderr, "note: %s: variables the script does not set: %s\n",
                    o->model.megatron_args, m->unresolved);
    }
    free(m);
    return code;
}
