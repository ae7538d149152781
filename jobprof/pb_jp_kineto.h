/* pb_jp_kineto.h - a PyTorch profiler trace (Kineto's Chrome JSON, one
 * file per rank: torch.profiler's export_chrome_trace) read into a
 * recorded job.
 *
 * What is read (doc/profiling.md, "PyTorch traces"):
 *   distributedInfo   rank, world_size and pg_config (each process group
 *                     the rank belongs to: pg_name, pg_desc, pg_size, the
 *                     global ranks) - torch.profiler writes it when
 *                     torch.distributed is initialised (pg_config since
 *                     torch 2.3);
 *   record_param_comms the CPU event ProcessGroupNCCL records around each
 *                     collective (torch/csrc/distributed/c10d/
 *                     ParamCommsUtils.hpp), its args written by
 *                     saveNcclMeta (torch/csrc/profiler/util.cpp):
 *                     "Collective name", "dtype", "In msg nelems", "Out
 *                     msg nelems", "Group size", "Process Group Name",
 *                     "Process Group Ranks", "Rank"; the GPU kernel linked
 *                     to it (same "External id") times it;
 *   c10d::<op>_ with gloo:<op>  gloo's process groups record no
 *                     record_param_comms: the dispatcher's c10d:: CPU op
 *                     says what was called and when (shapes with
 *                     record_shapes=True), the gloo:<op> event on the
 *                     group's worker thread when it ran; which group a
 *                     worker thread serves is not in the trace and is
 *                     inferred (pb_jp_kineto_gloo.c says how, and when it
 *                     refuses).
 * Each operation is counted once: a c10d:: op holding a record_param_comms
 * on its thread is that record's; "wait" records (WorkNCCL::wait) and the
 * nccl:<op> / gloo:<op> annotations are never operations of their own. */
#ifndef PB_JP_KINETO_H
#define PB_JP_KINETO_H

#include <stddef.h>

#include "pb_jobprof.h"

/* Adds one rank's trace text[0, len) to jp: its process groups as
 * communicators (members: global ranks; id: a hash of the group's name
 * and members, the same from every rank's file), its operations, world
 * and source "pytorch".  Bad input - not JSON, no traceEvents, no
 * distributedInfo, a rank already read from another file, a group whose
 * ranks disagree with its size - PB_EINPUT "name: why". */
int pb_jp_kineto(const char *name, const char *text, size_t len, pb_jobprof_t *jp,
                 pb_err_t *err);

/* 1 when text looks like a Kineto trace: a JSON object with a
 * "traceEvents" key near its start (a sniff, not a parse). */
int pb_jp_is_kineto(const char *text, size_t len);

#endif
