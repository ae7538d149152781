/* The CUDA error classification (collectives/pb_cuda_err.h): a poll's
 * "not ready" (600) is pending work to clear, not a failure, and a launch
 * check reports the launch's own code, not a stale one. */
#include "collectives/pb_cuda_err.h"
#include "pb_test.h"

int main(void)
{
    /* polling: 0 done, 600 pending (and cleared), anything else failed */
    CHECK(pb_gpu_poll_state(0, PB_CUDA_NOT_READY) == PB_POLL_DONE);
    CHECK(pb_gpu_poll_state(600, PB_CUDA_NOT_READY) == PB_POLL_PENDING);
    CHECK(pb_gpu_poll_state(700, PB_CUDA_NOT_READY) == PB_POLL_FAILED); /* illegal address */
    CHECK(pb_gpu_poll_must_clear(600, PB_CUDA_NOT_READY));
    CHECK(!pb_gpu_poll_must_clear(0, PB_CUDA_NOT_READY));
    CHECK(!pb_gpu_poll_must_clear(700, PB_CUDA_NOT_READY));

    int stale = -1;
    /* the case: a poll left 600, the launch itself went well */
    CHECK(pb_cuda_launch_verdict(600, 0, &stale) == 0);
    CHECK(stale == 0);
    /* an earlier handled cudaMalloc failure (2) is not this launch's */
    CHECK(pb_cuda_launch_verdict(2, 0, &stale) == 0);
    CHECK(stale == 0);
    /* the launch itself failed (9: invalid configuration) */
    CHECK(pb_cuda_launch_verdict(0, 9, &stale) == 9);
    CHECK(stale == 0);
    /* after a stale 600 was cleared, the launch's own failure is reported */
    CHECK(pb_cuda_launch_verdict(600, 9, &stale) == 9);
    CHECK(stale == 0);
    /* a sticky error from earlier device work: reported, marked stale */
    CHECK(pb_cuda_launch_verdict(700, 700, &stale) == 700);
    CHECK(stale == 1);
    PB_TEST_END("unit_cuda_err");
}
