/* pb_grow.h - room for one more element in a growing array: the doubling
 * every reader of a file of unknown length needs, written once. */
#ifndef PB_GROW_H
#define PB_GROW_H

#include <stddef.h>

/* Makes *arr (capacity *cap elements of elem bytes) hold at least need
 * elements: capacity doubled from `first` until it does.  0, or -1 when
 * memory or size_t runs out (*arr and *cap then untouched). */
int pb_grow(void **arr, size_t *cap, size_t need, size_t elem, size_t first);

#endif
