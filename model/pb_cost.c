#include "pb_cost.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "../core/pb_link.h"

/* NCCL's LL-protocol latencies in microseconds (NVIDIA/nccl
 * src/graph/tuning.cc, baseLat and hwLat; doc/MODEL.md "Collectives"):
 * the tree all-reduce's and the ring's base, a step over NVLink, a
 * network step of the tree (and of a ring with one rank per node), of the
 * ring, and newer NCCL's network overhead per intra-node step */
#define PB_NCCL_LL_TREE_BASE_US 6.8
#define PB_NCCL_LL_RING_BASE_US 6.6
#define PB_NCCL_LL_NVLINK_US 0.6
#define PB_NCCL_LL_NET_TREE_US 5.0
#define PB_NCCL_LL_NET_RING_US 2.7
#define PB_NCCL_LL_NET_OVERHEAD_US 1.0
/* RCCL's for MI300X (ROCm/rccl 0cbce2a7 src/graph/tuning.cc:58 baseLat,
 * :224-232 tuning_model_5, the table rome_models.cc:559 gives 8-GPU gfx942
 * nodes): the base, an xGMI step of the tree and of the ring, a network
 * step of the tree and of the ring (also with one rank per node: RCCL
 * has no tree substitute there, :431); the network overhead is NCCL's
 * (getNetOverhead, :298, an Intel host) */
#define PB_RCCL_LL_BASE_US 12.0
#define PB_RCCL_LL_XGMI_TREE_US 0.9
#define PB_RCCL_LL_XGMI_RING_US 0.8
#define PB_RCCL_LL_NET_TREE_US 10.5
#define PB_RCCL_LL_NET_RING_US 9.5
/* reporting (doc/MODEL.md "Collectives"): a curve's relative error held
 * below 1 so that a band end stays above zero time; "capped" when a link
 * ceiling adds more than 1 % */
#define PB_COST_ERR_MAX 0.9
#define PB_COST_CAPPED_X 1.01
/* a bandwidth term's floor before dividing by it: any positive time far
 * below a real one */
#define PB_COST_TINY_US 1e-300
/* a double below 2^64 (1.8447e19) that still converts to uint64_t */
#define PB_COST_U64_LIMIT 1.8e19

static double latency_steps(pb_coll_t c, int n)
{
    if (n < 2 || c == PB_SENDRECV)
        return 1.0;
    if (c == PB_ALLREDUCE)
        return log2((double)n);
    return (double)(n - 1);
}

double pb_cost_preset_us(const pb_hw_t *hw, pb_coll_t coll, int n, int net, uint64_t bytes,
                         double imbalance)
{
    if (n < 2)
        return 0.0;
    double gbps = net ? pb_hw_net_gbps_per_gpu(hw) * hw->net_eff : hw->nvlink_gbps * hw->nvlink_eff;
    double x = (double)bytes * (imbalance > 1.0 ? imbalance : 1.0);
    double wire = x * pb_busbw_factor(coll, n);
    double lat = net ? hw->lat_net_us : hw->lat_intra_us;
    return lat * pb_hw_lat_depth((double)n) + wire / (gbps * 1e3);
}

double pb_cost_preset_rail_us(const pb_hw_t *hw, pb_coll_t coll, int n, int per_node,
                              uint64_t bytes, double imbalance)
{
    if (n < 2)
        return 0.0;
    double nic = pb_hw_net_gbps_per_gpu(hw) * hw->net_eff;
    int share = coll == PB_ALLTOALL || coll == PB_ALLTOALLV || per_node < 1 ? 1 : per_node;
    double gbps = nic * share;
    double nvl = hw->nvlink_gbps * hw->nvlink_eff;
    gbps = gbps < nvl ? gbps : nvl;
    double x = (double)bytes * (imbalance > 1.0 ? imbalance : 1.0);
    return hw->lat_net_us * pb_hw_lat_depth((double)n) + x * pb_busbw_factor(coll, n) / (gbps * 1e3);
}

/* How well curve c answers an operation of type dt (0 best); curves of a
 * collective that does not reduce all answer equally (they move bytes). */
enum { RANK_OWN, RANK_UNTYPED, RANK_SAME_SIZE, RANK_OTHER, RANK_NONE };

