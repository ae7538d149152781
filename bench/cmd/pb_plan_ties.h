/* pb_plan_ties.h - parbench plan's ties: entries the model gives the same
 * time (to a part in 10^9: the same arithmetic) printed as one line. */
#ifndef PB_PLAN_TIES_H
#define PB_PLAN_TIES_H

#include <stddef.h>

#include "../../model/pb_plan.h"

/* The entries i.. of r that take the same time as r->e[i]: how many. */
size_t pb_plan_tie_run(const pb_plan_result_t *r, size_t i);

/* The tied entries e[0..n) as one description: alternatives that differ
 * in one part only merge into "none or selective" there; what stays apart
 * is listed in `others` by the parts that differ from the first. */
void pb_plan_tie_words(const pb_plan_entry_t *e, size_t n, char *desc, size_t dlen, char *others,
                       size_t olen);

#endif
