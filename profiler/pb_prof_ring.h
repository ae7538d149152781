/* pb_prof_ring.h - one thread's records on their way to the file: a
 * fixed-size single-producer single-consumer ring.  The thread that
 * finishes an operation is the only producer of its ring; the context's
 * writer thread is the only consumer.  No lock: the producer publishes
 * with a release store of head, the consumer frees with a release store
 * of tail.  A full ring drops the record and counts it (bounded memory;
 * the job is never slowed by the profiler's disk). */
#ifndef PB_PROF_RING_H
#define PB_PROF_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_prof_rec.h"

typedef struct pb_prof_ring {
    _Atomic uint64_t head; /* next slot the producer writes */
    _Atomic uint64_t tail; /* next slot the consumer reads */
    _Atomic uint64_t dropped;
    uint64_t mask;         /* capacity - 1 (a power of two) */
    pb_prof_rec_t *rec;
} pb_prof_ring_t;

/* A ring of `cap` records (rounded up to a power of two, at least 2).
 * NULL when out of memory. */
pb_prof_ring_t *pb_prof_ring_new(size_t cap);
void pb_prof_ring_free(pb_prof_ring_t *r);

/* Producer: 1 when queued, 0 when the ring was full (counted). */
int pb_prof_ring_push(pb_prof_ring_t *r, const pb_prof_rec_t *rec);

/* Consumer: up to n records into out; returns how many. */
size_t pb_prof_ring_pop(pb_prof_ring_t *r, pb_prof_rec_t *out, size_t n);

#endif
