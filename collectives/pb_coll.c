#include "pb_coll.h"

#include <string.h>

struct coll_info {
    const char *name;
    const char *alias;
    int reduces;
    int rooted;
    int in_place;
    int out_of_place;
    int blocked; /* buffer cut in n blocks */
};

static const struct coll_info colls[PB_COLL_COUNT] = {
    [PB_ALLREDUCE] = {"allreduce", "all_reduce", 1, 0, 1, 1, 0},
    [PB_ALLGATHER] = {"allgather", "all_gather", 0, 0, 1, 1, 1},
    [PB_REDUCESCATTER] = {"reducescatter", "reduce_scatter", 1, 0, 1, 1, 1},
    [PB_ALLTOALL] = {"alltoall", "all_to_all", 0, 0, 1, 1, 1},
    [PB_ALLTOALLV] = {"alltoallv", "all_to_all_v", 0, 0, 0, 1, 1},
    [PB_BROADCAST] = {"broadcast", "bcast", 0, 1, 1, 0, 0},
    [PB_REDUCE] = {"reduce", "reduce", 1, 1, 1, 1, 0},
    [PB_SENDRECV] = {"sendrecv", "send_recv", 0, 0, 0, 1, 0},
};

const char *pb_coll_name(pb_coll_t c) { return colls[c].name; }
int pb_coll_reduces(pb_coll_t c) { return colls[c].reduces; }
int pb_coll_rooted(pb_coll_t c) { return colls[c].rooted; }
int pb_coll_has_in_place(pb_coll_t c) { return colls[c].in_place; }
int pb_coll_has_out_of_place(pb_coll_t c) { return colls[c].out_of_place; }

int pb_coll_parse(const char *s, pb_coll_t *out)
{
    for (int i = 0; i < PB_COLL_COUNT; i++) {
        if (strcmp(s, colls[i].name) == 0 || strcmp(s, colls[i].alias) == 0) {
            *out = (pb_coll_t)i;
            return 0;
        }
    }
    return -1;
}

double pb_busbw_factor(pb_coll_t c, int n)
{
    double nn = (double)n;
    switch (c) {
    case PB_ALLREDUCE:
        return 2.0 * (nn - 1.0) / nn;
    case PB_ALLGATHER:
    case PB_REDUCESCATTER:
    case PB_ALLTOALL:
    case PB_ALLTOALLV:
        return (nn - 1.0) / nn;
    case PB_BROADCAST:
    case PB_REDUCE:
    case PB_SENDRECV:
    case PB_COLL_COUNT:
        break;
    }
    return 1.0;
}

uint64_t pb_coll_granule(pb_coll_t c, int n, pb_dtype_t t)
{
    uint64_t e = pb_dtype_size(t);
    return colls[c].blocked ? e * (uint64_t)n : e;
}

pb_coll_geom_t pb_coll_geom(pb_coll_t c, int n, pb_dtype_t t, uint64_t bytes)
{
    pb_coll_geom_t g;
    g.count = bytes / pb_dtype_size(t);
    g.block = colls[c].blocked ? g.count / (uint64_t)n : g.count;
    g.send_count = g.count;
    g.recv_count = g.count;
    if (c == PB_ALLGATHER)
        g.send_count = g.block;
    else if (c == PB_REDUCESCATTER)
        g.recv_count = g.block;
    return g;
}

/* Share of the pair (r, d): with k = (r + d) mod n, the exact share is
 * total * 2(k+1) / (n(n+1)) - the weights 2(k+1)/(n(n+1)) add up to 1
 * over k, so the largest pair gets n times the smallest.  Each share is
 * floored (computed as a*w + floor(b*w/D) with total = a*D + b, which
 * cannot overflow), and the R < n elements the floors lose go one each to
 * the R largest shares.  Every receiver sees each k exactly once too, so
 * sends and receives both add up to `total`. */
static uint64_t skew_count(int n, int k, uint64_t total)
{
    uint64_t nn = (uint64_t)n, d = nn * (nn + 1u);
    uint64_t a = total / d, b = total % d, lost = 0;
    for (uint64_t j = 0; j < nn; j++) {
        uint64_t w = 2u * (j + 1u);
        lost += (b * w) % d; /* sum of the fractional parts, times d */
    }
    uint64_t r = lost / d; /* whole elements the floors dropped */
    uint64_t w = 2u * (uint64_t)(k + 1);
    uint64_t c = a * w + b * w / d;
    return c + ((uint64_t)k >= nn - r ? 1u : 0u);
}

void pb_alltoallv_skewed(int n, int rank, uint64_t total, uint64_t *send_counts,
                         uint64_t *send_displs, uint64_t *recv_counts,
                         uint64_t *recv_displs)
{
    uint64_t so = 0, ro = 0;
    for (int d = 0; d < n; d++) {
        int k = (rank + d) % n; /* rank -> d and d -> rank share one k */
        send_counts[d] = skew_count(n, k, total);
        recv_counts[d] = skew_count(n, k, total);
        send_displs[d] = so;
        recv_displs[d] = ro;
        so += send_counts[d];
        ro += recv_counts[d];
    }
}
