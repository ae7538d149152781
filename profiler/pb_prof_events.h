/* pb_prof_events.h - NCCL's events, whatever the API version, as one
 * descriptor (pb_prof_plugin.c converts each version's), and what the
 * plugin does with them.
 *
 * A collective or point-to-point operation starts when NCCL enqueues it
 * (startEvent) and its enqueue ends at stopEvent; its kernel channels
 * (ncclProfileKernelCh, parent: the operation) start and stop as the GPU
 * runs it, with the GPU's timer from API v4 on.  From v4 on NCCL says how
 * many channels an operation runs on: its record is complete when its
 * enqueue has ended and that many channels have stopped (in either
 * order); with v3 (or no channel count), at the end of its enqueue, and
 * a channel that starts after that is not followed.  A complete record
 * goes to the ring of the thread that completed it.  An operation's
 * handle is its slot's address with the slot's generation in the low
 * bits the alignment leaves (bit 0 clear); a kernel channel's is the
 * slot's address with bit 0 set: no slot of its own.  Recording paused
 * (PARBENCH_PROFILE_SIGNAL) or off stops new operations only: the
 * channels of one already recorded are followed to its completion. */
#ifndef PB_PROF_EVENTS_H
#define PB_PROF_EVENTS_H

#include "pb_prof_ctx.h"

typedef struct pb_prof_ev {
    int type;      /* PB_NCCL_PROF_COLL, _P2P, _KERNEL_CH; others are not asked for */
    void *parent;  /* a kernel channel's operation (our handle) */
    uint64_t seq;  /* coll: NCCL's sequence number */
    const char *func, *dtype, *algo, *proto;
    size_t count;
    int peer;      /* coll: root; p2p: peer */
    int nchannels, nwarps;
    int wait_channels; /* nchannels is the count the operation runs on (v4+) */
    uint64_t ptimer; /* kernel channel: GPU timer at its start (has_ptimer) */
    int has_ptimer;
    const char *comm_name; /* v3: the communicator, from the operation */
    uint64_t comm_hash;
    int rank;              /* v3: this rank in it (the descriptor's) */
    int has_comm;
} pb_prof_ev_t;

/* *handle: what NCCL passes back to stop/state (NULL: not recorded: off,
 * paused, sampled out, no slot free, or a type not asked for). */
void pb_prof_start(pb_prof_ctx_t *c, void **handle, const pb_prof_ev_t *ev);
void pb_prof_stop(void *handle);
/* A state change: a kernel channel's stop carries the GPU timer. */
void pb_prof_state(void *handle, int state, uint64_t ptimer, int has_ptimer);

#endif
