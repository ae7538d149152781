/* pb_nccl_topo.c - NCCL topology XML through libxml2, opened on demand
 * (pb_libxml.h says why); see the header for which attribute gives which
 * class. */
#include "pb_nccl_topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pb_libxml.h"

typedef struct walk {
    const pb_libxml_t *x;
    pb_ntopo_t *t;
    int cap;
    int cpu, numa;
    int path[PB_NTOPO_DEPTH];
    int depth, nswitch, too_deep;
} walk_t;

static int is(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* an attribute into buf ("" when absent) */
static const char *attr(const walk_t *w, const xmlNode *n, const char *name, char *buf,
                        size_t len)
{
    xmlChar *v = w->x->get_prop(n, (const xmlChar *)name);
    snprintf(buf, len, "%s", v ? (const char *)v : "");
    if (v != NULL)
        w->x->free(v);
    return buf;
}

static int child(const xmlNode *n, const char *name)
{
    for (const xmlNode *c = n->children; c; c = c->next)
        if (is(c, name))
            return 1;
    return 0;
}

/* RCCL's gcn attribute: "gfx942" as is, or the numbers older RCCL wrote
 * (its src/misc/archinfo.cc maps 906, 908, 910, 940, 941, 942 to
 * gfx906, gfx908, gfx90a, gfx940, gfx941, gfx942). */
static void arch_of(const char *gcn, char *arch, size_t len)
{
    if (strcmp(gcn, "910") == 0)
        snprintf(arch, len, "gfx90a");
    else if (gcn[0] >= '0' && gcn[0] <= '9')
        snprintf(arch, len, "gfx%.8s", gcn);
    else /* "gfx942:sramecc+:xnack-" keeps its name only */
        snprintf(arch, len, "%.15s", gcn);
    arch[strcspn(arch, ":")] = '\0';
}

/* One <nvlink> or <xgmi> child of a <gpu>. */
static void gpu_link(const walk_t *w, const xmlNode *l, pb_ntopo_dev_t *d)
{
    pb_ntopo_t *t = w->t;
    char buf[64];
    int count = atoi(attr(w, l, "count", buf, sizeof buf));
    if (is(l, "xgmi")) { /* Infinity Fabric: always GPU to GPU, no switch */
        t->has_xgmi = 1;
        if (d->nxg < PB_NTOPO_NV) {
            attr(w, l, "target", d->xg_target[d->nxg], sizeof d->xg_target[0]);
            d->xg_count[d->nxg++] = count;
        }
        return;
    }
    t->has_nvlink = 1;
    if (strncasecmp(attr(w, l, "tclass", buf, sizeof buf), "0x0680", 6) == 0) {
        d->nvswitch_links += count; /* a bridge device: NVSwitch */
    } else if (d->nnv < PB_NTOPO_NV) {
        attr(w, l, "target", d->nv_target[d->nnv], sizeof d->nv_target[0]);
        d->nv_count[d->nnv++] = count;
    }
}

/* <gpu gcn="gfx942"><nvlink|xgmi target="0000:0b:00.0" count="12"
 * tclass="0x030200"/></gpu>, and the vendor: the <pci>'s vendor
 * attribute, else AMD when RCCL wrote a gcn (older RCCL dumps carry no
 * vendor attribute). */
static void gpu_links(const walk_t *w, const xmlNode *pci, pb_ntopo_dev_t *d)
{
    char buf[64];
    d->vendor = (unsigned)strtoul(attr(w, pci, "vendor", buf, sizeof buf), NULL, 16);
    for (const xmlNode *g = pci->children; g; g = g->next) {
        if (!is(g, "gpu"))
            continue;
        if (attr(w, g, "gcn", buf, sizeof buf)[0] != '\0') {
            arch_of(buf, d->arch, sizeof d->arch);
            d->vendor = d->vendor ? d->vendor : 0x1002;
        }
        for (const xmlNode *l = g->children; l; l = l->next)
            if (is(l, "nvlink") || is(l, "xgmi"))
                gpu_link(w, l, d);
    }
}

static int add_dev(walk_t *w, const xmlNode *pci, int gpu)
{
    pb_ntopo_t *t = w->t;
    if (t->n == w->cap) {
        int cap = w->cap ? 2 * w->cap : 16;
        pb_ntopo_dev_t *d = realloc(t->dev, (size_t)cap * sizeof *d);
        if (d == NULL)
            return -1;
        t->dev = d;
        w->cap = cap;
    }
    pb_ntopo_dev_t *d = &t->dev[t->n++];
    memset(d, 0, sizeof *d);
    attr(w, pci, "busid", d->busid, sizeof d->busid);
    for (char *c = d->busid; *c; c++) /* bus ids compare as lower case */
        *c = (char)(*c >= 'A' && *c <= 'F' ? *c - 'A' + 'a' : *c);
    d->gpu = gpu;
    d->cpu = w->cpu;
    d->numa = w->numa;
    d->depth = w->depth;
    memcpy(d->path, w->path, sizeof d->path);
    if (gpu)
        gpu_links(w, pci, d);
    return 0;
}

static int walk_node(walk_t *w, const xmlNode *n)
{
    char buf[64];
    for (; n; n = n->next) {
        if (is(n, "cpu")) {
            int cpu = w->cpu, numa = w->numa, depth = w->depth;
            w->cpu = w->t->ncpus++;
            w->numa = atoi(attr(w, n, "numaid", buf, sizeof buf));
            w->depth = 0;
            if (walk_node(w, n->children))
                return -1;
            w->cpu = cpu, w->numa = numa, w->depth = depth;
        } else if (is(n, "pci") && child(n, "pci")) { /* a switch */
            if (w->depth == PB_NTOPO_DEPTH) {
                w->too_deep = 1;
                continue;
            }
            w->path[w->depth++] = w->nswitch++;
            if (walk_node(w, n->children))
                return -1;
            w->path[--w->depth] = 0;
        } else if (is(n, "pci") && w->cpu >= 0) {
            const char *cls = attr(w, n, "class", buf, sizeof buf);
            int gpu = strncasecmp(cls, "0x03", 4) == 0 || child(n, "gpu");
            int nic = strncasecmp(cls, "0x02", 4) == 0 || child(n, "nic");
            if ((gpu || nic) && add_dev(w, n, gpu) != 0)
                return -1;
        } else if (n->type == XML_ELEMENT_NODE && walk_node(w, n->children)) {
            return -1;
        }
    }
    return 0;
}

static int by_kind_then_bus(const void *a, const void *b)
{
    const pb_ntopo_dev_t *x = a, *y = b;
    if (x->gpu != y->gpu)
        return y->gpu - x->gpu;
    return strcmp(x->busid, y->busid);
}

int pb_ntopo_load(const char *path, pb_ntopo_t *t, pb_err_t *err)
{
    memset(t, 0, sizeof *t);
    pb_libxml_t x;
    if (pb_libxml_open(&x, err) != PB_OK)
        return err->code;
    xmlDoc *doc = x.read_file(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (doc == NULL) {
        const xmlError *e = x.last_error();
        int code = e && e->line > 0
                       ? pb_err_set(err, PB_EINPUT, "%s:%d: not XML: %.120s", path, e->line,
                                    e->message)
                       : pb_err_set(err, PB_EINPUT, "cannot read NCCL topology '%s'", path);
        pb_libxml_close(&x);
        return code;
    }
    xmlNode *root = x.root(doc);
    int code = PB_OK;
    if (root == NULL || !is(root, "system"))
        code = pb_err_set(err, PB_EINPUT, "%s: not an NCCL topology (its root is not <system>)",
                          path);
    walk_t w = {&x, t, 0, -1, -1, {0}, 0, 0, 0};
    if (code == PB_OK && walk_node(&w, root->children) != 0)
        code = pb_err_set(err, PB_ERUNTIME, "out of memory reading %s", path);
    if (code == PB_OK && w.too_deep)
        code = pb_err_set(err, PB_EINPUT, "%s: PCI switches nested deeper than %d", path,
                          PB_NTOPO_DEPTH);
    x.free_doc(doc);
    pb_libxml_close(&x);
    for (int i = 0; i < t->n; i++)
        t->ngpus += t->dev[i].gpu;
    t->nnics = t->n - t->ngpus;
    if (code == PB_OK && t->ngpus == 0)
        code = pb_err_set(err, PB_EINPUT, "%s: no GPU (no <pci> of class 0x03xxxx or with <gpu>)",
                          path);
    if (code != PB_OK) {
        pb_ntopo_free(t);
        return code;
    }
    qsort(t->dev, (size_t)t->n, sizeof *t->dev, by_kind_then_bus);
    return PB_OK;
}

void pb_ntopo_free(pb_ntopo_t *t)
{
    free(t->dev);
    memset(t, 0, sizeof *t);
}

/* Links as the file states them: 0 when it says nothing of this pair */
static int nv_count(const pb_ntopo_dev_t *a, const pb_ntopo_dev_t *b)
{
    for (int i = 0; i < a->nnv; i++)
        if (strcmp(a->nv_target[i], b->busid) == 0)
            return a->nv_count[i];
    if (a->nvswitch_links && b->nvswitch_links)
        return a->nvswitch_links < b->nvswitch_links ? a->nvswitch_links : b->nvswitch_links;
    return 0;
}

static int xg_count(const pb_ntopo_dev_t *a, const pb_ntopo_dev_t *b)
{
    for (int i = 0; i < a->nxg; i++)
        if (strcmp(a->xg_target[i], b->busid) == 0)
            return a->xg_count[i];
    return 0;
}

pb_link_t pb_ntopo_link(const pb_ntopo_t *t, int a, int b, int nvlink)
{
    const pb_ntopo_dev_t *x = &t->dev[a], *y = &t->dev[b];
    pb_link_t l = {PB_LINK_SELF, 0};
    if (a == b)
        return l;
    if (x->gpu && y->gpu) {
        int xg = xg_count(x, y);
        xg = xg ? xg : xg_count(y, x);
        if (xg > 0) {
            l.cls = PB_LINK_XGMI;
            l.nvlinks = xg;
            return l;
        }
        int nv = nv_count(x, y);
        nv = nv ? nv : nv_count(y, x);
        if (nv == 0 && !t->has_nvlink && !t->has_xgmi)
            nv = nvlink;
        if (nv > 0) {
            l.cls = PB_LINK_NV;
            l.nvlinks = nv;
            return l;
        }
    }
    if (x->cpu != y->cpu) {
        l.cls = x->numa == y->numa ? PB_LINK_NODE : PB_LINK_SYS;
        return l;
    }
    int c = 0;
    while (c < x->depth && c < y->depth && x->path[c] == y->path[c])
        c++;
    if (c == 0)
        l.cls = PB_LINK_PHB;
    else /* switches on the path: the common one and those below it */
        l.cls = (x->depth - c) + (y->depth - c) + 1 == 1 ? PB_LINK_PIX : PB_LINK_PXB;
    return l;
}

void pb_ntopo_name(const pb_ntopo_t *t, int i, char *buf, size_t len)
{
    snprintf(buf, len, t->dev[i].gpu ? "GPU%d" : "NIC%d", t->dev[i].gpu ? i : i - t->ngpus);
}
