#include "pb_grow.h"

#include <stdint.h>
#include <stdlib.h>

int pb_grow(void **arr, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : (first ? first : 1);
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return -1;
        n *= 2;
    }
    if (elem && n > SIZE_MAX / elem)
        return -1;
    void *p = realloc(*arr, n * elem);
    if (p == NULL)
        return -1;
    *arr = p;
    *cap = n;
    return 0;
}
