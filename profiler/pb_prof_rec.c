#include "pb_prof_rec.h"

#include <stdio.h>

int pb_prof_path_rank(char *buf, size_t len, const char *dir, const char *host, int pid,
                      uint64_t comm_id, int rank, int clash)
{
    char r[16] = "", k[16] = "";
    if (rank >= 0)
        snprintf(r, sizeof r, "-r%d", rank);
    if (clash > 0)
        snprintf(k, sizeof k, "-%d", clash);
    return snprintf(buf, len, "%s/parbench-prof-%s-%d-%016llx%s%s.bin", dir, host, pid,
                    (unsigned long long)comm_id, r, k);
}

int pb_prof_path(char *buf, size_t len, const char *dir, const char *host, int pid,
                 uint64_t comm_id)
{
    return pb_prof_path_rank(buf, len, dir, host, pid, comm_id, -1, 0);
}