static int dtype_rank(const pb_curve_t *c, pb_coll_t coll, pb_dtype_t dt)
{
    if (!pb_coll_reduces(coll))
        return RANK_OWN;
    if (c->any_dtype)
        return RANK_UNTYPED;
    if (c->dtype == dt)
        return RANK_OWN;
    return pb_dtype_size(c->dtype) == pb_dtype_size(dt) ? RANK_SAME_SIZE : RANK_OTHER;
}

/* curves of one type form a family over group sizes: the family key */
static int family(const pb_curve_t *c, pb_coll_t coll)
{
    return !pb_coll_reduces(coll) || c->any_dtype ? PB_DTYPE_COUNT : (int)c->dtype;
}

static int usable(const pb_curve_t *c, pb_coll_t coll, int net)
{
    return c->coll == coll && pb_link_is_net(c->link) == net && c->n >= 2;
}

/* The shape of a group: n ranks, g of them in each node, over nodes
 * nodes (1: within a node). */
typedef struct shape {
    int n, g, nodes;
} shape_t;

/* A curve's shape as measured.  Across nodes with its placement unknown
 * (a calibration file written before the per_node column, or rows that
 * did not say): the most ranks per node that still spans two nodes,
 * n0/2 - the reading that gives the smallest rate per NIC, so a
 * transfer from it is never optimistic for want of the placement. */
static shape_t curve_shape(const pb_curve_t *k, int net)
{
    shape_t s = {k->n, k->n, 1};
    if (!net)
        return s;
    s.g = k->per_node >= 1 && k->per_node < k->n ? k->per_node : k->n / 2;
    if (s.g < 1)
        s.g = 1;
    s.nodes = (k->n + s.g - 1) / s.g;
    return s;
}

/* The asked shape; across nodes of unknown placement one rank per node
 * (the fewest NICs). */
static shape_t asked_shape(int n, int net, int per_node)
{
    shape_t s = {n, n, 1};
    if (!net)
        return s;
    s.g = per_node >= 1 && per_node < n ? per_node : 1;
    s.nodes = (n + s.g - 1) / s.g;
    return s;
}

/* the curve of family fam and rank `rank` nearest in shape, of the same
 * collective and link, among those whose measured range reaches x
 * (pb_curve_reach): a curve that does not reach it gives way to the next
 * one, never a guess.  Nearest: group size by log distance (the larger on
 * a tie), then ranks per node likewise (a curve of unknown placement
 * after every known one) */
static const pb_curve_t *nearest(const pb_calib_t *k, pb_coll_t coll, pb_dtype_t dt,
                                 int rank, int fam, shape_t want, int net, uint64_t x)
{
    const pb_curve_t *best = NULL;
    double bd = 0, bg = 0;
    for (size_t i = 0; i < k->n; i++) {
        const pb_curve_t *c = &k->c[i];
        if (!usable(c, coll, net) || dtype_rank(c, coll, dt) != rank || family(c, coll) != fam ||
            pb_curve_reach(c, x) == PB_REACH_OUT)
            continue;
        double d = fabs(log((double)c->n / want.n));
        shape_t cs = curve_shape(c, net);
        int known = !net || (c->per_node >= 1 && c->per_node < c->n);
        double dg = known ? fabs(log((double)cs.g / want.g)) : 1e9;
        int better = best == NULL || d < bd - 1e-12 ||
                     (fabs(d - bd) <= 1e-12 &&
                      (c->n > best->n || (c->n == best->n && dg < bg - 1e-12)));
        if (better)
            best = c, bd = d, bg = dg;
    }
    return best;
}

typedef struct ll_lat {
    double tree_base, ring_base, intra_tree, intra_ring, net_tree, net_ring, net_ring_ppn1;
} ll_lat_t;

static const ll_lat_t nccl_ll = {PB_NCCL_LL_TREE_BASE_US, PB_NCCL_LL_RING_BASE_US,
                                 PB_NCCL_LL_NVLINK_US,    PB_NCCL_LL_NVLINK_US,
                                 PB_NCCL_LL_NET_TREE_US,  PB_NCCL_LL_NET_RING_US,
                                 PB_NCCL_LL_NET_TREE_US};
