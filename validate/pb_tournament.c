#include "pb_tournament.h"

#include <stddef.h>

int pb_tourn_rounds(int n)
{
    return n < 2 ? 0 : n % 2 ? n : n - 1;
}

/* The circle method on m = n rounded up to even players (the extra one,
 * n when n is odd, is the "rest" seat): player m-1 stays put and meets
 * player r in round r; the others meet across the circle, x with
 * (2r - x) mod (m-1).  Over m-1 rounds every pair meets once: for x, y
 * below m-1, x + y = 2r (mod m-1) has exactly one solution r because m-1
 * is odd, so 2 is invertible. */
int pb_tourn_opponent(int n, int r, int x)
{
    int m = n + n % 2, k = m - 1;
    if (n < 2 || r < 0 || r >= k || x < 0 || x >= n)
        return -1;
    int y;
    if (x == k)
        y = r;
    else if (x == r)
        y = k;
    else { /* 0 <= r, x < k: 2r - x lies in (-k, 2k), one fold either way */
        long long z = 2LL * r - x;
        y = (int)(z < 0 ? z + k : z >= k ? z - k : z);
    }
    return y < n ? y : -1; /* y == n: the rest seat */
}

void pb_tourn_init(pb_tourn_t *t, pb_tourn_pairs_t pairs, int nnodes, const int *size)
{
    t->pairs = pairs;
    t->nnodes = nnodes;
    t->size = size;
    t->intra = t->cross = 0;
    if (pairs == PB_TOURN_ALL || pairs == PB_TOURN_LOCAL)
        for (int n = 0; n < nnodes; n++)
            if (pb_tourn_rounds(size[n]) > t->intra)
                t->intra = pb_tourn_rounds(size[n]);
    if (pairs != PB_TOURN_LOCAL)
        t->cross = pb_tourn_rounds(nnodes);
}

int pb_tourn_total(const pb_tourn_t *t)
{
    return t->intra + t->cross;
}

int pb_tourn_is_cross(const pb_tourn_t *t, int r)
{
    return r >= t->intra;
}

int pb_tourn_partner(const pb_tourn_t *t, int r, int node, int local, int *pnode, int *plocal)
{
    if (r < 0 || r >= pb_tourn_total(t) || node < 0 || node >= t->nnodes || local < 0 ||
        local >= t->size[node])
        return 0;
    if (r < t->intra) { /* a smaller node has finished its round-robin */
        int y = r < pb_tourn_rounds(t->size[node]) ? pb_tourn_opponent(t->size[node], r, local)
                                                   : -1;
        *pnode = node;
        *plocal = y;
        return y >= 0;
    }
    if (t->pairs == PB_TOURN_LEADERS && local != 0)
        return 0;
    int other = pb_tourn_opponent(t->nnodes, r - t->intra, node);
    /* rail i only where the other node has a rank i */
    if (other < 0 || local >= t->size[other])
        return 0;
    *pnode = other;
    *plocal = local;
    return 1;
}
