/* pb_jp_plugin.h - parbench's NCCL profiler plugin's record files read
 * back and joined into one job.
 *
 * A file holds one communicator as one process saw it, so a job is
 * assembled in two steps: every file is read (pb_jp_plugin_read), then
 * the processes are given global ranks and the communicators their
 * members (pb_jp_plugin_join).  A process's global rank is the one its
 * launcher exported (the header's world_rank, format 2); where none was
 * recorded, its rank in a communicator that spans every process; else
 * the processes are numbered in (host, pid) order and the job says the
 * ranks were guessed. */
#ifndef PB_JP_PLUGIN_H
#define PB_JP_PLUGIN_H

#include <stddef.h>

#include "pb_jobprof.h"
#include "../profiler/pb_prof_rec.h"

typedef struct pb_jp_pfile {
    char name[256];          /* the path, for messages */
    pb_prof_head_t head;
    pb_prof_rec_t *recs;     /* the operation records (END taken out) */
    size_t n;
    int proc;                /* index of its process (host, pid), set by the join */
} pb_jp_pfile_t;

typedef struct pb_jp_plugin {
    pb_jp_pfile_t *files;
    size_t n, cap;
    uint64_t dropped;        /* the END records' counts of dropped operations */
    size_t truncated;        /* files that ended inside a record (a job killed mid-write) */
} pb_jp_plugin_t;

/* 1 when data starts with the plugin's magic. */
int pb_jp_is_plugin(const void *data, size_t len);
/* Takes one file's bytes (the caller keeps data).  Bad header, a foreign
 * byte order, a record size that is not this build's: PB_EINPUT "name:
 * why".  A partial last record is left out and counted. */
int pb_jp_plugin_read(pb_jp_plugin_t *pl, const char *name, const void *data, size_t len,
                      pb_err_t *err);
/* The files joined into jp (its communicators, members and operations;
 * world, dropped, every, ranks_guessed, source "nccl-plugin").  Two
 * processes claiming one global rank, or one communicator rank:
 * PB_EINPUT naming both files. */
int pb_jp_plugin_join(pb_jp_plugin_t *pl, pb_jobprof_t *jp, pb_err_t *err);
void pb_jp_plugin_free(pb_jp_plugin_t *pl);

#endif
