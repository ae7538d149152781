/* pb_import_ranks.c - nccl-tests' "#  Rank" lines: who ran where
 * (pb_import_priv.h).  One line per rank, as many as the log kept:
 *   "#  Rank  0 Group  0 Pid 123 on node-a device  0 [0000:07:00] NAME"
 *   ("Group" absent before 2.12, "Pid" before 2.4: src/common.cu, later
 *   src/util.cu).  From them: the world, the hosts, the groups
 *   (NCCL_TESTS_SPLIT) and whether each group lies within one host. */
#include "pb_import_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pb_imp_rank_line(pb_imp_ranks_t *rk, char **tok, int n)
{
    pb_imp_rank_t r = {-1, 0, ""};
    const char *host = NULL;
    for (int i = 1; i + 1 < n; i++) {
        uint64_t v;
        if (strcmp(tok[i], "Rank") == 0 && pb_imp_u64(tok[i + 1], &v) == 0 && v < 1u << 30)
            r.rank = (long)v;
        else if (strcmp(tok[i], "Group") == 0 && pb_imp_u64(tok[i + 1], &v) == 0 && v < 1u << 30)
            r.group = (long)v;
        else if (strcmp(tok[i], "on") == 0 && host == NULL)
            host = tok[i + 1];
    }
    if (host == NULL)
        return 0;
    snprintf(r.host, sizeof r.host, "%.63s", host);
    if (rk->n == rk->cap) {
        size_t cap = rk->cap ? 2 * rk->cap : 64;
        pb_imp_rank_t *p = realloc(rk->v, cap * sizeof *p);
        if (p == NULL)
            return -1;
        rk->v = p;
        rk->cap = cap;
    }
    rk->v[rk->n++] = r;
    rk->counted = 0;
    return 0;
}

static int by_rank(const void *a, const void *b)
{
    long x = ((const pb_imp_rank_t *)a)->rank, y = ((const pb_imp_rank_t *)b)->rank;
    return (x > y) - (x < y);
}

static int by_host(const void *a, const void *b)
{
    return strcmp(((const pb_imp_rank_t *)a)->host, ((const pb_imp_rank_t *)b)->host);
}

/* by group, then host: a group's hosts next to each other */
static int by_group(const void *a, const void *b)
{
    const pb_imp_rank_t *p = a, *q = b;
    if (p->group != q->group)
        return (p->group > q->group) - (p->group < q->group);
    return strcmp(p->host, q->host);
}

/* Each group's hosts: PB_IMP_WITHIN when every group has one, ACROSS when
 * every group has several, else UNKNOWN (the rows carry one link). */
static int group_spread(const pb_imp_ranks_t *rk)
{
    int within = 0, across = 0;
    size_t n = rk->n;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        int hosts = 1;
        for (; j < n && rk->v[j].group == rk->v[i].group; j++)
            hosts += strcmp(rk->v[j].host, rk->v[j - 1].host) != 0;
        within += hosts == 1;
        across += hosts > 1;
        i = j;
    }
    return across == 0 ? PB_IMP_WITHIN : within == 0 ? PB_IMP_ACROSS : PB_IMP_UNKNOWN;
}

/* sorting keeps a log of any size linear-logarithmic */
void pb_imp_ranks_count(pb_imp_ranks_t *rk)
{
    if (rk->counted)
        return;
    rk->counted = 1;
    rk->world = rk->nhosts = rk->ngroups = 0;
    rk->spread = PB_IMP_UNKNOWN;
    rk->rank0_host[0] = '\0';
    size_t n = rk->n;
    if (n == 0 || n > 1u << 30)
        return;
    qsort(rk->v, n, sizeof *rk->v, by_rank);
    if (rk->v[0].rank == 0)
        snprintf(rk->rank0_host, sizeof rk->rank0_host, "%s", rk->v[0].host);
    for (size_t i = 0; i < n; i++)
        if (rk->v[i].rank != (long)i)
            return; /* ranks missing or repeated: the list was cut */
    qsort(rk->v, n, sizeof *rk->v, by_host);
    for (size_t i = 0; i < n; i++)
        rk->nhosts += i == 0 || strcmp(rk->v[i].host, rk->v[i - 1].host) != 0;
    qsort(rk->v, n, sizeof *rk->v, by_group);
    for (size_t i = 0; i < n; i++)
        rk->ngroups += i == 0 || rk->v[i].group != rk->v[i - 1].group;
    rk->spread = group_spread(rk);
    rk->world = (int)n;
}

void pb_imp_ranks_reset(pb_imp_ranks_t *rk)
{
    rk->n = 0;
    rk->counted = 0;
}

void pb_imp_ranks_free(pb_imp_ranks_t *rk)
{
    free(rk->v);
    memset(rk, 0, sizeof *rk);
}
