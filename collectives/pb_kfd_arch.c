/* pb_kfd_arch.c - pb_kfd_arch.h: reading the KFD topology's GPU nodes. */
#include "pb_kfd_arch.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

int pb_kfd_gfx_name(unsigned version, char *buf, size_t len)
{
    unsigned major = version / 10000, minor = version / 100 % 100, step = version % 100;
    /* minor and stepping are single hex digits of the name */
    if (version == 0 || major == 0 || minor > 15 || step > 15)
        return -1;
    int n = snprintf(buf, len, "gfx%u%x%x", major, minor, step);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The node file's gfx_target_version, domain and location_id; 0 when all
 * three were read. */
static int read_node(const char *path, unsigned *ver, unsigned *domain, unsigned *loc)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    char line[256];
    int seen = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        char key[64];
        unsigned long long v = 0;
        if (sscanf(line, "%63s %llu", key, &v) != 2)
            continue;
        if (strcmp(key, "gfx_target_version") == 0)
            *ver = (unsigned)v, seen |= 1;
        else if (strcmp(key, "domain") == 0)
            *domain = (unsigned)v, seen |= 2;
        else if (strcmp(key, "location_id") == 0)
            *loc = (unsigned)v, seen |= 4;
    }
    fclose(f);
    return seen == 7 ? 0 : -1;
}

int pb_kfd_arch_of(const char *topology, const char *bus_id, char *buf, size_t len)
{
    unsigned dom = 0, bus = 0, dev = 0, fn = 0;
    if (sscanf(bus_id, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
        return -1;
    unsigned want = bus << 8 | dev << 3 | fn;
    DIR *d = opendir(topology);
    if (d == NULL)
        return -1;
    int rc = -1;
    const struct dirent *e;
    while (rc != 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        unsigned ver = 0, ndom = 0, loc = 0;
        snprintf(path, sizeof path, "%s/%s/properties", topology, e->d_name);
        if (read_node(path, &ver, &ndom, &loc) == 0 && ver != 0 && ndom == dom && loc == want)
            rc = pb_kfd_gfx_name(ver, buf, len);
    }
    closedir(d);
    return rc;
}
