/* pb_kfd_node.c - pb_kfd_node.h: the KFD topology's nodes (the header
 * says what each file holds and how the kernel encodes it). */
#include "pb_kfd_node.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *pb_kfd_sysfs_root(void)
{
    const char *root = getenv("PB_SYSFS_ROOT");
    return root != NULL && root[0] != '\0' ? root : "/sys";
}

int pb_kfd_gfx_name(long long v, char *buf, size_t len)
{
    long long major = v / 10000, minor = v / 100 % 100, step = v % 100;
    /* minor and stepping are single hex digits of the name */
    if (v <= 0 || major == 0 || major > 99 || minor > 15 || step > 15) {
        snprintf(buf, len, "%s", "");
        return -1;
    }
    int n = snprintf(buf, len, "gfx%lld%llx%llx", major, minor, step);
    if (n <= 0 || (size_t)n >= len) {
        snprintf(buf, len, "%s", "");
        return -1;
    }
    return 0;
}

int pb_kfd_props_read(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    return 1;
}

int pb_kfd_prop(const char *text, const char *key, long long *out)
{
    size_t kl = strlen(key);
    for (const char *p = text; p != NULL && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, key, kl) == 0 && p[kl] == ' ') {
            char *end = NULL;
            errno = 0;
            unsigned long long v = strtoull(p + kl + 1, &end, 10);
            if (end == p + kl + 1 || errno != 0)
                return 0;
            *out = v > (unsigned long long)9e18 ? -1 : (long long)v; /* hive_id: 64 bits */
            return 1;
        }
    }
    return 0;
}

int pb_kfd_node_read(const char *root, int id, pb_kfd_node_t *n, pb_err_t *err)
{
    char path[512], text[8192];
    memset(n, 0, sizeof *n);
    n->id = id;
    snprintf(path, sizeof path, "%s/" PB_KFD_NODES "/%d/properties", root, id);
    if (!pb_kfd_props_read(path, text, sizeof text))
        return pb_err_set(err, PB_EINPUT, "cannot read %s", path);
    long long ver = 0, loc = 0, dom = 0;
    if (!pb_kfd_prop(text, "gfx_target_version", &ver) || ver <= 0)
        return PB_OK; /* a CPU node */
    n->gfx = ver;
    if (!pb_kfd_prop(text, "location_id", &loc) || loc < 0 || loc > 0xffff)
        return pb_err_set(err, PB_EINPUT, "%s: a GPU node without a valid location_id", path);
    /* domain is newer than location_id: absent, the kernel had one domain */
    if (pb_kfd_prop(text, "domain", &dom) && (dom < 0 || dom > 0xffff))
        return pb_err_set(err, PB_EINPUT, "%s: domain %lld is not a PCI domain", path, dom);
    pb_kfd_prop(text, "simd_count", &n->simd);
    n->domain = (unsigned)dom;
    n->location = (unsigned)loc;
    pb_kfd_gfx_name(ver, n->arch, sizeof n->arch);
    snprintf(n->busid, sizeof n->busid, "%04x:%02x:%02x.%x", n->domain, n->location >> 8,
             (n->location >> 3) & 0x1f, n->location & 7);
    return PB_OK;
}

int pb_kfd_node_ids(const char *root, int *ids, int max)
{
    char path[512];
    snprintf(path, sizeof path, "%s/" PB_KFD_NODES, root);
    DIR *d = opendir(path);
    if (d == NULL)
        return -1;
    int nn = 0;
    for (const struct dirent *e; (e = readdir(d)) != NULL && nn < max;) {
        char *end = NULL;
        long v = strtol(e->d_name, &end, 10);
        if (end != e->d_name && *end == '\0' && v >= 0 && v < PB_KFD_MAX_NODES)
            ids[nn++] = (int)v;
    }
    closedir(d);
    return nn;
}

int pb_kfd_gpu_count(const char *root)
{
    int ids[PB_KFD_MAX_NODES];
    int nn = pb_kfd_node_ids(root, ids, PB_KFD_MAX_NODES), gpus = 0;
    for (int i = 0; i < nn; i++) {
        pb_kfd_node_t n;
        pb_err_t err;
        pb_err_clear(&err);
        (void)pb_kfd_node_read(root, ids[i], &n, &err); /* a GPU is a GPU, named or not */
        gpus += n.gfx != 0;
    }
    return gpus;
}

int pb_kfd_arch_of(const char *root, const char *bus_id, char *buf, size_t len)
{
    unsigned dom = 0, bus = 0, dev = 0, fn = 0;
    if (sscanf(bus_id, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4 || bus > 0xff || dev > 0x1f ||
        fn > 7)
        return -1;
    unsigned want = bus << 8 | dev << 3 | fn;
    int ids[PB_KFD_MAX_NODES];
    int nn = pb_kfd_node_ids(root, ids, PB_KFD_MAX_NODES);
    for (int i = 0; i < nn; i++) {
        pb_kfd_node_t n;
        pb_err_t err;
        pb_err_clear(&err);
        if (pb_kfd_node_read(root, ids[i], &n, &err) == PB_OK && n.gfx != 0 &&
            n.domain == dom && n.location == want)
            return n.arch[0] != '\0' ? pb_kfd_gfx_name(n.gfx, buf, len) : -1;
    }
    return -1;
}
