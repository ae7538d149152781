#include "pb_rankmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* Appends s and its NUL to the pool; the offset of its first byte. */
static int pool_add(pb_rankmap_t *m, size_t *cap, const char *s, unsigned *off)
{
    size_t n = strlen(s) + 1;
    if (m->pool_len + n > UINT32_MAX)
        return -1;
    if (m->pool_len + n > *cap) {
        size_t c = *cap ? *cap : 4096;
        while (c < m->pool_len + n)
            c *= 2;
        char *p = realloc(m->pool, c);
        if (p == NULL)
            return -1;
        m->pool = p;
        *cap = c;
    }
    *off = (unsigned)m->pool_len;
    memcpy(m->pool + m->pool_len, s, n);
    m->pool_len += n;
    return 0;
}

/* Pass 1: node numbers, local ranks, GPUs, labels, and the members of
 * every node in local-rank order.  A node's number is given when its
 * first rank (local rank 0, the lowest) is met; later ranks look theirs
 * up through that rank, which comes before them. */
static int number_nodes(pb_rankmap_t *m, pb_rank_fact_fn get, const void *ctx, pb_err_t *err)
{
    size_t cap = 0;
    pb_rank_fact_t f;
    for (int r = 0; r < m->size; r++) {
        get(ctx, r, &f);
        if (f.first < 0 || f.first > r || f.local_size < 1 || f.local_rank < 0 ||
            f.local_rank >= f.local_size || (f.first == r) != (f.local_rank == 0))
            return pb_err_set(err, PB_EINPUT, "rank %d: node facts do not fit (first %d, "
                              "local %d of %d)", r, f.first, f.local_rank, f.local_size);
        m->node[r] = f.first == r ? m->nnodes++ : m->node[f.first];
        m->local[r] = f.local_rank;
        m->gpu[r] = f.gpu;
        /* "cpuset\0busid\0nic\0": the label offset names the first */
        unsigned off = 0, skip = 0;
        if (pool_add(m, &cap, or_empty(f.cpuset), &off) != 0 ||
            pool_add(m, &cap, or_empty(f.busid), &skip) != 0 ||
            pool_add(m, &cap, or_empty(f.nic), &skip) != 0)
            return pb_err_set(err, PB_ERUNTIME, "out of memory for the rank labels");
        m->label[r] = off;
        if (f.first == r && pool_add(m, &cap, or_empty(f.host), &m->host[m->node[r]]) != 0)
            return pb_err_set(err, PB_ERUNTIME, "out of memory for the host names");
    }
    return PB_OK;
}

/* Counting sort of the ranks by node: start[] and member[]; checks that
 * every node's ranks agree on its size and hold each local rank once. */
static int place_members(pb_rankmap_t *m, pb_rank_fact_fn get, const void *ctx, pb_err_t *err)
{
    for (int r = 0; r < m->size; r++)
        m->start[m->node[r] + 1]++;
    for (int n = 0; n < m->nnodes; n++)
        m->start[n + 1] += m->start[n];
    for (int r = 0; r < m->size; r++)
        m->member[r] = -1;
    pb_rank_fact_t f;
    for (int r = 0; r < m->size; r++) {
        int n = m->node[r];
        get(ctx, r, &f);
        if (f.local_size != m->start[n + 1] - m->start[n] ||
            m->member[m->start[n] + m->local[r]] != -1)
            return pb_err_set(err, PB_EINPUT, "rank %d: node %d has %d ranks, not %d, or "
                              "local rank %d twice", r, n, m->start[n + 1] - m->start[n],
                              f.local_size, m->local[r]);
        m->member[m->start[n] + m->local[r]] = r;
    }
    return PB_OK;
}

static uint64_t hash_ints(const int *v, size_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a over the values */
    for (size_t i = 0; i < n; i++) {
        h ^= (uint32_t)v[i];
        h *= 1099511628211ull;
    }
    return h ^ n;
}

/* The shape table: an open-addressed hash set of matrices, so that
 * 100,000 nodes of one shape cost one comparison each. */
typedef struct shapes {
    int *slot; /* shape index + 1, 0 empty */
    uint64_t *hash;
    size_t cap, mat_cap;
} shapes_t;

