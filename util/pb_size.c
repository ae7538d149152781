#include "pb_size.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int suffix_shift(const char *p, unsigned *shift)
{
    static const char units[] = "KMGT";
    if (*p == '\0') {
        *shift = 0;
        return 0;
    }
    const char *u = strchr(units, toupper((unsigned char)*p));
    if (u == NULL) {
        if ((p[0] == 'B' || p[0] == 'b') && p[1] == '\0') {
            *shift = 0;
            return 0;
        }
        return -1;
    }
    *shift = 10u * (unsigned)(u - units + 1);
    p++;
    /* accept K, KB, KiB */
    if (*p == 'i')
        p++;
    if (*p == 'B' || *p == 'b')
        p++;
    return *p == '\0' ? 0 : -1;
}

int pb_size_parse(const char *s, uint64_t *out, pb_err_t *err)
{
    if (s == NULL || *s == '\0')
        return pb_err_set(err, PB_EINPUT, "empty size");
    if (!isdigit((unsigned char)s[0]))
        return pb_err_set(err, PB_EINPUT, "bad size '%s': expected a number with an optional K, M, G or T suffix", s);
    uint64_t v = 0;
    const char *p = s;
    while (isdigit((unsigned char)*p)) {
        uint64_t d = (uint64_t)(*p - '0');
        if (v > (UINT64_MAX - d) / 10u)
            return pb_err_set(err, PB_EINPUT, "size '%s' is too large (max %llu bytes)", s,
                              (unsigned long long)UINT64_MAX);
        v = v * 10u + d;
        p++;
    }
    unsigned shift;
    if (suffix_shift(p, &shift) != 0)
        return pb_err_set(err, PB_EINPUT, "bad size suffix in '%s': use K, M, G or T (powers of 1024)", s);
    if (shift > 0 && v > (UINT64_MAX >> shift))
        return pb_err_set(err, PB_EINPUT, "size '%s' is too large (max %llu bytes)", s,
                          (unsigned long long)UINT64_MAX);
    *out = v << shift;
    return PB_OK;
}

static int push(uint64_t **v, size_t *n, size_t *cap, uint64_t x, pb_err_t *err)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        uint64_t *nv = realloc(*v, nc * sizeof *nv);
        if (nv == NULL)
            return pb_err_set(err, PB_ERUNTIME, "out of memory for the size list");
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = x;
    return PB_OK;
}

int pb_size_range(uint64_t min, uint64_t max, double factor, uint64_t step, uint64_t **out,
                  size_t *n, pb_err_t *err)
{
    *out = NULL;
    *n = 0;
    if (min > max)
        return pb_err_set(err, PB_EINPUT, "minimum size %llu is above maximum size %llu",
                          (unsigned long long)min, (unsigned long long)max);
    if (step == 0 && !(factor > 1.0))
        return pb_err_set(err, PB_EINPUT, "size factor must be above 1 (or give a step with -i)");
    if (step == 0 && min == 0)
        return pb_err_set(err, PB_EINPUT, "a size sweep by factor cannot start at 0 bytes");
    size_t cap = 0;
    uint64_t s = min;
    for (;;) {
        if (push(out, n, &cap, s, err) != PB_OK) {
            free(*out);
            *out = NULL;
            return err->code;
        }
        uint64_t next;
        if (step > 0) {
            if (s > UINT64_MAX - step)
                break;
            next = s + step;
        } else {
            double d = floor((double)s * factor);
            if (d >= 18446744073709551616.0)
                break;
            next = (uint64_t)d;
            if (next <= s)
                next = s + 1; /* factors near 1 still make progress */
        }
        if (next > max)
            break;
        s = next;
    }
    return PB_OK;
}

int pb_size_list(const char *s, uint64_t **out, size_t *n, pb_err_t *err)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    const char *p = s;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[64];
        uint64_t v;
        if (len == 0 || len >= sizeof item)
            pb_err_set(err, PB_EINPUT, "bad size list '%s': empty or overlong item", s);
        else {
            memcpy(item, p, len);
            item[len] = '\0';
            if (pb_size_parse(item, &v, err) == PB_OK)
                push(out, n, &cap, v, err);
        }
        if (err->code != PB_OK) { /* nothing half-built goes back */
            free(*out);
            *out = NULL;
            *n = 0;
            return err->code;
        }
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    return PB_OK;
}

void pb_size_format(uint64_t bytes, char *buf, size_t len)
{
    static const char units[] = "KMGT";
    int u = -1;
    uint64_t v = bytes;
    while (u < 3 && v >= 1024u && v % 1024u == 0) {
        v /= 1024u;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%llu", (unsigned long long)v);
    else
        snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
}
