/* pb_size.h - message sizes as users type them.
 *
 * "8", "64K", "1M", "8G": K, M, G and T are powers of 1024 (nccl-tests'
 * and OSU's habit; an optional trailing "B" or "iB" is accepted: "64KiB").
 * Anything else - a bad suffix, a sign, garbage, a value past 2^64-1 - is
 * refused with the offending text named. */
#ifndef PB_SIZE_H
#define PB_SIZE_H

#include <stddef.h>
#include <stdint.h>

#include "pb_err.h"

int pb_size_parse(const char *s, uint64_t *out, pb_err_t *err);

/* Sizes from min to max, multiplying by `factor` (> 1) or adding `step`
 * (> 0); exactly one of the two is used.  max is included when reached.
 * *out is malloc'ed. */
int pb_size_range(uint64_t min, uint64_t max, double factor, uint64_t step, uint64_t **out,
                  size_t *n, pb_err_t *err);

/* A comma-separated list, "8,1K,64M", kept in the order given. */
int pb_size_list(const char *s, uint64_t **out, size_t *n, pb_err_t *err);

/* 65536 -> "64K", 1000 -> "1000": exact whenever a suffix divides. */
void pb_size_format(uint64_t bytes, char *buf, size_t len);

#endif
