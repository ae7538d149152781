/* pb_tenv.h - the env file `parbench tune` writes for a job script to
 * source: one `export NAME=VALUE` per setting the job gets, each after a
 * comment with what it was measured to gain, then comment lines for the
 * settings left out and why; a file that sets nothing says why.  Pure:
 * writes to a FILE. */
#ifndef PB_TENV_H
#define PB_TENV_H

#include <stdio.h>

#include "pb_knob.h"

typedef struct pb_tenv_item {
    char name[96];   /* the environment variable; "" for a comment line alone */
    char value[512]; /* its value, quoted when written where the shell needs it */
    char why[320];   /* the comment line before it ("" for none) */
} pb_tenv_item_t;

/* An export of knob k at `value` (the library's spelling): its variable
 * as a job script sets it (pb_knob_env_name). */
void pb_tenv_knob(pb_tenv_item_t *it, const pb_knob_t *k, const char *value, const char *why);

/* header: the first comment line (tool, run, workload).  none: why
 * nothing is set, written when no item exports anything (NULL: no
 * setting was measured faster).  PB_ERUNTIME on a write error. */
int pb_tenv_write(FILE *f, const char *header, const pb_tenv_item_t *items, size_t n,
                  const char *none, pb_err_t *err);

#endif
