/* pb_pattern_plan.h - a command line's model, layout and operation list.
 *
 * Pure (no MPI), so `--dry-run` needs no launcher and every rank of a run
 * builds the same plan and refuses the same input without talking. */
#ifndef PB_PATTERN_PLAN_H
#define PB_PATTERN_PLAN_H

#include "../../patterns/pb_layout.h"
#include "../../patterns/pb_model.h"
#include "../../patterns/pb_traffic.h"
#include "../cli/pb_options.h"

typedef struct pb_pattern_plan {
    pb_model_t model;
    pb_layout_t layout;
    pb_traffic_cfg_t cfg;
    unsigned mask; /* strategies asked for */
    int world;
    int size_rule; /* the model is the --size rule's (pb_model_family_llama) */
    uint64_t layers_from; /* the quick depth raised to fit pp x vp: what it was; 0: kept */
    /* The fields no flag gave where no preset or file names the model (the
     * --size rule's, or a model typed by its shape over tiny), "" where one
     * does: "kv_heads 96 = heads (full attention), plain MLP, dtype bf16";
     * assumed_from says whose they are ("not given: ..."). */
    char assumed[320];
    const char *assumed_from;
    pb_op_list_t ops;
} pb_pattern_plan_t;

/* The model and layout options, the strategies asked for (0: the main
 * job's, every one of the tiny model), on `world` launched ranks (0 with
 * --dry-run: the layout decides, else np, the ranks --np asked for, else
 * 8).  A plain function of typed options, so the main job, model, plan
 * and step call it with theirs.  PB_EINPUT with one line on bad input. */
int pb_pattern_plan(const pb_model_opts_t *o, unsigned mask, int world, int np,
                    pb_pattern_plan_t *p, pb_err_t *err);
void pb_pattern_plan_free(pb_pattern_plan_t *p);

/* Whether the options name a model or a layout (a preset, a model or
 * config file, a launch script, a model flag such as --size, or a layout
 * dimension): tune takes its workload from them then, else from --op. */
int pb_model_opts_given(const pb_model_opts_t *o);

#endif
