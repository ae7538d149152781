/* pb_mem_fits.h - the rule that refuses buffers a node cannot hold, in
 * one place for the two that apply it: every rank before it allocates
 * (pb_ctx_memory_fits, which knows its backend and node) and a
 * self-launch before it starts mpirun (pb_preflight, which knows the
 * command line and this host), so both refuse the same sizes with the
 * same line. */
#ifndef PB_MEM_FITS_H
#define PB_MEM_FITS_H

#include <stdint.h>

#include "../../util/pb_err.h"

/* Do `local` ranks of one node, each with two buffers of buf_bytes (send
 * and receive) and `extra` bytes more, fit in `avail` bytes of `what`
 * ("host memory (MemAvailable)")?  PB_OK, else PB_EINPUT saying what
 * was needed.  Computed in long double: 2 x 2^64 - 1 cannot wrap. */
int pb_mem_fits(uint64_t buf_bytes, uint64_t extra, int local, uint64_t avail, const char *what,
                pb_err_t *err);

#endif
