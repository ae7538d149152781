/* pb_cmd_step.h - `parbench step`: one training step's communication
 * schedule, executed on the real groups with compute stood in for. */
#ifndef PB_CMD_STEP_H
#define PB_CMD_STEP_H

#include "../run/pb_ctx.h"

int pb_step_cmd(pb_ctx_t *ctx, pb_err_t *err);

#endif
