/* pb_kfd.c - the KFD topology's xGMI links and the matrix they make, on
 * core's node reader (pb_kfd.h says what each file holds). */
#include "pb_kfd.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KFD_XGMI 11 /* HSA_IOLINKTYPE_XGMI, kfd_crat.h (2 is PCIe) */

static int gpu_index(const pb_kfd_t *k, long long node)
{
    for (int i = 0; i < k->ngpus; i++)
        if (k->gpu[i].id == node)
            return i;
    return -1;
}

/* GPU i's links in one directory (io_links, p2p_links): xGMI to a GPU. */
static void read_links(const char *root, pb_kfd_t *k, int i, const char *dir)
{
    char path[512], text[4096];
    snprintf(path, sizeof path, "%s/" PB_KFD_NODES "/%d/%s", root, k->gpu[i].id, dir);
    DIR *d = opendir(path);
    if (d == NULL)
        return; /* p2p_links is new (Linux 6.x); io_links may be empty */
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char file[800];
        snprintf(file, sizeof file, "%s/%s/properties", path, e->d_name);
        long long type = 0, to = -1, lo = 0, hi = 0;
        if (!pb_kfd_props_read(file, text, sizeof text) || !pb_kfd_prop(text, "type", &type) ||
            type != KFD_XGMI || !pb_kfd_prop(text, "node_to", &to))
            continue;
        int j = gpu_index(k, to);
        pb_kfd_prop(text, "min_bandwidth", &lo);
        pb_kfd_prop(text, "max_bandwidth", &hi);
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
    int nodes[PB_KFD_MAX_NODES];
    int nn = pb_kfd_node_ids(root, nodes, PB_KFD_MAX_NODES);
    if (nn < 0)
        return PB_OK; /* no AMD driver: no AMD GPUs */
    k->gpu = calloc((size_t)nn + 1, sizeof *k->gpu);
    if (k->gpu == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory reading %s/" PB_KFD_NODES, root);
    int code = PB_OK;
    for (int i = 0; i < nn && code == PB_OK; i++) {
        code = pb_kfd_node_read(root, nodes[i], &k->gpu[k->ngpus], err);
        if (code == PB_OK && k->gpu[k->ngpus].gfx != 0)
            k->ngpus++; /* a GPU; a CPU node's slot is taken by the next */
    }
    size_t nsq = (size_t)k->ngpus * (size_t)k->ngpus + 1;
    if (code == PB_OK && ((k->links = calloc(nsq, sizeof *k->links)) == NULL ||
                          (k->max_mbps = calloc(nsq, sizeof *k->max_mbps)) == NULL))
        code = pb_err_set(err, PB_ERUNTIME, "out of memory reading %s/" PB_KFD_NODES, root);
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
