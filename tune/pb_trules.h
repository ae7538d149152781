/* pb_trules.h - Open MPI's dynamic rules file, as `parbench tune` writes
 * it for a job: which algorithm each collective uses on a communicator
 * of a given size for a message of a given size.  Pure: writes to a FILE.
 *
 * Why a file and not the knob: an environment variable such as
 * OMPI_MCA_coll_tuned_allreduce_algorithm holds one algorithm for every
 * all-reduce of the job, so the winner on the TP all-reduce would also
 * run every DP bucket it was never measured on.  The rules file of
 * coll/tuned (read once at MPI_Init when coll_tuned_use_dynamic_rules=1
 * and coll_tuned_dynamic_rules_filename names it; Open MPI 4.1.4's
 * ompi/mca/coll/tuned/coll_tuned_dynamic_file.c) scopes a choice per
 * collective, communicator size and message size.
 *
 * Its format, every value a number read with fscanf("%li"), '#' to the
 * end of the line a comment:
 *   NCOLL                     collectives that follow
 *   COLL NCOMM                per collective: its COLLTYPE_T index, its
 *                             communicator sizes
 *   SIZE NMSG                 per communicator size: the size, its rules
 *   BYTES ALG FANINOUT SEG    per rule: from this message size up, this
 *                             algorithm (0: the library's own decision),
 *                             topology fan-in/out and segment size
 * How the library picks (coll_tuned_dynamic_rules.c): the last
 * communicator size <= the communicator's (the first one when all are
 * larger), then the last rule with BYTES <= the message's bytes; each
 * communicator size's rules must start at 0 bytes.  So a rule covers a
 * range up to the next one, and a communicator size every size up to
 * the next: to hold a choice to the exact sizes measured, every rule is
 * followed by one at BYTES + 1 giving algorithm 0, every communicator
 * size by SIZE + 1 with algorithm 0 for all bytes, and a communicator
 * size 1 with algorithm 0 comes first.  Algorithm 0 falls through to a
 * forced algorithm if the launch sets one, else to the fixed decision:
 * what the job does without the file.  The message size is Open MPI's:
 * the datatype's size x count for all-reduce and broadcast, x count x
 * the communicator's size for all-gather, all-to-all and the block
 * reduce-scatter (coll_tuned_decision_dynamic.c) - in every case what
 * parbench calls the operation's bytes. */
#ifndef PB_TRULES_H
#define PB_TRULES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../util/pb_err.h"

/* The topology fan-in/out a rule gives: what the tuner measured, a forced
 * algorithm taking coll_tuned_init_tree_fanout and init_chain_fanout,
 * both 4 by default (coll_tuned_component.c).  The segment size is 0 (no
 * segmentation), a forced algorithm's default too. */
#define PB_TRULES_FANINOUT 4

typedef struct pb_trule {
    int coll;          /* COLLTYPE_T index (pb_knob_t's rules_coll) */
    int comm_size;     /* ranks of the communicator, >= 1 */
    uint64_t bytes;    /* the message size, as above; at most LONG_MAX */
    int alg;           /* the algorithm, >= 1 (the knob's value) */
    char why[256];     /* the comment on its line: what was measured */
} pb_trule_t;

/* Writes n rules (sorted here, by collective, communicator size and
 * bytes) with the guards described above; header: the first comment
 * line.  PB_EINPUT for two rules on one collective, communicator size
 * and message size, or a value out of range; PB_ERUNTIME on a write
 * error. */
int pb_trules_write(FILE *f, const char *header, pb_trule_t *rules, size_t n, pb_err_t *err);

#endif
