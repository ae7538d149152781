#include "pb_step_json.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static json_t *model_json(const pb_model_t *m)
{
    return json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f}", "name",
                     m->name, "layers", (json_int_t)m->layers, "hidden", (json_int_t)m->hidden,
                     "heads", (json_int_t)m->heads, "kv_heads", (json_int_t)m->kv_heads, "ffn",
                     (json_int_t)m->ffn, "vocab", (json_int_t)m->vocab, "experts",
                     (json_int_t)m->experts, "topk", (json_int_t)m->topk, "seq",
                     (json_int_t)m->seq, "mbs", (json_int_t)m->mbs, "gbs", (json_int_t)m->gbs,
                     "params", (double)pb_model_params(m));
}

static json_t *layout_json(const pb_layout_t *l)
{
    return json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b, s:i, s:I}", "tp",
                     l->size[PB_DIM_TP], "cp", l->size[PB_DIM_CP], "ep", l->size[PB_DIM_EP],
                     "dp", l->size[PB_DIM_DP], "pp", l->size[PB_DIM_PP], "vp", l->vp, "etp",
                     pb_layout_etp(l), "sp", l->sp, "shard", pb_layout_dp_shard(l), "gpus",
                     (json_int_t)pb_layout_world(l));
}

static json_t *step_json(const pb_step_t *st, const pb_step_band_t *b)
{
    json_t *parts = json_object(), *before = json_object();
    for (int p = 0; p < PB_PART_COUNT; p++) {
        json_object_set_new(parts, pb_part_name(p), json_real(st->part[p]));
        if (p != PB_PART_COMPUTE && p != PB_PART_BUBBLE && p != PB_PART_OPT)
            json_object_set_new(before, pb_part_name(p), json_real(st->comm_total[p]));
    }
    json_t *o = json_pack("{s:f, s:o, s:o, s:I, s:f, s:f, s:f, s:f}", "seconds", st->total,
                          "parts", parts, "before_overlap", before, "micro_batches",
                          (json_int_t)st->micro, "tokens_per_s", st->tokens_per_s, "mfu",
                          st->mfu, "hfu", st->hfu, "tflops_per_gpu", st->tflops_model);
    if (b && o)
        json_object_set_new(o, "band",
                            json_pack("{s:[f,f], s:i, s:f, s:f}", "likely", b->likely_lo,
                                      b->likely_hi, "runs", b->band.runs, "err_lo",
                                      b->band.err_lo, "err_hi", b->band.err_hi));
    return o;
}

static json_t *stage_json(const pb_mem_stage_t *s)
{
    json_t *terms = json_object();
    for (int t = 0; t < PB_MEM_TERMS; t++)
        json_object_set_new(terms, pb_mem_term_name(t), json_real(s->term[t] / PB_GIB));
    return json_pack("{s:i, s:I, s:f, s:f, s:o, s:f}", "stage", s->stage, "layers",
                     (json_int_t)s->layers, "params", s->params, "inflight", s->inflight,
                     "terms_gib", terms, "allocated_gib", s->total / PB_GIB);
}

static json_t *memory_json(const pb_job_t *j, const pb_step_t *st, const pb_mem_band_t *mb)
{
    const pb_mem_cap_t *c = &st->cap;
    json_t *stages = json_array();
    pb_mem_cfg_t mc;
    pb_step_mem_cfg(&j->model, &j->layout, &j->step, &mc);
    for (int s = 0; s < st->mem.stages; s++) {
        pb_mem_stage_t ms;
        pb_memory_stage(&j->model, &j->layout, &mc, s, &ms);
        json_array_append_new(stages, stage_json(&ms));
    }
    json_t *cap = json_pack("{s:f, s:f, s:f, s:i, s:f, s:f}", "device_gib", c->device / PB_GIB,
                            "cuda_context_gib", c->context / PB_GIB, "nccl_gib",
                            c->nccl / PB_GIB, "communicators", c->comms, "allocator_frag",
                            c->frag, "usable_gib", c->usable / PB_GIB);
    json_t *o = json_pack("{s:f, s:f, s:i, s:o, s:o}", "allocated_gib", st->mem.total / PB_GIB,
                          "reserved_gib", pb_mem_reserved(c, st->mem.total) / PB_GIB, "busiest_stage",
                          st->mem.busiest.stage, "capacity", cap, "stages", stages);
    if (mb && o) {
        json_object_set_new(o, "verdict", json_string(pb_mem_fit_name(mb->fit)));
        json_object_set_new(o, "band",
                            json_pack("{s:[f,f], s:i, s:f, s:f}", "likely_gib", mb->lo / PB_GIB,
                                      mb->hi / PB_GIB, "runs", mb->band.runs, "err_lo",
                                      mb->band.err_lo, "err_hi", mb->band.err_hi));
    }
    return o;
}

json_t *pb_step_json(const pb_job_t *j, const pb_step_t *st, const pb_step_band_t *b,
                     const pb_mem_band_t *mb)
{
    return json_pack("{s:o, s:o, s:s, s:s, s:o, s:o}", "model", model_json(&j->model), "layout",
                     layout_json(&j->layout), "hardware", j->hw.name, "framework",
                     pb_fw_name(j->step.framework), "step", step_json(st, b), "memory",
                     memory_json(j, st, mb));
}

int pb_json_emit(json_t *root, const char *path, pb_err_t *err)
{
    if (root == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for the JSON output");
    int out = strcmp(path, "-") == 0;
    FILE *f = out ? stdout : fopen(path, "w");
    if (f == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot write JSON '%s': %s", path, strerror(errno));
    int bad = json_dumpf(root, f, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) != 0 ||
              fputc('\n', f) == EOF;
    bad |= out ? fflush(f) != 0 : fclose(f) != 0;
    if (bad)
        return pb_err_set(err, PB_EINPUT, "cannot write JSON '%s'", path);
    return PB_OK;
}
