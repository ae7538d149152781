#include "pb_link.h"

#include <stdio.h>
#include <string.h>

static const char *const names[PB_LINK_COUNT] = {
    "X", "NV", "XGMI", "CORE", "L3", "PIX", "PXB", "PHB", "NODE", "SOCKET", "SYS", "NET",
};

int pb_link_counted(pb_link_class_t c)
{
    return c == PB_LINK_NV || c == PB_LINK_XGMI;
}

const char *pb_link_class_name(pb_link_class_t c)
{
    return (unsigned)c < PB_LINK_COUNT ? names[c] : "?";
}

void pb_link_format(pb_link_t l, char *buf, size_t len)
{
    if (pb_link_counted(l.cls))
        snprintf(buf, len, "%s%d", names[l.cls], l.nvlinks);
    else
        snprintf(buf, len, "%s", pb_link_class_name(l.cls));
}

/* 1000 slots per class: within NV and XGMI, more links rank lower
 * (faster).  No GPU has anywhere near 999 links. */
#define PB_LINK_SLOTS 1000

int pb_link_rank(pb_link_t l)
{
    int sub = 0;
    if (pb_link_counted(l.cls)) {
        int n = l.nvlinks < 1 ? 1 : l.nvlinks > PB_LINK_SLOTS - 1 ? PB_LINK_SLOTS - 1 : l.nvlinks;
        sub = PB_LINK_SLOTS - 1 - n;
    }
    return (int)l.cls * PB_LINK_SLOTS + sub;
}

pb_link_t pb_link_from_rank(int rank)
{
    pb_link_t l = {(pb_link_class_t)(rank / PB_LINK_SLOTS), 0};
    if (pb_link_counted(l.cls))
        l.nvlinks = PB_LINK_SLOTS - 1 - rank % PB_LINK_SLOTS;
    return l;
}

pb_link_t pb_link_slower(pb_link_t a, pb_link_t b)
{
    return pb_link_rank(a) >= pb_link_rank(b) ? a : b;
}

int pb_link_is_net(const char *link)
{
    return strcmp(link, names[PB_LINK_NET]) == 0;
}