static const ll_lat_t rccl_ll = {PB_RCCL_LL_BASE_US,     PB_RCCL_LL_BASE_US,
                                 PB_RCCL_LL_XGMI_TREE_US, PB_RCCL_LL_XGMI_RING_US,
                                 PB_RCCL_LL_NET_TREE_US,  PB_RCCL_LL_NET_RING_US,
                                 PB_RCCL_LL_NET_RING_US};

/* NCCL's latency composition (NVIDIA/nccl src/graph/tuning.cc,
 * ncclTopoTuneModel; RCCL's is the same code, ROCm/rccl tuning.cc:429-456),
 * with the LL-protocol latencies in microseconds (small messages run LL)
 * of the GPU's vendor: tree all-reduce base + 2((ppn-1) x intra +
 * log2(nodes) x network); ring all-gather / reduce-scatter base + (steps -
 * inter steps) x max(intra, net overhead) + inter steps x network (NCCL:
 * the tree's with one rank per node), steps n-1, inter steps nodes-1.
 * NCCL: 6.8 / 6.6 base, 0.6 NVLink, 5.0 / 2.7 network; RCCL on MI300X:
 * 12.0 base, 0.9 / 0.8 xGMI, 10.5 / 9.5 network.  Only the ratio between
 * two shapes is used: it moves a measured latency, it does not replace
 * it.  All-to-all: n-1 peers; send/recv one step. */
double pb_cost_ll_latency_us(const pb_hw_t *hw, pb_coll_t c, int n, int g, int nodes)
{
    const ll_lat_t *t = pb_hw_is_amd(hw) ? &rccl_ll : &nccl_ll;
    if (c == PB_ALLREDUCE)
        return t->tree_base + 2.0 * ((g - 1) * t->intra_tree + log2((double)nodes) * t->net_tree);
    if (c == PB_ALLGATHER || c == PB_REDUCESCATTER) {
        double intra = t->intra_ring > PB_NCCL_LL_NET_OVERHEAD_US ? t->intra_ring
                                                                  : PB_NCCL_LL_NET_OVERHEAD_US;
        return t->ring_base + (double)(n - nodes) * intra +
               (double)(nodes - 1) * (g == 1 ? t->net_ring_ppn1 : t->net_ring);
    }
    if (c == PB_SENDRECV)
        return 1.0;
    return (double)(n > 1 ? n - 1 : 1);
}

/* Bytes one NIC of a node sends (or receives) for an operation of x bytes
 * on a group of shape s, for the algorithm NCCL runs there:
 *  - ring all-reduce, all-gather, reduce-scatter: every link of the ring
 *    carries the bus bytes f(n) x (2(n-1)/n, (n-1)/n), one link leaves
 *    each node per ring, and the rings (channels) spread over the g NICs
 *    of the group's members in the node: f(n) x / g;
 *  - all-reduce on two nodes: NCCL runs a tree (or NVLS tree) there, and
 *    a node sends only its reduced x once (half to each tree), so "busBW
 *    exceeds network bandwidth" (nccl-tests#196): x / g - the least any
 *    algorithm sends, 2(nodes-1)/nodes x / g, at nodes = 2;
 *  - all-to-all: the rank's share for other nodes, (n-g)/n x, through its
 *    own NIC ("Alltoall cannot aggregate the bandwidth of multiple NICs",
 *    nccl-tests#267);
 *  - send/recv: x. */
static double nic_bytes(pb_coll_t c, shape_t s, double x, int tree2)
{
    if (c == PB_ALLTOALL || c == PB_ALLTOALLV)
        return x * (double)(s.n - s.g) / s.n;
    if (c == PB_SENDRECV)
        return x;
    if (c == PB_ALLREDUCE && tree2 && s.nodes == 2)
        return x / s.g;
    return x * pb_busbw_factor(c, s.n) / s.g;
}

/* The least bytes any algorithm moves through one NIC (across nodes): a
 * node's share of an all-reduce among its nodes, 2(nodes-1)/nodes x (a
 * reduce-scatter then an all-gather between nodes); an all-gather's
 * (reduce-scatter's) (nodes-1)/nodes x; the rest as nic_bytes.  Over g
 * NICs. */
