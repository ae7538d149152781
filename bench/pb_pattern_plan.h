/* pb_pattern_plan.h - a command line's model, layout and operation list.
 *
 * Pure (no MPI), so `--dry-run` needs no launcher and every rank of a run
 * builds the same plan and refuses the same input without talking. */
#ifndef PB_PATTERN_PLAN_H
#define PB_PATTERN_PLAN_H

#include "../patterns/pb_layout.h"
#include "../patterns/pb_model.h"
#include "../patterns/pb_traffic.h"
#include "pb_options.h"

typedef struct pb_pattern_plan {
    pb_model_t model;
    pb_layout_t layout;
    pb_traffic_cfg_t cfg;
    unsigned mask; /* strategies asked for */
    int world;
    pb_op_list_t ops;
} pb_pattern_plan_t;

/* world: the launched ranks (0 with --dry-run: the layout decides).
 * Without --pattern (the main job) every strategy of the tiny model runs
 * on a layout sized to the world.  PB_EINPUT with one line on bad input. */
int pb_pattern_plan(const pb_options_t *o, int world, pb_pattern_plan_t *p, pb_err_t *err);
void pb_pattern_plan_free(pb_pattern_plan_t *p);

#endif
