/* pb_cmd_coll.h - `parbench coll` (and the main job's sweep): every
 * requested collective x dtype x redop x mode x size x placement,
 * timed, optionally verified, printed and written as rows. */
#ifndef PB_CMD_COLL_H
#define PB_CMD_COLL_H

#include "../run/pb_ctx.h"

/* Returns the exit code: PB_OK, PB_EVERIFY (wrong elements), PB_EINPUT. */
int pb_coll_cmd(pb_ctx_t *ctx, pb_err_t *err);

#endif
