/* pb_step_calib.c - how the calibration answered a step's operations:
 * each operation's cost source counted into the step (inside the measured
 * range, extrapolated, from another curve, moved to another group shape,
 * capped, or from the preset), and the note that says so to people. */
#include "pb_step.h"

#include <math.h>
#include <stdio.h>

/* log distance of a size from a measured range: how far out it is */
static double range_dist(uint64_t x, uint64_t lo, uint64_t hi)
{
    double v = (double)(x ? x : 1);
    if (x > hi)
        return log(v / (double)(hi ? hi : 1));
    return x < lo ? log((double)lo / v) : 0.0;
}

static double shape_dist(int n0, int g0, int n, int g);

void pb_step_count_source(pb_step_t *out, const pb_cost_src_t *s)
{
    if (s->cal == PB_CAL_PRESET) {
        out->ops_preset++;
        if (s->out_of_range) {
            /* keep the farthest for the note: the worst the preset stands in for */
            if (out->ops_out_of_range == 0 ||
                range_dist(s->asked, s->lo, s->hi) >
                    range_dist(out->oor_asked, out->oor_lo, out->oor_hi))
                out->oor_asked = s->asked, out->oor_lo = s->lo, out->oor_hi = s->hi;
            out->ops_out_of_range++;
        }
        return;
    }
    out->ops_calibrated++;
    out->ops_other_dtype += s->cal == PB_CAL_OTHER;
    if (s->ratio_at) {
        if (out->ops_dtype_scaled == 0 ||
            fabs(log(s->dtype_ratio)) > fabs(log(out->dt_ratio)))
            out->dt_ratio = s->dtype_ratio, out->dt_ratio_at = s->ratio_at;
        out->ops_dtype_scaled++;
    }
    out->ops_extrapolated += s->extrapolated;
    out->ops_passed += s->passed;
    if (s->transferred) {
        /* keep the farthest move for the note */
        if (out->ops_transferred == 0 ||
            shape_dist(s->from_n, s->from_per_node, s->to_n, s->to_per_node) >
                shape_dist(out->tr_from_n, out->tr_from_per_node, out->tr_to_n,
                           out->tr_to_per_node))
            out->tr_from_n = s->from_n, out->tr_from_per_node = s->from_per_node,
            out->tr_to_n = s->to_n, out->tr_to_per_node = s->to_per_node;
        out->ops_transferred++;
    }
    if (s->capped) {
        out->ops_capped++;
        if (out->cap_kind != PB_CAP_NIC)
            out->cap_kind = s->capped;
    }
}

/* how far a curve was moved: log distance in ranks plus in ranks per
 * node (an unknown placement counted as 2x away) */
static double shape_dist(int n0, int g0, int n, int g)
{
    double d = fabs(log((double)(n > 0 ? n : 1) / (n0 > 0 ? n0 : 1)));
    if (g0 > 0 && g > 0)
        return d + fabs(log((double)g / g0));
    return d + log(2.0);
}

/* a size for people: B, KiB, MiB, GiB, TiB, 3 significant digits */
static void fmt_size(uint64_t b, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)b;
    int u = 0;
    while (v >= 1024.0 && u + 1 < (int)(sizeof unit / sizeof unit[0]))
        v /= 1024.0, u++;
    if (u == 0)
        snprintf(buf, len, "%llu B", (unsigned long long)b);
    else
        snprintf(buf, len, "%.3g %s", v, unit[u]);
}

/* a group's shape for people: "n=8, 4/node" ("?/node": not known) */
static void shape_text(int n, int per_node, char *buf, size_t len)
{
    if (per_node > 0)
        snprintf(buf, len, "n=%d, %d/node", n, per_node);
    else
        snprintf(buf, len, "n=%d, ?/node", n);
}

void pb_step_calib_note(const pb_step_t *st, const char *preset, char *buf, size_t len)
{
    int in = st->ops_calibrated - st->ops_extrapolated;
    int n = snprintf(buf, len,
                     "calib: %d operation kinds at sizes inside the measured range, %d "
                     "extrapolated (at most %.0fx past it)",
                     in, st->ops_extrapolated, PB_CALIB_EXTEND);
    if (n < 0 || (size_t)n >= len)
        return;
    if (st->ops_passed)
        n += snprintf(buf + n, len - (size_t)n,
                      ", %d from a curve of another type or all-to-all (their own does not "
                      "reach the size)",
                      st->ops_passed);
    if (n < 0 || (size_t)n >= len)
        return;
    if (st->ops_dtype_scaled) {
        char at[32];
        fmt_size(st->dt_ratio_at, at, sizeof at);
        n += snprintf(buf + n, len - (size_t)n,
                      ", %d from another type's curve times their own type's time over it "
                      "where both were measured (the farthest: x%.3g at %s)",
                      st->ops_dtype_scaled, st->dt_ratio, at);
    }
    if (n < 0 || (size_t)n >= len)
        return;
    if (st->ops_out_of_range) {
        char lo[32], hi[32], asked[32];
        fmt_size(st->oor_lo, lo, sizeof lo);
        fmt_size(st->oor_hi, hi, sizeof hi);
        fmt_size(st->oor_asked, asked, sizeof asked);
        char meas[96];
        if (st->oor_lo == st->oor_hi)
            snprintf(meas, sizeof meas, "only %s measured", lo);
        else if (st->oor_asked > st->oor_hi)
            snprintf(meas, sizeof meas, "largest %s measured", hi);
        else if (st->oor_asked < st->oor_lo)
            snprintf(meas, sizeof meas, "smallest %s measured", lo);
        else /* between curves of different ranges, none reaching it */
            snprintf(meas, sizeof meas, "%s to %s measured, none near it", lo, hi);
        n += snprintf(buf + n, len - (size_t)n,
                      ", %d outside it (%s, %s asked) costed from the %s preset",
                      st->ops_out_of_range, meas, asked, preset);
    } else {
        n += snprintf(buf + n, len - (size_t)n, ", none outside it");
    }
    if (n < 0 || (size_t)n >= len)
        return;
    if (st->ops_transferred) {
        char from[32], to[32];
        shape_text(st->tr_from_n, st->tr_from_per_node, from, sizeof from);
        shape_text(st->tr_to_n, st->tr_to_per_node, to, sizeof to);
        /* a size inside the range says nothing of the group: say how
         * many curves answered their own group shape, and how many were
         * moved to another by the algorithm model */
        n += snprintf(buf + n, len - (size_t)n, "; %d on the group shape measured",
                      st->ops_calibrated - st->ops_transferred);
        if (n < 0 || (size_t)n >= len)
            return;
        if (st->ops_transferred == 1)
            n += snprintf(buf + n, len - (size_t)n, ", 1 transferred from %s to %s", from, to);
        else
            n += snprintf(buf + n, len - (size_t)n,
                          ", %d transferred, the farthest transferred from %s to %s",
                          st->ops_transferred, from, to);
    }
    if (n < 0 || (size_t)n >= len)
        return;
    if (st->ops_capped)
        snprintf(buf + n, len - (size_t)n, "; %d capped at %s", st->ops_capped,
                 st->cap_kind == PB_CAP_NIC ? "NIC" : "NVLink");
}
