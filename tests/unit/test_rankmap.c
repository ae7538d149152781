/* The node map's pure part (topo/pb_rankmap.h) on synthetic clusters: the
 * links it answers and the memory it holds.
 *
 * A synthetic cluster of W ranks: nodes of 8 ranks (the last one smaller
 * when 8 does not divide W), ranks numbered node by node, except that
 * nodes 1 and 2 interleave (1's ranks at even offsets, 2's at odd ones)
 * as a round-robin launcher would place them.  Inside a node, rank i and
 * j are linked as an 8-GPU server with two NVLink islands would say: NV18
 * within a half, SYS across; every 5th node has one PIX pair instead (a
 * second node shape), so shapes are shared, not assumed identical. */
#include <stdlib.h>
#include <string.h>

#include "pb_test.h"
#include "topo/pb_rankmap.h"

enum { PER = 8 };

typedef struct cluster {
    int w;
    int *row;     /* scratch: the row handed out last */
    char *cpuset; /* 16 B */
} cluster_t;

/* the node and local rank of rank r, and back */
static void place(int w, int r, int *node, int *local)
{
    int base = r / (3 * PER) == 0 && r >= PER ? 1 : -1; /* ranks 8..23: nodes 1, 2 */
    if (base == 1) {
        *node = 1 + (r - PER) % 2;
        *local = (r - PER) / 2;
    } else {
        *node = r / PER;
        *local = r % PER;
    }
    (void)w;
}

static int rank_of(int node, int local)
{
    if (node == 1 || node == 2)
        return PER + 2 * local + (node - 1);
    return node * PER + local;
}

static int node_size(int w, int node)
{
    int last = (w - 1) / PER;
    return node < last ? PER : w - last * PER;
}

static pb_link_t truth(int node, int i, int j)
{
    if (i == j)
        return (pb_link_t){PB_LINK_SELF, 0};
    if (node % 5 == 0 && ((i == 0 && j == 1) || (i == 1 && j == 0)))
        return (pb_link_t){PB_LINK_PIX, 0};
    return i / 4 == j / 4 ? (pb_link_t){PB_LINK_NV, 18} : (pb_link_t){PB_LINK_SYS, 0};
}

static void fact_of(const void *ctx, int r, pb_rank_fact_t *f)
{
    const cluster_t *c = ctx;
    int node, local;
    place(c->w, r, &node, &local);
    int l = node_size(c->w, node);
    for (int j = 0; j < l; j++)
        c->row[j] = pb_link_rank(truth(node, local, j));
    snprintf(c->cpuset, 16, "%d-%d", local * 4, local * 4 + 3);
    *f = (pb_rank_fact_t){rank_of(node, 0), local, l, local, c->row, "gpu-node",
                          c->cpuset, "0000:17:00.0", "mlx5_0"};
}

static int same(pb_link_t a, pb_link_t b)
{
    return a.cls == b.cls && (a.cls != PB_LINK_NV || a.nvlinks == b.nvlinks);
}

/* Every pair on the first nodes and a stride of all pairs elsewhere;
 * returns the map's bytes. */
static size_t check(int w)
{
    int row[PER];
    char cpuset[16];
    cluster_t c = {w, row, cpuset};
    pb_rankmap_t m;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_rankmap_init(&m, w, fact_of, &c, &err) == PB_OK);
    if (m.size != w)
        return (size_t)-1;
    CHECK(m.nnodes == (w + PER - 1) / PER);
    /* shapes: 8-rank nodes with and without the PIX pair, and a smaller
     * last node when PER does not divide w (one shape, or two where the
     * last node is a multiple of 5) */
    CHECK(m.nshapes >= 2 && m.nshapes <= 4);
    for (int a = 0; a < 4 * PER && a < w; a++)
        for (int b = 0; b < 4 * PER && b < w; b++) {
            int na, la, nb, lb;
            place(w, a, &na, &la);
            place(w, b, &nb, &lb);
            pb_link_t want = na != nb ? (pb_link_t){PB_LINK_NET, 0} : truth(na, la, lb);
            CHECK(same(pb_rankmap_link(&m, a, b), want));
            CHECK(m.node[a] == na && m.local[a] == la);
        }
    for (long long k = 0; k < 200000; k++) { /* pairs spread over the world */
        int a = (int)((k * 7919) % w), b = (int)((k * 104729 + 13) % w), na, la, nb, lb;
        place(w, a, &na, &la);
        place(w, b, &nb, &lb);
        pb_link_t want = na != nb ? (pb_link_t){PB_LINK_NET, 0} : truth(na, la, lb);
        CHECK(same(pb_rankmap_link(&m, a, b), want));
    }
    for (int n = 0; n < m.nnodes; n += 97)
        for (int i = 0; i < pb_rankmap_node_size(&m, n); i++)
            CHECK(pb_rankmap_member(&m, n, i) == rank_of(n, i));
    CHECK(strcmp(pb_rankmap_host(&m, w - 1), "gpu-node") == 0);
    CHECK(strcmp(pb_rankmap_cpuset(&m, 9), "0-3") == 0); /* node 2's local rank 0 */
    CHECK(strcmp(pb_rankmap_busid(&m, w - 1), "0000:17:00.0") == 0);
    CHECK(strcmp(pb_rankmap_nic(&m, w - 1), "mlx5_0") == 0);
    size_t bytes = pb_rankmap_bytes(&m);
    pb_rankmap_free(&m);
    return bytes;
}

/* Facts that contradict each other are refused. */
static void bad_fact(const void *ctx, int r, pb_rank_fact_t *f)
{
    static const int row[2] = {0, 0};
    (void)ctx;
    /* two ranks claiming one node of 2, both local rank 0 */
    *f = (pb_rank_fact_t){0, r == 0 ? 0 : 0, 2, -1, row, "h", "", "-", "-"};
}

int main(void)
{
    /* The bound: per rank 5 ints (node, local, gpu, label offset, member)
     * = 20 B plus its labels: "c-d" binding (<= 8 B with NULs here),
     * "0000:17:00.0" (13 B), "mlx5_0" (7 B) = at most 28 B; per node 3
     * ints + "gpu-node" (9 B); per shape 64 ints + 12 B.  So 48 B a rank
     * + 21 B a node / 8 ranks < 52 B a rank, plus 4 shapes and the
     * struct: 100,000 ranks < 5.3 MB, far from the 40 GB of a W x W int
     * matrix. */
    size_t b100k = check(100000);
    CHECK(b100k < (size_t)100000 * 52 + 4 * (64 * 4 + 12) + 4096);
    /* the bound: at 16,384 ranks (2,048 nodes of 8), under 10 MiB
     * per rank; this map needs under 1 MiB (16,384 x 52 B = 852 kB) */
    size_t b16k = check(16384);
    CHECK(b16k < (size_t)16384 * 52 + 4 * (64 * 4 + 12) + 4096);
    CHECK(b16k < (size_t)10 << 20);
    printf("rank map: %zu B at W = 16,384 (%.1f B a rank), %zu B at W = 100,000\n", b16k,
           (double)b16k / 16384.0, b100k);
    /* a world that does not divide by 8: a smaller last node, its own shape */
    check(16383);
    pb_rankmap_t m;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_rankmap_init(&m, 2, bad_fact, NULL, &err) == PB_EINPUT);
    return pb_test_failures ? 1 : 0;
}
