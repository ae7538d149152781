#include "pb_duration.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int pb_duration(const char *s, double *secs)
{
    static const struct {
        const char *unit;
        double secs;
    } units[] = {{"", 1.0}, {"s", 1.0}, {"ms", 1e-3}, {"m", 60.0}, {"min", 60.0}, {"h", 3600.0}};
    /* strtod would take a leading space, a sign, "inf" and hex: none is a
     * time a person types, so the number must start with a digit or '.' */
    if (s == NULL || !((*s >= '0' && *s <= '9') || *s == '.'))
        return PB_DURATION_BAD;
    if (strpbrk(s, "xX") != NULL) /* strtod's hexadecimal */
        return PB_DURATION_BAD;
    char *end = NULL;
    double x = strtod(s, &end);
    if (end == s)
        return PB_DURATION_BAD;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].unit) == 0) {
            double v = x * units[i].secs;
            if (!(v > 0.0) || !isfinite(v))
                return PB_DURATION_NOT_POS;
            *secs = v;
            return PB_DURATION_OK;
        }
    return PB_DURATION_BAD;
}
