/* pb_kfd.c - the KFD topology reader (pb_kfd.h says what each file holds). */
#include "pb_kfd.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KFD_NODES "class/kfd/kfd/topology/nodes"
#define KFD_XGMI 11 /* HSA_IOLINKTYPE_XGMI, kfd_crat.h (2 is PCIe) */

const char *pb_kfd_sysfs_root(void)
{
    const char *root = getenv("PB_SYSFS_ROOT");
    return root != NULL && root[0] != '\0' ? root : "/sys";
}

void pb_kfd_arch(long long v, char *buf, size_t len)
{
    long long major = v / 10000, minor = v / 100 % 100, step = v % 100;
    if (v <= 0 || major > 99 || minor > 15 || step > 15) {
        snprintf(buf, len, "%s", "");
        return;
    }
    snprintf(buf, len, "gfx%lld%llx%llx", major, minor, step);
}

/* A properties file into buf; 0 when it cannot be read. */
static int slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    return 1;
}

/* The value of "key value" at a line start; 0 when absent. */
static int prop(const char *text, const char *key, long long *out)
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

/* Node N's properties: a GPU (gfx_target_version != 0) goes into k. */
static int read_node(const char *root, int node, pb_kfd_t *k, pb_err_t *err)
{
    char path[512], text[8192];
    snprintf(path, sizeof path, "%s/" KFD_NODES "/%d/properties", root, node);
    if (!slurp(path, text, sizeof text))
        return pb_err_set(err, PB_EINPUT, "cannot read %s", path);
    long long ver = 0, loc = 0, dom = 0, simd = 0;
    if (!prop(text, "gfx_target_version", &ver) || ver == 0)
        return PB_OK; /* a CPU node */
    if (!prop(text, "location_id", &loc) || loc < 0 || loc > 0xffff)
        return pb_err_set(err, PB_EINPUT, "%s: a GPU node without a valid location_id", path);
    if (prop(text, "domain", &dom) && (dom < 0 || dom > 0xffff))
        return pb_err_set(err, PB_EINPUT, "%s: domain %lld is not a PCI domain", path, dom);
    prop(text, "simd_count", &simd);
    pb_kfd_gpu_t *g = &k->gpu[k->ngpus++];
    g->node = node;
    g->simd = simd;
    pb_kfd_arch(ver, g->arch, sizeof g->arch);
    snprintf(g->busid, sizeof g->busid, "%04llx:%02llx:%02llx.%llx", dom, loc >> 8,
             (loc >> 3) & 0x1f, loc & 7);
    return PB_OK;
}

static int gpu_index(const pb_kfd_t *k, long long node)
{
    for (int i = 0; i < k->ngpus; i++)
        if (k->gpu[i].node == node)
            return i;
    return -1;
}

/* GPU i's links in one directory (io_links, p2p_links): xGMI to a GPU. */
static void read_links(const char *root, pb_kfd_t *k, int i, const char *dir)
{
    char path[512], text[4096];
    snprintf(path, sizeof path, "%s/" KFD_NODES "/%d/%s", root, k->gpu[i].node, dir);
    DIR *d = opendir(path);
    if (d == NULL)
        return; /* p2p_links is new (Linux 6.x); io_links may be empty */
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char file[800];
        snprintf(file, sizeof file, "%s/%s/properties", path, e->d_name);
        long long type = 0, to = -1, lo = 0, hi = 0;
        if (!slurp(file, text, sizeof text) || !prop(text, "type", &type) || type != KFD_XGMI ||
            !prop(text, "node_to", &to))
            continue;
        int j = gpu_index(k, to);
        prop(text, "min_bandwidth", &lo);
        prop(text, "max_bandwidth", &hi);
        if (j < 0 || j == i || lo <= 0 || hi <= 0)
            continue; /* to a CPU, or no direct link stated */
        int n = (int)llround((double)hi / (double)lo);
        size_t at = (size_t)i * (size_t)k->ngpus + (size_t)j;
        if (n > k->links[at])
            k->links[at] = n;
        k->max_mbps[at] = (double)hi;
    }
    closedir(d);
}

int pb_kfd_load(const char *root, pb_kfd_t *k, pb_err_t *err)
{
    memset(k, 0, sizeof *k);
    char path[512];
    snprintf(path, sizeof path, "%s/" KFD_NODES, root);
    DIR *d = opendir(path);
    if (d == NULL)
        return PB_OK; /* no AMD driver: no AMD GPUs */
    int nodes[PB_KFD_MAX_NODES], nn = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char *end = NULL;
        long v = strtol(e->d_name, &end, 10);
        if (end != e->d_name && *end == '\0' && v >= 0 && v < PB_KFD_MAX_NODES &&
            nn < PB_KFD_MAX_NODES)
            nodes[nn++] = (int)v;
    }
    closedir(d);
    k->gpu = calloc((size_t)nn + 1, sizeof *k->gpu);
    if (k->gpu == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory reading %s", path);
    int code = PB_OK;
    for (int i = 0; i < nn && code == PB_OK; i++)
        code = read_node(root, nodes[i], k, err);
    size_t nsq = (size_t)k->ngpus * (size_t)k->ngpus + 1;
    if (code == PB_OK && ((k->links = calloc(nsq, sizeof *k->links)) == NULL ||
                          (k->max_mbps = calloc(nsq, sizeof *k->max_mbps)) == NULL))
        code = pb_err_set(err, PB_ERUNTIME, "out of memory reading %s", path);
    for (int i = 0; code == PB_OK && i < k->ngpus; i++) {
        read_links(root, k, i, "io_links");
        read_links(root, k, i, "p2p_links");
    }
    if (code != PB_OK)
        pb_kfd_free(k);
    return code;
}

void pb_kfd_free(pb_kfd_t *k)
{
    free(k->gpu);
    free(k->links);
    free(k->max_mbps);
    memset(k, 0, sizeof *k);
}

static int topo_gpu(const pb_topo_t *tp, const char *busid)
{
    for (int g = 0; g < tp->ngpus; g++)
        if (strcasecmp(tp->gpus[g].busid, busid) == 0)
            return g;
    return -1;
}

int pb_kfd_apply(pb_topo_t *tp, const pb_kfd_t *k)
{
    int named = 0, n = tp->ngpus;
    for (int i = 0; i < k->ngpus; i++) {
        int a = topo_gpu(tp, k->gpu[i].busid);
        if (a < 0)
            continue;
        named++;
        snprintf(tp->gpus[a].arch, sizeof tp->gpus[a].arch, "%s", k->gpu[i].arch);
        for (int j = 0; j < k->ngpus; j++) {
            int b = topo_gpu(tp, k->gpu[j].busid);
            int c = k->links[(size_t)i * (size_t)k->ngpus + (size_t)j];
            if (b < 0 || b == a || c <= 0 || tp->xgmi == NULL)
                continue;
            tp->xgmi[a * n + b] = c;
            tp->xgmi[b * n + a] = c; /* a link carries both ways */
            tp->has_xgmi = 1;
        }
    }
    return named;
}

int pb_kfd_topo(pb_topo_t *tp, const char *root, pb_err_t *err)
{
    pb_kfd_t k;
    if (tp->ngpus == 0)
        return PB_OK;
    int code = pb_kfd_load(root, &k, err);
    if (code == PB_OK)
        pb_kfd_apply(tp, &k);
    pb_kfd_free(&k);
    return code;
}