static double nic_least(pb_coll_t c, shape_t s, double x)
{
    double N = s.nodes;
    if (c == PB_ALLREDUCE)
        return 2.0 * (N - 1.0) / N * x / s.g;
    if (c == PB_ALLGATHER || c == PB_REDUCESCATTER)
        return (N - 1.0) / N * x / s.g;
    return nic_bytes(c, s, x, 0);
}

/* The least bytes one GPU moves over its NVLink within a node of g ranks
 * of the group: (g-1)/g x for the collectives (an all-reduce whose
 * switch reduces - NVLS - sends x(g-1)/g and receives as much: NCCL's
 * tuning gives NVLS all-reduce twice the NVLink bus bandwidth), the
 * (g-1)/n share of an all-to-all, x for send/recv within a node. */
static double nvl_least(pb_coll_t c, shape_t s, double x)
{
    if (c == PB_SENDRECV)
        return s.nodes > 1 ? 0.0 : x;
    if (c == PB_ALLTOALL || c == PB_ALLTOALLV)
        return x * (double)(s.g - 1) / s.n;
    return x * (double)(s.g - 1) / s.g;
}

/* One curve's answer at x for the asked shape: nominal, optimistic and
 * pessimistic ends (t[0], t[-1 + 1], t[+1 + 1] as t[1], t[0], t[2]) */
typedef struct answer {
    double t[3]; /* [0] optimistic, [1] nominal, [2] pessimistic */
    int transferred, capped;
    double ratio;      /* another type's curve moved to the asked one: x ratio */
    uint64_t ratio_at; /* where the ratio was measured (0: none) */
} answer_t;

/* ans->ratio (1: the curve's own type) scales the curve's law before it
 * is moved to the asked shape: the two types' times measured side by side
 * on the curve's own shape */
static void curve_answer(const pb_hw_t *hw, const pb_curve_t *k, pb_coll_t coll, shape_t want,
                         int net, uint64_t bytes, answer_t *ans)
{
    double a0, b0;
    pb_curve_eval(k, bytes, &a0, &b0);
    a0 *= ans->ratio;
    b0 *= ans->ratio;
    double e = pb_curve_err(k, bytes);
    e = e < PB_COST_ERR_MAX ? e : PB_COST_ERR_MAX; /* a band end never at or below zero time */
    double x = (double)bytes;
    shape_t got = curve_shape(k, net);
    int same = k->n == want.n && (!net || (k->per_node == want.g && got.g == want.g));
    /* rates in bytes per microsecond (GB/s x 1e3): the line rates, and
     * what NCCL reaches of them (the hardware's efficiencies) */
    double nic_line = pb_hw_net_gbps_per_gpu(hw) * 1e3, nvl_line = hw->nvlink_gbps * 1e3;
    double nic_eff = nic_line * hw->net_eff, nvl_eff = nvl_line * hw->nvlink_eff;
    /* a measured shape is held only by the physics (the line rates); a
     * moved one by what NCCL reaches */
    double nic_cap = same ? nic_line : nic_eff, nvl_cap = same ? nvl_line : nvl_eff;
    double a = a0, b_nom = b0, b_opt = b0, b_pes = b0;
    ans->transferred = !same;
    ans->capped = PB_CAP_NONE;
    if (!same && !net) {
        /* within a node: the ring's bus bandwidth held, the latency by
         * steps */
        a = a0 * latency_steps(coll, want.n) / latency_steps(coll, k->n);
        b_nom = b_opt = b_pes = b0 * pb_busbw_factor(coll, want.n) / pb_busbw_factor(coll, k->n);
    } else if (!same) {
        /* across nodes: the rate per NIC the measurement shows, read as
         * the algorithm NCCL runs there (nominal and pessimistic: the
         * tree for an all-reduce on two nodes, which sends the least) and
         * as a ring (optimistic: on two nodes a tree's time read as a
         * ring's is a faster NIC than there is) */
        a = a0 * pb_cost_ll_latency_us(hw, coll, want.n, want.g, want.nodes) /
            pb_cost_ll_latency_us(hw, coll, got.n, got.g, got.nodes);
        double bb = b0 > PB_COST_TINY_US ? b0 : PB_COST_TINY_US;
        double r_ring = nic_bytes(coll, got, x, 0) / bb;
        double r_run = nic_bytes(coll, got, x, 1) / bb;
        double r_opt = r_ring > r_run ? r_ring : r_run;
        double w = nic_bytes(coll, want, x, 1);
        double b_raw = w / r_run; /* before any cap: to tell whether one bit */
        b_nom = w / (r_run < nic_cap ? r_run : nic_cap);
        b_opt = w / (r_opt < nic_cap ? r_opt : nic_cap);
        b_pes = b_nom;
        /* the ring also crosses NVLink between the g ranks in a node:
         * each carries the bus bytes (an all-to-all: (g-1)/n x) */
        double wl = coll == PB_ALLTOALL || coll == PB_ALLTOALLV ? nvl_least(coll, want, x)
                    : coll == PB_SENDRECV || want.g < 2     ? 0.0
                                                          : x * pb_busbw_factor(coll, want.n);
        double bl = wl / nvl_eff;
        double b_cap = b_nom > bl ? b_nom : bl;
        /* said capped when the ceiling adds more than 1 % to the time: a
         * latency-bound size's bandwidth term says nothing of the link */
        if (a + b_cap > (a + b_raw) * PB_COST_CAPPED_X)
            ans->capped = b_nom >= bl ? PB_CAP_NIC : PB_CAP_NVLINK;
        b_nom = b_cap;
        b_opt = b_opt > bl ? b_opt : bl;
        b_pes = b_pes > bl ? b_pes : bl;
    }
    /* the physical floor of the whole time: the least bytes over the NICs
     * (across nodes) and over one GPU's NVLink at their rates */
    double f_nic = net ? nic_least(coll, want, x) / nic_cap : 0.0;
    double f_nvl = nvl_least(coll, want, x) / nvl_cap;
    double floor = f_nic > f_nvl ? f_nic : f_nvl;
    double t = a + b_nom;
    if (t < floor) {
        if (ans->capped == PB_CAP_NONE && floor > t * PB_COST_CAPPED_X)
            ans->capped = f_nic >= f_nvl ? PB_CAP_NIC : PB_CAP_NVLINK;
        t = floor;
    }
    ans->t[1] = t;
    double to = (a + b_opt) * (1.0 - e);
    ans->t[0] = to > floor ? to : floor;
    double tp = (a + b_pes) * (1.0 + e);
    ans->t[2] = tp > t ? tp : t;
}

