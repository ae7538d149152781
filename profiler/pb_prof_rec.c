#include "pb_prof_rec.h"

#include <stdio.h>

int pb_prof_path(char *buf, size_t len, const char *dir, const char *host, int pid,
                 uint64_t comm_id)
{
    return snprintf(buf, len, "%s/parbench-prof-%s-%d-%016llx.bin", dir, host, pid,
                    (unsigned long long)comm_id);
}
