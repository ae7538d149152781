#include "pb_wall.h"

#include <stdlib.h>
#include <string.h>

#include "../../collectives/pb_ctl.h"

static const char *const names[PB_WALL_COUNT] = {
    [PB_WALL_SETUP] = "setup",     [PB_WALL_WARMUP] = "warmup", [PB_WALL_SAMPLING] = "sampling",
    [PB_WALL_ROUNDS] = "rounds",   [PB_WALL_HARNESS] = "harness", [PB_WALL_VERIFY] = "verify",
    [PB_WALL_AGREE] = "agree",     [PB_WALL_EMIT] = "emit",     [PB_WALL_STOP] = "stopcheck",
};

const char *pb_wall_part_name(pb_wall_part_t p)
{
    return (unsigned)p < PB_WALL_COUNT ? names[p] : "?";
}

void pb_wall_lap(pb_wall_t *ph, pb_wall_part_t p, double *t)
{
    double now = pb_ctl_now();
    ph->sec[p] += now - *t;
    *t = now;
}

void pb_wall_add_harness(pb_wall_t *ph, const pb_timing_t *tm, double *t)
{
    pb_wall_lap(ph, PB_WALL_HARNESS, t);
    ph->sec[PB_WALL_HARNESS] -= tm->warmup_s + tm->sampling_s + tm->rounds_s;
    ph->sec[PB_WALL_WARMUP] += tm->warmup_s;
    ph->sec[PB_WALL_SAMPLING] += tm->sampling_s;
    ph->sec[PB_WALL_ROUNDS] += tm->rounds_s;
    ph->timed += tm->timed_s;
}

void pb_wall_row(pb_wall_t *ph, double median_ops, double *t)
{
    ph->rows++;
    ph->median_ops += median_ops;
    pb_wall_lap(ph, PB_WALL_EMIT, t);
}

int pb_wall_wanted(void)
{
    const char *v = getenv("PARBENCH_PHASES");
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

/* One "name seconds" pair per field, so a script reads it with awk:
 * the sampling loops' time outside the operations (barriers, clock
 * reads) is the sampling phase less the timed time. */
void pb_wall_print(FILE *f, const char *what, const pb_wall_t *ph)
{
    double known = 0.0;
    fprintf(f, "# phases %s: rows %llu total %.3f timed %.3f median_ops %.3f", what,
            (unsigned long long)ph->rows, ph->total, ph->timed, ph->median_ops);
    for (int p = 0; p < PB_WALL_COUNT; p++) {
        fprintf(f, " %s %.3f", names[p], ph->sec[p]);
        known += ph->sec[p];
    }
    fprintf(f, " other %.3f\n", ph->total - known);
    if (ph->timed > 0.0)
        fprintf(f, "# phases %s: total / timed = %.2f (sampling outside the operations %.3f s)\n",
                what, ph->total / ph->timed, ph->sec[PB_WALL_SAMPLING] - ph->timed);
    fflush(f);
}
