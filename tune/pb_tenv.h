/* pb_tenv.h - the env file `parbench tune` writes for a job script to
 * source: one `export NAME=VALUE` per chosen knob (an Open MPI parameter
 * as OMPI_MCA_<name>, with what it needs set first), each preceded by a
 * comment with what it was measured to gain.  Pure: writes to a FILE. */
#ifndef PB_TENV_H
#define PB_TENV_H

#include <stdio.h>

#include "pb_knob.h"

typedef struct pb_tenv_item {
    const pb_knob_t *knob;
    int value;         /* index into its values */
    char why[160];     /* "allreduce 4 ranks 64 KiB-16 MiB: 0.62x (0.60-0.65)" */
} pb_tenv_item_t;

/* header: the first comment line (tool, run, workload).  n = 0 writes a
 * file that sets nothing and says so.  PB_ERUNTIME on a write error. */
int pb_tenv_write(FILE *f, const char *header, const pb_tenv_item_t *items, size_t n,
                  pb_err_t *err);

#endif
