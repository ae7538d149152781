/* pb_step_cmd.h - `parbench step`: one training step's communication
 * schedule, executed on the real groups with compute stood in for. */
#ifndef PB_STEP_CMD_H
#define PB_STEP_CMD_H

#include "pb_ctx.h"

int pb_step_cmd(pb_ctx_t *ctx, pb_err_t *err);

#endif
