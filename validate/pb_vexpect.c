#include "pb_vexpect.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const pb_vexpect_user_t *user_for(const pb_vexpect_set_t *s, pb_link_t l)
{
    char full[16];
    pb_link_format(l, full, sizeof full);
    const pb_vexpect_user_t *byname = NULL;
    for (int i = 0; s != NULL && i < s->n; i++) {
        if (strcasecmp(s->e[i].cls, full) == 0)
            return &s->e[i]; /* NV18 before NV */
        if (strcasecmp(s->e[i].cls, pb_link_class_name(l.cls)) == 0)
            byname = &s->e[i];
    }
    return byname;
}

/* One "CLASS=GB/s" entry of --expect. */
static int parse_one(pb_vexpect_set_t *s, const char *tok, size_t len, pb_err_t *err)
{
    const char *eq = memchr(tok, '=', len);
    size_t cl = eq ? (size_t)(eq - tok) : 0;
    if (eq == NULL || cl == 0 || cl >= sizeof s->e[0].cls)
        return pb_err_set(err, PB_EINPUT, "--expect takes CLASS=GB/s (e.g. NV18=380,NET=45), "
                          "not '%.*s'", (int)len, tok);
    char cls[16], num[64];
    snprintf(cls, sizeof cls, "%.*s", (int)cl, tok);
    snprintf(num, sizeof num, "%.*s", (int)(len - cl - 1), eq + 1);
    int known = 0;
    for (int c = 0; c < PB_LINK_COUNT && !known; c++)
        known = strncasecmp(cls, pb_link_class_name((pb_link_class_t)c),
                            strlen(pb_link_class_name((pb_link_class_t)c))) == 0;
    char *end = NULL;
    errno = 0;
    double v = strtod(num, &end);
    if (!known)
        return pb_err_set(err, PB_EINPUT, "--expect: '%s' is not a link class (X, NV#, XGMI#, CORE, L3, "
                          "PIX, PXB, PHB, NODE, SOCKET, SYS, NET)", cls);
    if (end == num || *end != '\0' || errno != 0 || !(v > 0.0) || !isfinite(v))
        return pb_err_set(err, PB_EINPUT, "--expect %s: '%s' is not a positive GB/s", cls, num);
    int at = s->n;
    for (int i = 0; i < s->n; i++)
        if (strcasecmp(s->e[i].cls, cls) == 0)
            at = i;
    if (at == PB_VEXPECT_USER)
        return pb_err_set(err, PB_EINPUT, "--expect: more than %d classes", PB_VEXPECT_USER);
    snprintf(s->e[at].cls, sizeof s->e[at].cls, "%s", cls);
    s->e[at].gbps = v;
    s->n += at == s->n;
    return PB_OK;
}

int pb_vexpect_parse(pb_vexpect_set_t *s, const char *spec, pb_err_t *err)
{
    if (spec == NULL || spec[0] == '\0')
        return pb_err_set(err, PB_EINPUT, "--expect needs CLASS=GB/s");
    for (const char *p = spec;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int rc = parse_one(s, p, len, err);
        if (rc != PB_OK)
            return rc;
        if (comma == NULL)
            return PB_OK;
        p = comma + 1;
    }
}

/* The model names of a generation, matched as substrings (GB200 holds
 * B200; every model below 50 GB/s per link has 25). */
double pb_vexpect_nvlink_per_link(const char *model)
{
    static const char *const nvl5[] = {"B100", "B200", "B300"};
    static const char *const nvl24[] = {"V100", "A100", "A800", "H100", "H200", "H800", "H20"};
    if (model == NULL)
        return 0.0;
    for (size_t i = 0; i < sizeof nvl5 / sizeof nvl5[0]; i++)
        if (strstr(model, nvl5[i]) != NULL)
            return 50.0;
    for (size_t i = 0; i < sizeof nvl24 / sizeof nvl24[0]; i++)
        if (strstr(model, nvl24[i]) != NULL)
            return 25.0;
    return 0.0;
}

/* AMD Infinity Fabric (xGMI) per link and direction, GB/s, by GPU
 * architecture, as NVLink's rate goes by generation:
 *  - gfx90a (MI250X, MI250, MI210): 25 GT/s x 16 lanes = 50 GB/s (ROCm's
 *    "AMD Instinct MI250 microarchitecture"; the MI250X data sheet's
 *    100 GB/s per link counts both directions; the kernel's KFD states
 *    the same 16 x 25 Gb/s per link, amdgpu_amdkfd.c);
 *  - gfx942 (MI300X, MI325X, MI300A): 128 GB/s per link both ways, 64 each
 *    (MI300X data sheet: 7 links, 896 GB/s aggregate); the MI325X is
 *    the same gfx942 silicon on the same 8-GPU platform;
 *  - gfx950 (MI350X, MI355X): 153.6 GB/s per link both ways, 76.8 each
 *    (AMD's MI350 series launch material: "153.6 GB/s links"; sources in
 *    doc/topology-and-validate.md, "xGMI rates"). */
double pb_vexpect_xgmi_per_link(const char *arch)
{
    if (arch == NULL)
        return 0.0;
    if (strcmp(arch, "gfx90a") == 0)
        return 50.0;
    if (strncmp(arch, "gfx94", 5) == 0)
        return 64.0;
    if (strcmp(arch, "gfx950") == 0)
        return 76.8;
    return 0.0;
}

static double lower(double a, double b)
{
    return a > 0.0 && b > 0.0 ? (a < b ? a : b) : 0.0;
}

void pb_vexpect_pair(const pb_vexpect_set_t *user, pb_link_t l, const pb_vexpect_rank_t *a,
                     const pb_vexpect_rank_t *b, int share_a, int share_b, int device,
                     pb_vexpect_t *out)
{
    memset(out, 0, sizeof *out);
    const pb_vexpect_user_t *u = user_for(user, l);
    if (u != NULL) {
        out->gbps = u->gbps;
        snprintf(out->src, sizeof out->src, "--expect %s", u->cls);
        return;
    }
    switch (l.cls) {
    case PB_LINK_NV:
    case PB_LINK_XGMI: { /* nvlink_gbps: one link of the GPU's own fabric */
        double per = lower(a->nvlink_gbps, b->nvlink_gbps);
        if (device && per > 0.0 && l.nvlinks > 0) {
            out->gbps = per * l.nvlinks;
            snprintf(out->src, sizeof out->src, "%d %s x %g GB/s", l.nvlinks,
                     l.cls == PB_LINK_NV ? "NVLinks" : "xGMI links", per);
        }
        return;
    }
    case PB_LINK_PIX:
    case PB_LINK_PXB:
        if (device && (out->gbps = lower(a->pcie_gbps, b->pcie_gbps)) > 0.0)
            snprintf(out->src, sizeof out->src, "PCIe link %.1f GB/s", out->gbps);
        return;
    case PB_LINK_NET: {
        double na = a->nic_gbps / (share_a > 1 ? share_a : 1);
        double nb = b->nic_gbps / (share_b > 1 ? share_b : 1);
        if ((out->gbps = lower(na, nb)) > 0.0)
            snprintf(out->src, sizeof out->src, "NIC %g Gb/s%s",
                     8.0 * lower(a->nic_gbps, b->nic_gbps),
                     share_a > 1 || share_b > 1 ? ", shared" : "");
        return;
    }
    default:
        return;
    }
}
