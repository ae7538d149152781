/* pb_jp_plugin.h - parbench's NCCL profiler plugin's record files read
 * back and joined into one job.
 *
 * A file holds one communicator as one rank of one process saw it, so a
 * job is assembled in two steps: every file is read (pb_jp_plugin_read),
 * then the ranks - a process's files of one GPU (host, pid, device) - are
 * given global ranks and the communicators their members
 * (pb_jp_plugin_join).  A rank's global rank is the one its launcher
 * exported (the header's world_rank, format 2) where every process holds
 * one rank; else its rank in a communicator that spans every rank; else
 * the ranks are numbered in (host, pid, device) order and the job says
 * they were guessed (pb_jp_plugin_rank.h has the rules). */
#ifndef PB_JP_PLUGIN_H
#define PB_JP_PLUGIN_H

#include <stddef.h>

#include "pb_jobprof.h"
#include "../profiler/pb_prof_rec.h"

/* A record's number (NCCL's seqNumber; a send's or receive's count) is
 * below 2^PB_JP_SEQ_BITS - NCCL does not reach 2^48 collectives - so the
 * n-th repeat of a number on one rank (a CUDA graph's collectives: see
 * pb_jp_plugin_join.c, number_repeats) is told apart as number + n x 2^48,
 * for n below PB_JP_SEQ_REPEATS: every number stays below 2^62, as the
 * ops CSV and pb_jp_bounds.h want it. */
#define PB_JP_SEQ_BITS 48
#define PB_JP_SEQ_REPEATS ((uint64_t)1 << 14)

typedef struct pb_jp_pfile {
    char name[256];          /* the path, for messages */
    pb_prof_head_t head;
    pb_prof_rec_t *recs;     /* the operation records (END taken out) */
    size_t n;
    int proc;                /* index of its rank (host, pid, device), set by the join */
} pb_jp_pfile_t;

typedef struct pb_jp_plugin {
    pb_jp_pfile_t *files;
    size_t n, cap;
    uint64_t dropped;        /* the END records' counts of dropped operations */
    size_t truncated;        /* files that ended inside a record (a job killed mid-write) */
    uint64_t impossible;     /* records left out: they end before they start */
} pb_jp_plugin_t;

/* 1 when data starts with the plugin's magic. */
int pb_jp_is_plugin(const void *data, size_t len);
/* Takes one file's bytes (the caller keeps data).  Bad header, a foreign
 * byte order, a record size that is not this build's, a rank or size
 * past PB_JP_MAX_RANKS or a rank past its size: PB_EINPUT "name: why".
 * A partial last record is left out and counted (truncated), as is a
 * record that ends before it starts on any clock (impossible): one
 * damaged record should not cost the whole recording, and its times
 * cannot be used.  A format 2 file's device is -1 (not recorded). */
int pb_jp_plugin_read(pb_jp_plugin_t *pl, const char *name, const void *data, size_t len,
                      pb_err_t *err);
/* The files joined into jp (its communicators, members and operations;
 * world, dropped, impossible, truncated, every, ranks_guessed, source
 * "nccl-plugin").  An operation's seq is its record's (NCCL's seqNumber
 * for a collective, a repeat told apart as above), the key its members'
 * records are joined by.  Two processes claiming one global rank, or one
 * communicator rank; one rank (host, pid, device) holding two ranks of
 * one communicator (a process of several GPUs whose files name no
 * device); files declaring different job sizes, or a global rank past
 * the size declared; one collective number repeated PB_JP_SEQ_REPEATS
 * times in one file: PB_EINPUT naming the files. */
int pb_jp_plugin_join(pb_jp_plugin_t *pl, pb_jobprof_t *jp, pb_err_t *err);
void pb_jp_plugin_free(pb_jp_plugin_t *pl);

#endif
