#include "pb_num.h"

#include <string.h>

int pb_num_u64n(const char *s, size_t len, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (s == NULL || len == 0)
        return PB_NUM_NAN;
    uint64_t v = 0;
    int over = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned d = (unsigned)((unsigned char)s[i] - '0');
        if (d > 9)
            return PB_NUM_NAN;
        if (v > (UINT64_MAX - d) / 10)
            over = 1;
        else
            v = v * 10 + d;
    }
    if (over) {
        *out = UINT64_MAX;
        return PB_NUM_RANGE;
    }
    *out = v;
    return v < lo || v > hi ? PB_NUM_RANGE : PB_NUM_OK;
}

int pb_num_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    return s == NULL ? PB_NUM_NAN : pb_num_u64n(s, strlen(s), lo, hi, out);
}