/* The best-ranked curves that reach x: their answer (the slowest family
 * among equals, by the nominal time); *near: one of them extrapolated;
 * *passed: a better rank had curves, none reaching x; *from: the curve
 * that answered.  RANK_NONE when no curve of coll on that link reaches
 * x. */
static int lookup(const pb_cost_t *cost, pb_coll_t coll, pb_dtype_t dt, shape_t want, int net,
                  uint64_t x, answer_t *out, const pb_curve_t **from, int *near, int *passed)
{
    const pb_calib_t *k = cost->calib;
    int best = RANK_NONE;
    for (size_t i = 0; i < k->n; i++) {
        int r = usable(&k->c[i], coll, net) ? dtype_rank(&k->c[i], coll, dt) : RANK_NONE;
        best = r < best ? r : best;
    }
    for (int rank = best; rank < RANK_NONE; rank++) {
        int found = 0;
        *near = 0;
        for (int fam = 0; fam <= PB_DTYPE_COUNT; fam++) {
            const pb_curve_t *c = nearest(k, coll, dt, rank, fam, want, net, x);
            if (c) {
                answer_t a;
                a.ratio_at = 0;
                a.ratio = rank == RANK_OWN || !pb_coll_reduces(coll)
                              ? 1.0
                              : pb_calib_dtype_ratio(k, c, dt, x, &a.ratio_at);
                curve_answer(cost->hw, c, coll, want, net, x, &a);
                if (!found || a.t[1] > out->t[1])
                    *out = a, *from = c;
                *near |= pb_curve_reach(c, x) == PB_REACH_NEAR;
                found = 1;
            }
        }
        if (found) {
            *passed = rank > best;
            return rank;
        }
    }
    return RANK_NONE;
}

/* The measured sizes of every curve of coll on that link, smallest to
 * largest; 0 when there is none. */
