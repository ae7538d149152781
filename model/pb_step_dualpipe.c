/* DeepSeek-V3's DualPipe pipeline schedule in the step model (pb_step.h):
 * its bubble and what it asks of the layout.  Sources: the DualPipe
 * repository (deepseek-ai/DualPipe, README "Pipeline Bubbles and Memory
 * Usage Comparison"; dualpipe/dualpipe.py step()) and DeepSeek-V3's
 * report (arXiv 2412.19437, Sec. 3.2.1, Table 2). */
#include "pb_step.h"

/* the W term of DualPipe's bubble, (PP/2 - 1)(F&B + B - 3W) (DeepSeek-V3
 * report, Table 2) */
#define PB_DUALPIPE_W_X 3.0

double pb_step_dualpipe_bubble(int pp, double fwd, double bwd, double wgrad, double micro,
                               double work)
{
    double chunk = fwd + bwd;
    if (pp < 2 || chunk <= 0.0 || micro <= 0.0)
        return 0.0;
    double b = ((double)pp / 2.0 - 1.0) * (chunk + bwd - PB_DUALPIPE_W_X * wgrad);
    return b > 0.0 ? b * work / (micro * chunk) : 0.0;
}

int pb_step_dualpipe_check(const pb_layout_t *l, uint64_t micro, pb_err_t *err)
{
    int pp = l->size[PB_DIM_PP];
    if (pp < 2 || pp % 2 != 0)
        return pb_err_set(err, PB_EINPUT,
                          "DualPipe pairs stage s with stage pp-1-s: it needs an even --pp of 2 "
                          "or more, not %d",
                          pp);
    if (l->vp > 1)
        return pb_err_set(err, PB_EINPUT,
                          "DualPipe runs one chunk per direction on a rank: leave --vp out");
    if (micro % 2 != 0 || micro < 2 * (uint64_t)pp)
        return pb_err_set(err, PB_EINPUT,
                          "DualPipe needs an even number of micro-batches, at least 2 x pp = %d "
                          "(dualpipe.py's step); this batch gives %llu",
                          2 * pp, (unsigned long long)micro);
    return PB_OK;
}
