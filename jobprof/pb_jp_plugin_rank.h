/* pb_jp_plugin_rank.h - which rank of the job each of the plugin's files
 * is: the first step of pb_jp_plugin_join (pb_jp_plugin.h).
 *
 * A rank of a recorded job is a "unit": the files of one (host, pid,
 * device).  A process holding several GPUs, one rank each (parbench's
 * --gpus N, nccl-tests -g N, single-process multi-GPU PyTorch), writes
 * every rank's files with that rank's device (format 3), so its ranks
 * are told apart; where no device was recorded (format 2, or no CUDA
 * driver loaded) a process is one unit, as it always was.  A file naming
 * no device in a process whose other files name exactly one is that
 * device's.
 *
 * A unit's global rank, by the first rule that applies:
 *   1. every process holds one unit and every file names the process's
 *      global rank (the launcher's, the header's world_rank): that rank;
 *   2. a communicator every unit has a file of, as many ranks as there
 *      are units, each unit a distinct rank of it (the job's world
 *      communicator): each unit's rank in it;
 *   3. else the units in (host, pid, device) order, and jp->ranks_guessed
 *      says so.
 * The launcher's world_rank names a process, not a GPU: where a process
 * holds several units it is no unit's global rank, and its world_size is
 * a count of processes, not of ranks. */
#ifndef PB_JP_PLUGIN_RANK_H
#define PB_JP_PLUGIN_RANK_H

#include "pb_jp_plugin.h"

/* Every file's unit (f->proc, and a recorded device filled in as above),
 * every unit's global rank (grank[f->proc], grank holding pl->n), and
 * jp->world (the declared size, every file alike, where each process is
 * one unit; at least the highest global rank + 1).  A file naming no
 * device in a process whose files name several; two processes claiming
 * one global rank (rule 1); files declaring different job sizes, or a
 * global rank past the size declared: PB_EINPUT naming the files. */
int pb_jp_plugin_ranks(pb_jp_plugin_t *pl, int *grank, pb_jobprof_t *jp, pb_err_t *err);

#endif
