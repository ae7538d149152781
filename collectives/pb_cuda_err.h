/* pb_cuda_err.h - how parbench reads the CUDA runtime's error codes, as
 * pure functions of the codes (ints, so C callers and tests need no CUDA
 * header, and the decisions are tested on machines without a GPU).
 *
 * The runtime keeps a per-thread "last error" slot that cudaGetLastError
 * reads and clears.  Polling calls (cudaEventQuery, cudaStreamQuery)
 * leave cudaErrorNotReady in it; a launch check that only reads the slot
 * after the launch would then report that stale code as the launch's
 * own failure (PyTorch clears it after its event queries for this
 * reason).  So: a poll that says "not ready" is followed by a clear, and
 * a launch check reads the slot before the launch (clearing what earlier
 * calls left) and after it. */
#ifndef PB_CUDA_ERR_H
#define PB_CUDA_ERR_H

#define PB_CUDA_SUCCESS 0
#define PB_CUDA_NOT_READY 600 /* cudaErrorNotReady: work still pending */

typedef enum { PB_POLL_DONE, PB_POLL_PENDING, PB_POLL_FAILED } pb_poll_t;

/* What an event or stream query's result means to a waiting loop, for a
 * runtime whose "not ready" code is `not_ready` (pb_gpurt_t's: HIP keeps
 * the same last-error slot and the same code, hipErrorNotReady = 600). */
static inline pb_poll_t pb_gpu_poll_state(int rc, int not_ready)
{
    return rc == PB_CUDA_SUCCESS ? PB_POLL_DONE
           : rc == not_ready     ? PB_POLL_PENDING
                                 : PB_POLL_FAILED;
}

/* Whether the last-error slot holds a code the poller must clear: "not
 * ready" is an answer, not an error, and must not reach a later check. */
static inline int pb_gpu_poll_must_clear(int rc, int not_ready) { return rc == not_ready; }

/* The verdict of a launch check: `before` is cudaGetLastError() read just
 * before the launch, `after` just after it.  Reading `before` cleared any
 * non-sticky code an earlier call left (a poll's "not ready", a handled
 * allocation failure), so `after` is this launch's own result.  A sticky
 * error (the context is broken by earlier device work) survives the read
 * and comes back in `after` too: the launch did fail, and *stale says
 * that the cause predates it.  Returns the code to report, 0 for none. */
static inline int pb_cuda_launch_verdict(int before, int after, int *stale)
{
    *stale = after != PB_CUDA_SUCCESS && after == before && before != PB_CUDA_NOT_READY;
    return after;
}

#endif
