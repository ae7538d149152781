/* pb_wd_tree.h - the watchdogs' own channel: a tree of TCP connections
 * over the ranks, built once at start, silent until something is stuck.
 *
 * Why not MPI: a watchdog thread that talks MPI needs the THREAD_MULTIPLE level,
 * and asking for it alone slows every small MPI operation of the main
 * thread (Open MPI takes locks on every call: 8 B all-reduce 0.18 ->
 * 0.26 us on our machine), a bias in exactly the numbers users compare
 * with OSU and IMB.  So MPI runs at MPI_THREAD_FUNNELED and the watchdogs
 * talk over sockets of their own.
 *
 * Shape (why it scales): ranks of a node connect to their node's leader
 * (its lowest rank), and the leaders form a PB_WD_FANOUT-ary tree rooted
 * at rank 0 (the leader of its node).  Every process holds at most
 * PB_WD_FANOUT + local ranks + 1 sockets, never one per rank: 16,384
 * ranks on 2,048 nodes are 3 levels deep.  Nothing is sent while the job
 * is healthy; frames flow only when a watchdog fires.
 *
 * Frames are fixed-size structs (the same binary runs on every rank).
 * Upward frames (REPORT, STATE) are forwarded to the root; downward ones
 * (QUERY, ABORT) to every descendant.  The routing is the watchdog's
 * (pb_watchdog.c); this file only carries frames. */
#ifndef PB_WD_TREE_H
#define PB_WD_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "../../collectives/pb_ctl.h"

#include "pb_wd_frame.h"

#define PB_WD_FANOUT 32 /* leaders per leader: depth log_32(nodes) */
typedef struct pb_wd_tree pb_wd_tree_t;

/* The shape, pure (tested without sockets): the parent of leader index
 * li (-1 for the root), and the first of its children (none when it is
 * >= nleaders; the children are first .. first + fanout - 1).
 *
 * Two environment variables reshape the tree for tests on one host, so
 * that forwarding through several levels runs where there is one node:
 * PARBENCH_WD_FANOUT (leaders per leader) and PARBENCH_WD_NODE_RANKS
 * (blocks of this many consecutive ranks stand for nodes). */
int pb_wd_tree_parent(int li, int fanout);
int pb_wd_tree_first_child(int li, int fanout);

/* Collective over `world`, from the rank's main thread.  Builds the tree; on
 * any failure (no usable address, a connection refused, a deadline)
 * every rank returns NULL in *out and `why` says what failed on this
 * rank (empty where another rank failed).  The job still runs: each
 * watchdog then reports only itself. */
void pb_wd_tree_open(pb_wd_tree_t **out, pb_ctl_t *world, char *why, size_t len);
void pb_wd_tree_close(pb_wd_tree_t *t);

/* Sends to the parent (nothing at the root, or once the parent is
 * gone).  A frame that cannot be written within a second is dropped. */
void pb_wd_tree_up(pb_wd_tree_t *t, pb_wd_frame_t *f);
/* Sends to every child. */
void pb_wd_tree_down(pb_wd_tree_t *t, pb_wd_frame_t *f);

/* Waits up to timeout_ms for a whole frame or for `extra_fd` (e.g. a
 * signalfd; -1 for none) to become readable.  Returns 1 with *f filled
 * and *from_parent set, 2 when extra_fd is readable, 0 on timeout.  A
 * connection that closes (its process ended) is dropped quietly. */
int pb_wd_tree_next(pb_wd_tree_t *t, int extra_fd, int timeout_ms, pb_wd_frame_t *f,
                    int *from_parent);

#endif
