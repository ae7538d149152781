/* pb_duration.h - a length of time as people type it on a command line:
 * a positive decimal number with an optional unit, "90" or "90s"
 * (seconds), "250ms", "2m" (minutes), "1.5h".  One rule for every option
 * that takes a time (tune --budget, validate --budget). */
#ifndef PB_DURATION_H
#define PB_DURATION_H

enum {
    PB_DURATION_OK = 0,
    PB_DURATION_BAD = 1,     /* not a number with one of the units */
    PB_DURATION_NOT_POS = 2, /* a duration, but not above 0 (or not finite) */
};

/* s into *secs (untouched unless PB_DURATION_OK). */
int pb_duration(const char *s, double *secs);

#endif