static int span(const pb_calib_t *k, pb_coll_t coll, int net, uint64_t *lo, uint64_t *hi)
{
    int any = 0;
    for (size_t i = 0; i < k->n; i++) {
        const pb_curve_t *c = &k->c[i];
        if (!usable(c, coll, net) || c->npieces <= 0)
            continue;
        uint64_t l = pb_curve_lo(c), h = pb_curve_hi(c);
        if (!any || l < *lo)
            *lo = l;
        if (!any || h > *hi)
            *hi = h;
        any = 1;
    }
    return any;
}

/* bytes x imbalance as a size: all-to-all-v's hottest share */
static uint64_t hottest(uint64_t bytes, double imbalance)
{
    double x = (double)bytes * (imbalance > 1.0 ? imbalance : 1.0);
    return x < PB_COST_U64_LIMIT ? (uint64_t)x : UINT64_MAX;
}

double pb_cost_place_us(const pb_cost_t *c, pb_coll_t coll, pb_dtype_t dtype, int n, int net,
                        int per_node, uint64_t bytes, double imbalance, pb_cost_src_t *src)
{
    pb_cost_src_t dummy;
    if (src == NULL)
        src = &dummy;
    memset(src, 0, sizeof *src);
    src->cal = PB_CAL_PRESET;
    src->asked = bytes;
    if (n < 2)
        return 0.0;
    shape_t want = asked_shape(n, net, per_node);
    if (c->calib) {
        const pb_calib_t *k = c->calib;
        uint64_t x = bytes;
        answer_t ans;
        const pb_curve_t *from = NULL;
        int near = 0, passed = 0;
        int rank = lookup(c, coll, dtype, want, net, x, &ans, &from, &near, &passed);
        if (rank == RANK_NONE && coll == PB_ALLTOALLV) {
            uint64_t lo, hi;
            int own = span(k, coll, net, &lo, &hi); /* its own curves, not reaching */
            x = hottest(bytes, imbalance);
            rank = lookup(c, PB_ALLTOALL, dtype, want, net, x, &ans, &from, &near, &passed);
            passed |= own;
        }
        if (rank != RANK_NONE) {
            src->cal = rank == RANK_OWN ? PB_CAL_OWN : PB_CAL_OTHER;
            src->extrapolated = near;
            src->passed = passed;
            src->asked = x;
            src->transferred = ans.transferred;
            src->capped = ans.capped;
            src->from_n = from->n;
            src->from_per_node = net ? (from->per_node >= 1 && from->per_node < from->n
                                            ? from->per_node
                                            : 0)
                                     : from->n;
            src->to_n = n;
            src->to_per_node = net ? (per_node >= 1 && per_node < n ? per_node : 0) : n;
            src->lo_us = ans.t[0];
            src->hi_us = ans.t[2];
            src->ratio_at = ans.ratio_at;
            src->dtype_ratio = ans.ratio_at ? ans.ratio : 0.0;
            return ans.t[c->bound < 0 ? 0 : c->bound > 0 ? 2 : 1];
        }
        /* measured, but not at this size: the preset, said so */
        if (span(k, coll, net, &src->lo, &src->hi)) {
            src->out_of_range = 1;
        } else if (coll == PB_ALLTOALLV && span(k, PB_ALLTOALL, net, &src->lo, &src->hi)) {
            src->out_of_range = 1;
            src->asked = hottest(bytes, imbalance);
        }
    }
    double t = net && per_node >= 1 && per_node < n
                   ? pb_cost_preset_rail_us(c->hw, coll, n, per_node, bytes, imbalance)
                   : pb_cost_preset_us(c->hw, coll, n, net, bytes, imbalance);
    src->lo_us = src->hi_us = t;
    return t;
}

double pb_cost_src_us(const pb_cost_t *c, pb_coll_t coll, pb_dtype_t dtype, int n,
                      int net, uint64_t bytes, double imbalance, pb_cost_src_t *src)
{
    return pb_cost_place_us(c, coll, dtype, n, net, 0, bytes, imbalance, src);
}

double pb_cost_us(const pb_cost_t *c, pb_coll_t coll, pb_dtype_t dtype, int n, int net,
                  uint64_t bytes, double imbalance, int *calibrated)
{
    pb_cost_src_t src;
    double t = pb_cost_src_us(c, coll, dtype, n, net, bytes, imbalance, &src);
    if (calibrated)
        *calibrated = src.cal;
    return t;
}
