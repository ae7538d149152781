#include "pb_coll.h"

#include <string.h>

/* One row per collective (pb_coll.h says what each field means).  The
 * bus factors are nccl-tests' (src/all_reduce.cu AllReduceGetBw:
 * 2(n-1)/n; src/all_gather.cu, src/reduce_scatter.cu, src/alltoall.cu:
 * (n-1)/n; src/broadcast.cu, src/reduce.cu, src/sendrecv.cu: 1). */
#define MSG "the message, per rank"
static const pb_coll_desc_t colls[PB_COLL_COUNT] = {
    [PB_ALLREDUCE] = {"allreduce", "all_reduce", MSG,
                      PB_CF_REDUCES | PB_CF_IN_PLACE | PB_CF_OUT_OF_PLACE, 2},
    [PB_ALLGATHER] = {"allgather", "all_gather", "the gathered output (n blocks)",
                      PB_CF_IN_PLACE | PB_CF_OUT_OF_PLACE | PB_CF_BLOCKED | PB_CF_SEND_BLOCK, 1},
    [PB_REDUCESCATTER] = {"reducescatter", "reduce_scatter",
                          "the full input (n blocks; each rank keeps one)",
                          PB_CF_REDUCES | PB_CF_IN_PLACE | PB_CF_OUT_OF_PLACE | PB_CF_BLOCKED |
                              PB_CF_RECV_BLOCK,
                          1},
    [PB_ALLTOALL] = {"alltoall", "all_to_all", "one rank's send buffer",
                     PB_CF_IN_PLACE | PB_CF_OUT_OF_PLACE | PB_CF_BLOCKED, 1},
    [PB_ALLTOALLV] = {"alltoallv", "all_to_all_v", "one rank's send buffer",
                      PB_CF_OUT_OF_PLACE | PB_CF_BLOCKED, 1},
    [PB_BROADCAST] = {"broadcast", "bcast", MSG, PB_CF_ROOTED | PB_CF_IN_PLACE, 0},
    [PB_REDUCE] = {"reduce", "reduce", MSG,
                   PB_CF_REDUCES | PB_CF_ROOTED | PB_CF_IN_PLACE | PB_CF_OUT_OF_PLACE, 0},
    [PB_SENDRECV] = {"sendrecv", "send_recv", MSG, PB_CF_OUT_OF_PLACE, 0},
};

const pb_coll_desc_t *pb_coll_desc(pb_coll_t c) { return &colls[c]; }
const char *pb_coll_name(pb_coll_t c) { return colls[c].name; }
int pb_coll_reduces(pb_coll_t c) { return (colls[c].flags & PB_CF_REDUCES) != 0; }
int pb_coll_rooted(pb_coll_t c) { return (colls[c].flags & PB_CF_ROOTED) != 0; }
int pb_coll_has_in_place(pb_coll_t c) { return (colls[c].flags & PB_CF_IN_PLACE) != 0; }
int pb_coll_has_out_of_place(pb_coll_t c) { return (colls[c].flags & PB_CF_OUT_OF_PLACE) != 0; }

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
    double nn = (double)(n > 0 ? n : 1);
    int k = colls[c].bus_passes;
    return k ? (double)k * (nn - 1.0) / nn : 1.0;
}

const char *pb_busbw_factor_text(pb_coll_t c)
{
    switch (colls[c].bus_passes) {
    case 0:
        return "1";
    case 1:
        return "(n-1)/n";
    default:
        return "2(n-1)/n";
    }
}

uint64_t pb_coll_wire_bytes(pb_coll_t c, int n, uint64_t bytes)
{
    uint64_t un = (uint64_t)(n > 0 ? n : 1);
    /* bytes / n * (n - 1) without overflow and without losing the rest */
    uint64_t pass = (bytes / un) * (un - 1) + (bytes % un) * (un - 1) / un;
    int k = colls[c].bus_passes;
    return k ? (uint64_t)k * pass : bytes;
}

uint64_t pb_coll_granule(pb_coll_t c, int n, pb_dtype_t t)
{
    uint64_t e = pb_dtype_size(t);
    return colls[c].flags & PB_CF_BLOCKED ? e * (uint64_t)n : e;
}

pb_coll_geom_t pb_coll_geom(pb_coll_t c, int n, pb_dtype_t t, uint64_t bytes)
{
    unsigned f = colls[c].flags;
    pb_coll_geom_t g;
    g.count = bytes / pb_dtype_size(t);
    g.block = f & PB_CF_BLOCKED ? g.count / (uint64_t)n : g.count;
    g.send_count = f & PB_CF_SEND_BLOCK ? g.block : g.count;
    g.recv_count = f & PB_CF_RECV_BLOCK ? g.block : g.count;
    return g;
}

pb_coll_offsets_t pb_coll_in_place_offsets(pb_coll_t c, int rank, const pb_coll_geom_t *g)
{
    unsigned f = colls[c].flags;
    uint64_t mine = (uint64_t)rank * g->block;
    pb_coll_offsets_t o = {f & PB_CF_SEND_BLOCK ? mine : 0, f & PB_CF_RECV_BLOCK ? mine : 0};
    return o;
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
