/* pb_wd_conn.h - the inside of the watchdogs' channel (pb_wd_tree.h),
 * shared by its two files only: the tree's connections and the socket
 * work under them (pb_wd_conn.c: addresses, listening, connecting,
 * whole-frame reads and bounded writes).  pb_wd_tree.c builds the tree
 * over MPI and carries frames on it; the tree itself is its own. */
#ifndef PB_WD_CONN_H
#define PB_WD_CONN_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_wd_frame.h"

#define PB_WD_MAGIC 0x44575042u /* "PBWD" */
#define PB_WD_ADDRS 8           /* IPv4 addresses a listener advertises */
/* Set-up deadlines: connecting (all addresses, retried) must end before
 * the parent stops accepting, so a child that cannot reach its parent
 * fails on its own clock, not the parent's. */
#define PB_WD_CONNECT_S 20.0
#define PB_WD_ACCEPT_S 30.0
#define PB_WD_TRY_MS 2000 /* one connection attempt to one address */
#define PB_WD_SEND_MS 1000

/* A listener's advertisement: what its children need to reach it. */
typedef struct pb_wd_addr {
    uint32_t ip[PB_WD_ADDRS]; /* IPv4, network order, in the order to try */
    uint16_t port;            /* network order */
    uint16_t n;
    int32_t ok; /* 0: this leader could not listen */
} pb_wd_addr_t;

typedef struct pb_wd_conn {
    int fd; /* -1: none or closed */
    int rank;
    size_t have; /* bytes of the frame being read */
    unsigned char buf[sizeof(pb_wd_frame_t)];
} pb_wd_conn_t;


/* CLOCK_MONOTONIC seconds, and the milliseconds left until `until` (0:
 * none). */
double pb_wd_now_s(void);
int pb_wd_ms_left(double until);

void pb_wd_conn_close(pb_wd_conn_t *c);
/* Writes all of buf before `until`; 0 on success. */
int pb_wd_send_all(int fd, const void *buf, size_t len, double until);
/* Reads what is there of the current frame: 1 when it is complete (and
 * ours), 0 when more is to come, -1 when the connection is over. */
int pb_wd_conn_read(pb_wd_conn_t *c, uint64_t token);

/* A listening socket on any free port, its addresses in *a; -1 with
 * `why` when none. */
int pb_wd_listen_any(pb_wd_addr_t *a, int backlog, char *why, size_t len);
/* One attempt on one address, bounded by PB_WD_TRY_MS; the socket or -1. */
int pb_wd_try_connect(uint32_t ip, uint16_t port);

#endif
