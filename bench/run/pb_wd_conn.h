/* pb_wd_conn.h - the inside of the watchdogs' channel (pb_wd_tree.h),
 * shared by its two files (and their unit tests) only: the tree's
 * connections and the socket work under them (pb_wd_conn.c: addresses,
 * listening, accepting identified children, connecting, whole-frame reads
 * and bounded writes, the job's token).  pb_wd_tree.c builds the tree
 * over the control world and carries frames on it. */
#ifndef PB_WD_CONN_H
#define PB_WD_CONN_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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
/* An accepted connection must show its HELLO within this: a child sends
 * it right after connecting, so only a stranger (a port scan, a stray
 * client) takes longer, and it must not hold a slot for long. */
#define PB_WD_HELLO_S 2.0
/* Accepted connections waiting for their HELLO side by side: strangers
 * beyond this wait in the listen backlog, never the children already
 * accepted. */
#define PB_WD_PENDING 64

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

/* A leader's listening sockets: one per address it advertises, all on
 * one port, so that nothing listens on an interface the advertisement
 * leaves out (as a socket bound to INADDR_ANY would). */
typedef struct pb_wd_listener {
    int fd[PB_WD_ADDRS];
    int n;
} pb_wd_listener_t;

/* Listens on a free port on this host's addresses: the interfaces named
 * by `ifname` (PARBENCH_WD_IFNAME's comma-separated prefixes; NULL or
 * empty: all but container bridges), loopback excepted, then loopback.
 * The addresses it listens on are the ones in *a.  0, or -1 with `why`
 * when none. */
int pb_wd_listen(pb_wd_listener_t *l, pb_wd_addr_t *a, int backlog, const char *ifname,
                 char *why, size_t len);
void pb_wd_listen_close(pb_wd_listener_t *l);
/* Accepts on every socket of `l` until `want` connections showed a HELLO
 * with this job's token, into child[0 .. want-1] (rank: the HELLO's
 * origin), before `until` (pb_wd_now_s's clock).  A connection without a
 * valid HELLO within PB_WD_HELLO_S is closed and accepting goes on.
 * Returns 0, or -1 with `why`; *got children are open either way. */
int pb_wd_accept(const pb_wd_listener_t *l, pb_wd_conn_t *child, int want, int *got,
                 uint64_t token, double until, char *why, size_t len);
/* One attempt on one address, bounded by PB_WD_TRY_MS; the socket or -1. */
int pb_wd_try_connect(uint32_t ip, uint16_t port);

/* Where the job's token comes from: `fn` with getrandom's contract (ctx
 * aside), else the file `dev` (/dev/urandom).  A parameter so that the
 * tests can make each source fail. */
typedef struct pb_wd_rand {
    ssize_t (*fn)(void *ctx, void *buf, size_t len, unsigned flags);
    void *ctx;
    const char *dev;
} pb_wd_rand_t;
/* 8 random bytes: `fn` with flags 0 (EINTR and short reads retried),
 * else `dev`; -1 with `why` when both fail: a guessable token (a pid, a
 * time) would let any local process speak for the job's watchdogs. */
int pb_wd_token_from(const pb_wd_rand_t *src, uint64_t *out, char *why, size_t len);
/* The same from getrandom(2), else /dev/urandom. */
int pb_wd_make_token(uint64_t *out, char *why, size_t len);

#endif
