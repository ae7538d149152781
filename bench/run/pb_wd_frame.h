/* pb_wd_frame.h - what the watchdogs send each other over their channel
 * (pb_wd_tree.h): fixed-size frames, the same binary on every rank.
 * Apart from the channel so that its socket layer (pb_wd_conn.h) can
 * read whole frames without knowing the tree. */
#ifndef PB_WD_FRAME_H
#define PB_WD_FRAME_H

#include <stdint.h>

#define PB_WD_DOING 192

typedef enum pb_wd_type {
    PB_WD_HELLO = 1,  /* child -> parent, once at set-up: who I am */
    PB_WD_REPORT = 2, /* upward: my watchdog fired (state of `origin`) */
    PB_WD_QUERY = 3,  /* downward: every rank, send your state */
    PB_WD_STATE = 4,  /* upward: the state of `origin` */
    PB_WD_ABORT = 5   /* downward: the job is over, exit */
} pb_wd_type_t;

typedef struct pb_wd_frame {
    uint32_t magic; /* PB_WD_MAGIC: a stray connection is refused */
    uint32_t type;  /* pb_wd_type_t */
    uint64_t token; /* this job's (rank 0's random number) */
    int32_t origin; /* world rank the state is about */
    int32_t armed;
    uint64_t step;  /* steps begun */
    double idle_s;  /* seconds since the last progress */
    char doing[PB_WD_DOING];
} pb_wd_frame_t;

#endif
