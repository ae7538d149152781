/* pb_cmd_gemm.h - `parbench gemm`: the achieved TFLOP/s of a transformer
 * layer's GEMMs on this process's GPU, printed and written as rows. */
#ifndef PB_CMD_GEMM_H
#define PB_CMD_GEMM_H

#include "../run/pb_ctx.h"

/* Collective over ctx->world.  Returns the exit code: PB_OK, PB_EINPUT
 * (no CUDA in the build, no GPU, more ranks than GPUs on a host, a shape
 * too large for the GPU) or PB_ERUNTIME (a CUDA or cuBLAS failure). */
int pb_gemm_cmd(pb_ctx_t *ctx, pb_err_t *err);

#endif
