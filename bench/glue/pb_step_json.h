/* pb_step_json.h - a prediction as JSON, for scripts (model --json,
 * plan --json): the model and layout, the step and its parts before and
 * after overlap, the time band, and memory - the verdict with its band,
 * the capacity's terms, and every pipeline stage term by term.  Sizes in
 * GiB (2^30 bytes), times in seconds. */
#ifndef PB_STEP_JSON_H
#define PB_STEP_JSON_H

#include <jansson.h>

#include "../../model/pb_band.h"
#include "pb_job.h"
#include "pb_predict.h"

/* A new object (NULL out of memory); b may be NULL (no time band). */
json_t *pb_step_json(const pb_job_t *j, const pb_step_t *st, const pb_step_band_t *b,
                     const pb_mem_band_t *mb);

/* Writes root (indented, a newline after) to path, "-" for stdout;
 * PB_EINPUT naming the file when it cannot be written. */
int pb_json_emit(json_t *root, const char *path, pb_err_t *err);

#endif
