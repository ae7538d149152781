#include "pb_nccl_ver.h"

#include <stdio.h>

pb_nccl_ver_t pb_nccl_version_decode(int code)
{
    pb_nccl_ver_t v = {0, 0, 0};
    if (code <= 0)
        return v;
    /* the scheme changed when minor reached 9: 2.8.4 is 2804, 2.9.6 20906 */
    int major_unit = code < 10000 ? 1000 : 10000;
    v.major = code / major_unit;
    v.minor = code % major_unit / 100;
    v.patch = code % 100;
    return v;
}

int pb_nccl_version_at_least(int code, int major, int minor)
{
    pb_nccl_ver_t v = pb_nccl_version_decode(code);
    return v.major > major || (v.major == major && v.minor >= minor);
}

int pb_nccl_version_check(int code, const char *lib, const char *backend, char *why, size_t len)
{
    if (pb_nccl_version_at_least(code, PB_NCCL_MIN_MAJOR, PB_NCCL_MIN_MINOR))
        return 0;
    pb_nccl_ver_t v = pb_nccl_version_decode(code);
    /* the caller names the file (pb_nccl_lib.c) and how to name another */
    snprintf(why, len,
             "%s %d.%d.%d is too old: the %s backend needs %d.%d or newer (ncclCommSplit)", lib,
             v.major, v.minor, v.patch, backend, PB_NCCL_MIN_MAJOR, PB_NCCL_MIN_MINOR);
    return 1;
}