static int add_shape(pb_rankmap_t *m, shapes_t *s, const int *mat, int l, int *idx)
{
    size_t n = (size_t)l * (size_t)l;
    uint64_t h = hash_ints(mat, n);
    size_t i = h & (s->cap - 1);
    for (; s->slot[i]; i = (i + 1) & (s->cap - 1)) {
        int k = s->slot[i] - 1;
        if (s->hash[i] == h && m->shape_n[k] == l &&
            memcmp(m->mat + m->shape_off[k], mat, n * sizeof *mat) == 0) {
            *idx = k;
            return 0;
        }
    }
    if (m->mat_len + n > s->mat_cap) {
        size_t c = s->mat_cap ? s->mat_cap : 64;
        while (c < m->mat_len + n)
            c *= 2;
        int *p = realloc(m->mat, c * sizeof *p);
        if (p == NULL)
            return -1;
        m->mat = p;
        s->mat_cap = c;
    }
    int k = m->nshapes++;
    m->shape_n[k] = l;
    m->shape_off[k] = m->mat_len;
    memcpy(m->mat + m->mat_len, mat, n * sizeof *mat);
    m->mat_len += n;
    s->slot[i] = k + 1;
    s->hash[i] = h;
    *idx = k;
    return 0;
}

/* Pass 2: every node's matrix from its members' rows, stored once per
 * distinct shape. */
static int find_shapes(pb_rankmap_t *m, pb_rank_fact_fn get, const void *ctx, pb_err_t *err)
{
    shapes_t s = {NULL, NULL, 1, 0};
    while (s.cap < 2 * (size_t)m->nnodes)
        s.cap *= 2;
    int maxl = 0;
    for (int n = 0; n < m->nnodes; n++)
        if (m->start[n + 1] - m->start[n] > maxl)
            maxl = m->start[n + 1] - m->start[n];
    s.slot = calloc(s.cap, sizeof *s.slot);
    s.hash = calloc(s.cap, sizeof *s.hash);
    int *mat = malloc((size_t)maxl * (size_t)maxl * sizeof *mat + 1);
    int code = s.slot && s.hash && mat ? PB_OK
                                       : pb_err_set(err, PB_ERUNTIME, "out of memory for shapes");
    pb_rank_fact_t f;
    for (int n = 0; code == PB_OK && n < m->nnodes; n++) {
        int l = m->start[n + 1] - m->start[n];
        for (int i = 0; code == PB_OK && i < l; i++) {
            int r = m->member[m->start[n] + i];
            get(ctx, r, &f);
            for (int j = 0; j < l; j++) {
                int v = f.row ? f.row[j] : -1;
                if (v < 0 || v >= pb_link_rank((pb_link_t){PB_LINK_NET, 0}))
                    code = pb_err_set(err, PB_EINPUT, "rank %d: link class %d to local "
                                      "rank %d is not one within a node", r, v, j);
                mat[(size_t)i * (size_t)l + (size_t)j] = v;
            }
        }
        if (code == PB_OK && add_shape(m, &s, mat, l, &m->shape[n]) != 0)
            code = pb_err_set(err, PB_ERUNTIME, "out of memory for shapes");
    }
    free(s.slot);
    free(s.hash);
    free(mat);
    return code;
}

int pb_rankmap_init(pb_rankmap_t *m, int size, pb_rank_fact_fn get, const void *ctx,
                    pb_err_t *err)
{
    memset(m, 0, sizeof *m);
    if (size < 1)
        return pb_err_set(err, PB_EINPUT, "a rank map needs at least one rank");
    m->size = size;
    size_t w = (size_t)size;
    m->node = malloc(w * sizeof *m->node);
    m->local = malloc(w * sizeof *m->local);
    m->gpu = malloc(w * sizeof *m->gpu);
    m->label = malloc(w * sizeof *m->label);
    m->member = malloc(w * sizeof *m->member);
    /* per node arrays sized for the worst case (one rank per node), then
     * trimmed once the count is known */
    m->start = calloc(w + 1, sizeof *m->start);
    m->shape = malloc(w * sizeof *m->shape);
    m->host = malloc(w * sizeof *m->host);
    m->shape_n = malloc(w * sizeof *m->shape_n);
    m->shape_off = malloc(w * sizeof *m->shape_off);
    int code = PB_OK;
    if (!m->node || !m->local || !m->gpu || !m->label || !m->member || !m->start || !m->shape ||
        !m->host || !m->shape_n || !m->shape_off)
        code = pb_err_set(err, PB_ERUNTIME, "out of memory for a map of %d ranks", size);
    if (code == PB_OK)
        code = number_nodes(m, get, ctx, err);
    if (code == PB_OK)
        code = place_members(m, get, ctx, err);
    if (code == PB_OK)
        code = find_shapes(m, get, ctx, err);
    if (code != PB_OK) {
        pb_rankmap_free(m);
        return code;
    }
    /* trim the per-node and per-shape arrays to their counts (shrinking
     * cannot fail in practice; keep the old block if it does) */
    size_t nn = (size_t)m->nnodes, ns = (size_t)m->nshapes;
    void *p;
    if ((p = realloc(m->start, (nn + 1) * sizeof *m->start)) != NULL)
        m->start = p;
    if ((p = realloc(m->shape, nn * sizeof *m->shape)) != NULL)
        m->shape = p;
    if ((p = realloc(m->host, nn * sizeof *m->host)) != NULL)
        m->host = p;
    if ((p = realloc(m->shape_n, ns * sizeof *m->shape_n)) != NULL)
        m->shape_n = p;
    if ((p = realloc(m->shape_off, ns * sizeof *m->shape_off)) != NULL)
        m->shape_off = p;
    if ((p = realloc(m->mat, m->mat_len * sizeof *m->mat + 1)) != NULL)
        m->mat = p;
    if ((p = realloc(m->pool, m->pool_len + 1)) != NULL)
        m->pool = p;
    return PB_OK;
}

