/* test_grow.c - util/pb_grow: capacities doubled from the first, worked by
 * hand, and the refusals that leave the array as it was. */
#include <stdint.h>
#include <stdlib.h>

#include "pb_test.h"
#include "util/pb_grow.h"

int main(void)
{
    int *a = NULL;
    size_t cap = 0;
    CHECK(pb_grow((void **)&a, &cap, 0, sizeof *a, 16) == 0 && a == NULL && cap == 0);
    CHECK(pb_grow((void **)&a, &cap, 1, sizeof *a, 16) == 0 && a != NULL && cap == 16);
    a[15] = 7;
    CHECK(pb_grow((void **)&a, &cap, 16, sizeof *a, 16) == 0 && cap == 16); /* fits */
    CHECK(pb_grow((void **)&a, &cap, 17, sizeof *a, 16) == 0 && cap == 32 && a[15] == 7);
    CHECK(pb_grow((void **)&a, &cap, 100, sizeof *a, 16) == 0 && cap == 128); /* 32, 64, 128 */
    int *before = a;
    /* 2^62 ints do not fit in size_t bytes: refused, the array kept */
    CHECK(pb_grow((void **)&a, &cap, (size_t)1 << 62, sizeof *a, 16) == -1);
    CHECK(a == before && cap == 128 && a[15] == 7);
    CHECK(pb_grow((void **)&a, &cap, SIZE_MAX, 1, 16) == -1 && cap == 128);
    free(a);
    size_t c2 = 0;
    char *b = NULL; /* first 0 counts as 1 */
    CHECK(pb_grow((void **)&b, &c2, 3, 1, 0) == 0 && c2 == 4);
    free(b);
    PB_TEST_END("test_grow");
}
