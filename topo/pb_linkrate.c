#include "pb_linkrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


double pb_linkrate_pcie_gbps(double gts, int lanes)
{
    if (!(gts > 0.0) || lanes <= 0)
        return 0.0;
    double enc = gts < 8.0 ? 8.0 / 10.0 : 128.0 / 130.0;
    return gts * (double)lanes * enc / 8.0;
}

/* The first line of root/rel, or 0 when it cannot be read. */
static int read_line(const char *root, const char *rel, char *buf, size_t len)
{
    char path[512];
    if (snprintf(path, sizeof path, "%s/%s", root, rel) >= (int)sizeof path)
        return 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    return ok;
}

double pb_linkrate_pcie(const char *root, const char *busid)
{
    char rel[128], speed[64], width[64];
    if (busid == NULL || busid[0] == '\0')
        return 0.0;
    snprintf(rel, sizeof rel, "bus/pci/devices/%s/max_link_speed", busid);
    if (!read_line(root, rel, speed, sizeof speed))
        return 0.0;
    snprintf(rel, sizeof rel, "bus/pci/devices/%s/max_link_width", busid);
    if (!read_line(root, rel, width, sizeof width))
        return 0.0;
    /* "Unknown" or "255" (no link) read as 0 or an impossible width */
    double gts = strtod(speed, NULL);
    long lanes = strtol(width, NULL, 10);
    if (lanes <= 0 || lanes > 32)
        return 0.0;
    return pb_linkrate_pcie_gbps(gts, (int)lanes);
}

double pb_linkrate_nic(const char *root, const char *name)
{
    char rel[160], v[96];
    if (name == NULL || name[0] == '\0' || strchr(name, '/') != NULL)
        return 0.0;
    snprintf(rel, sizeof rel, "class/infiniband/%s/ports/1/rate", name);
    if (read_line(root, rel, v, sizeof v)) {
        double gbit = strtod(v, NULL); /* "400 Gb/sec (4X NDR)" */
        return gbit > 0.0 ? gbit / 8.0 : 0.0;
    }
    snprintf(rel, sizeof rel, "class/net/%s/speed", name);
    if (read_line(root, rel, v, sizeof v)) {
        double mbit = strtod(v, NULL); /* Mb/s; -1 when the link is down or virtual */
        return mbit > 0.0 ? mbit / 8000.0 : 0.0;
    }
    return 0.0;
}