void pb_rankmap_free(pb_rankmap_t *m)
{
    free(m->node);
    free(m->local);
    free(m->gpu);
    free(m->label);
    free(m->start);
    free(m->member);
    free(m->shape);
    free(m->host);
    free(m->shape_n);
    free(m->shape_off);
    free(m->mat);
    free(m->pool);
    memset(m, 0, sizeof *m);
}

size_t pb_rankmap_bytes(const pb_rankmap_t *m)
{
    size_t w = (size_t)m->size, nn = (size_t)m->nnodes, ns = (size_t)m->nshapes;
    return sizeof *m + w * (sizeof *m->node + sizeof *m->local + sizeof *m->gpu +
                            sizeof *m->label + sizeof *m->member) +
           (nn + 1) * sizeof *m->start + nn * (sizeof *m->shape + sizeof *m->host) +
           ns * (sizeof *m->shape_n + sizeof *m->shape_off) + (m->mat_len * sizeof *m->mat + 1) +
           (m->pool_len + 1);
}

pb_link_t pb_rankmap_link(const pb_rankmap_t *m, int a, int b)
{
    if (m->node[a] != m->node[b])
        return (pb_link_t){PB_LINK_NET, 0};
    int s = m->shape[m->node[a]];
    size_t l = (size_t)m->shape_n[s];
    return pb_link_from_rank(m->mat[m->shape_off[s] + (size_t)m->local[a] * l + (size_t)m->local[b]]);
}

int pb_rankmap_local_size(const pb_rankmap_t *m, int r)
{
    return pb_rankmap_node_size(m, m->node[r]);
}

int pb_rankmap_node_size(const pb_rankmap_t *m, int n)
{
    return m->start[n + 1] - m->start[n];
}

int pb_rankmap_member(const pb_rankmap_t *m, int n, int i)
{
    return m->member[m->start[n] + i];
}

const char *pb_rankmap_host(const pb_rankmap_t *m, int r)
{
    return m->pool + m->host[m->node[r]];
}

const char *pb_rankmap_cpuset(const pb_rankmap_t *m, int r)
{
    return m->pool + m->label[r];
}

const char *pb_rankmap_busid(const pb_rankmap_t *m, int r)
{
    const char *s = pb_rankmap_cpuset(m, r);
    return s + strlen(s) + 1;
}

const char *pb_rankmap_nic(const pb_rankmap_t *m, int r)
{
    const char *s = pb_rankmap_busid(m, r);
    return s + strlen(s) + 1;
}

typedef struct gnode {
    int group, node;
} gnode_t;

static int cmp_gnode(const void *x, const void *y)
{
    const gnode_t *a = x, *b = y;
    if (a->group != b->group)
        return (a->group > b->group) - (a->group < b->group);
    return (a->node > b->node) - (a->node < b->node);
}

pb_link_t pb_rankmap_groups_slowest(const pb_rankmap_t *m, pb_group_of_fn group_of,
                                    const void *ctx)
{
    pb_link_t worst = {PB_LINK_SELF, 0}, net = {PB_LINK_NET, 0};
    /* a group on two nodes is NET: sorted (group, node) pairs show it as
     * two neighbours of one group on different nodes */
    gnode_t *g = malloc((size_t)m->size * sizeof *g);
    if (g == NULL)
        return net; /* cannot tell: the safe answer for a group's class */
    for (int r = 0; r < m->size; r++)
        g[r] = (gnode_t){group_of(ctx, r), m->node[r]};
    qsort(g, (size_t)m->size, sizeof *g, cmp_gnode);
    int spans = 0;
    for (int r = 1; r < m->size && !spans; r++)
        spans = g[r].group == g[r - 1].group && g[r].node != g[r - 1].node;
    free(g);
    if (spans)
        return net;
    for (int n = 0; n < m->nnodes; n++) {
        int l = pb_rankmap_node_size(m, n);
        for (int i = 0; i < l; i++) {
            int a = pb_rankmap_member(m, n, i), ga = group_of(ctx, a);
            for (int j = i + 1; j < l; j++) {
                int b = pb_rankmap_member(m, n, j);
                if (group_of(ctx, b) == ga)
                    worst = pb_link_slower(worst, pb_rankmap_link(m, a, b));
            }
        }
    }
    return worst;
}
