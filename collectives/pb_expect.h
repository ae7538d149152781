/* pb_expect.h - what a checked buffer should hold: a pattern, or the
 * reduction of every rank's pattern (the scheme: pb_check.h).
 *
 * A header of its own because two parts read it: the host checker
 * (pb_check.h) and the arithmetic both the host and the device kernels
 * share (pb_check_math.h, which pb_check.c includes).  Here, the
 * arithmetic needs nothing of the checker's header. */
#ifndef PB_EXPECT_H
#define PB_EXPECT_H

#include <stdint.h>

#include "../core/pb_coll.h"

typedef enum pb_expect_kind {
    PB_EXPECT_PATTERN, /* v(j) = (base + j) mod q */
    PB_EXPECT_REDUCED  /* reduction over ranks of (r + base + j) mod q */
} pb_expect_kind_t;

typedef struct pb_expect {
    pb_expect_kind_t kind;
    uint64_t base;
    uint64_t q;
    pb_redop_t op; /* PB_EXPECT_REDUCED */
    int nranks;    /* PB_EXPECT_REDUCED: ranks in the reduction */
    int active;    /* PB_EXPECT_REDUCED: ranks r < active contribute */
} pb_expect_t;

#endif
