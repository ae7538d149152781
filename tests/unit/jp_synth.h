/* jp_synth.h - a training job's communication written as parbench's NCCL
 * profiler plugin writes it, for the tests of profile and replay: a
 * tp x cp x dp x pp layout in Megatron-Core's rank order (tp fastest,
 * then cp, dp, pp: megatron/core/parallel_state.py, order "tp-cp-ep-dp-pp"),
 * with known operations, times and, on request, one late rank.
 *
 * What every step holds, per rank (the counts the tests work out by hand):
 *   TP group (tp > 1):  4 x micro AllReduce of tp_bytes (bf16)
 *   CP group (cp > 1):  2 x micro AllGather of tp_bytes (bf16)
 *   PP group (pp > 1):  per micro-batch, forward: Send to the next stage
 *                       and Recv from the previous; backward: Send to the
 *                       previous and Recv from the next (where that stage
 *                       exists), pp_bytes bf16
 *   DP group (dp > 1):  1 ReduceScatter + 1 AllGather of dp_bytes (bf16)
 *   world:              1 AllReduce of 4 bytes (float, the loss)
 * With `ends` (Megatron-Core's TP traffic outside the layers, as the
 * patterns list it, patterns/pb_traffic_tp.c), per micro-batch also:
 *   TP, first stage:    1 AllReduce of tp_bytes (the embedding's output)
 *   TP, last stage:     1 AllReduce of tp_bytes (the output layer's input
 *                       gradient) and 3 AllReduce of loss_bytes (float:
 *                       the cross-entropy's max, target logit and sum)
 * Times: operation k of the step is issued by every rank at step start +
 * k x 1 ms + rank x 1 us, the straggler straggler_ns later; it starts when
 * its last member issued it and runs bytes / 100 GB/s + 10 us, on the GPU
 * clock too (offset by 1 s, as a GPU's globaltimer is not the CPU's).
 *
 * Processes: one per rank (pid 1000 + rank, device: its place on its
 * 8-rank node), or with per_proc > 1 per_proc ranks to a process, one
 * GPU each, as a --gpus N or nccl-tests -g N job: rank r in process
 * r / per_proc (pid 1000 + that), device r % per_proc, the launcher's
 * rank and size its process's (world_rank r / per_proc, world_size the
 * process count), file names with -rRANK (pb_prof_rec.h).  no_world
 * leaves the world communicator's files out. */
#ifndef JP_SYNTH_H
#define JP_SYNTH_H

#include <stdint.h>

typedef struct jp_synth {
    int tp, cp, dp, pp;
    int steps;
    int micro;
    uint64_t tp_bytes, dp_bytes, pp_bytes;
    int straggler;
    int64_t straggler_ns;
    int api;
    int ends;            /* the embedding's, output layer's and loss's TP traffic */
    uint64_t loss_bytes; /* one fp32 per token of a micro-batch */
    int per_proc;        /* ranks (GPUs) per process (1: one each) */
    int no_world;        /* no world communicator's files */
} jp_synth_t;

void jp_synth_defaults(jp_synth_t *s);
/* 0, or -1 with errno set. */
int jp_synth_write(const char *dir, const jp_synth_t *s);
/* Removes dir and the files in it (what a test wrote there). */
void jp_synth_remove(const char *dir);

#endif
