/* libFuzzer target: sizes ("64K", "1.5G" is refused, lists "8,1M"), and
 * ranges from the first two sizes of a list. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/pb_size.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s == NULL)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    pb_err_t err;
    pb_err_clear(&err); /* the first error set is kept: start clear */
    uint64_t v = 0;
    if (pb_size_parse(s, &v, &err) != PB_OK && err.code != PB_EINPUT)
        abort();
    pb_err_clear(&err);
    uint64_t *list = NULL;
    size_t n = 0;
    if (pb_size_list(s, &list, &n, &err) == PB_OK && n >= 2) {
        uint64_t *r = NULL;
        size_t rn = 0;
        pb_err_clear(&err);
        /* a range bounded so that a huge factor-2 sweep stays small */
        if (pb_size_range(list[0], list[1], 2.0, 0, &r, &rn, &err) == PB_OK && rn > 65)
            abort(); /* at most 64 doublings fit in 64 bits */
        free(r);
    }
    free(list);
    free(s);
    return 0;
}
