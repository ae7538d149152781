/* pb_gpu_pick.h - which GPU a rank drives: the one decision shared by the
 * NCCL backend, the MPI backend on device memory and `parbench gemm`, as
 * pure functions (no CUDA, no MPI) so that it is tested without a GPU.
 *
 * A rank's index among the ranks of its node picks a device among the
 * devices it sees, modulo their count: with every GPU visible to every
 * rank, local rank i drives GPU i; where the launcher binds each rank to
 * its own GPU (Slurm --gpus-per-task=1, --gpu-bind, a per-rank
 * CUDA_VISIBLE_DEVICES) each rank sees one device, index 0, and drives
 * that.  Which physical GPU a device index is differs between ranks, so
 * two ranks on one GPU are found by comparing PCI bus ids within the
 * node, never device indices. */
#ifndef PB_GPU_PICK_H
#define PB_GPU_PICK_H

#include <stddef.h>

/* The device index for local rank `local` among `ndev` visible devices,
 * or -1 when none is visible. */
int pb_gpu_pick(int local, int ndev);

/* Checks the node's choices: `ids` holds the n local ranks' PCI bus ids
 * (or any string naming the physical GPU), each in `stride` bytes, in
 * local rank order; an empty string is a rank that found no GPU.
 * Returns 0 when every rank has a GPU of its own, else 1 with one line
 * in `why` naming the first rank without one or the first two ranks
 * sharing one. */
int pb_gpu_check_node(const char *ids, int n, size_t stride, char *why, size_t len);

#endif
