/* pb_jp_kineto_pg.c - a PyTorch trace's process groups: those
 * distributedInfo.pg_config lists and those only a record_param_comms
 * names, checked (sizes, this rank a member) and made communicators. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_jp_kineto_priv.h"

/* FNV-1a, 64 bits: a stable id for a group from what every member's trace
 * says alike, its name and its global ranks. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
    return h;
}

int pb_kt_comm(pb_kt_t *kt, pb_kgroup_t *g, pb_err_t *err)
{
    if (g->comm >= 0)
        return g->comm;
    uint64_t id = fnv(0xcbf29ce484222325ull, g->name, strlen(g->name) + 1);
    for (int i = 0; i < g->size; i++) {
        int32_t r = g->ranks ? g->ranks[i] : -1;
        unsigned char b[4] = {(unsigned char)r, (unsigned char)(r >> 8), (unsigned char)(r >> 16),
                              (unsigned char)(r >> 24)};
        id = fnv(id, b, sizeof b);
    }
    /* the description when the job gave one (Megatron's group names), the
     * name ("0", "1", ...) otherwise */
    int named = g->desc[0] && strcmp(g->desc, "undefined") != 0;
    int c = pb_jp_comm(kt->jp, id, named ? g->desc : g->name, g->size, err);
    if (c < 0)
        return -1;
    pb_jcomm_t *jc = &kt->jp->comms[c];
    for (int i = 0; g->ranks && i < g->size; i++) {
        if (jc->members[i] >= 0 && jc->members[i] != g->ranks[i]) {
            pb_err_set(err, PB_EINPUT, "%s: process group '%s' has rank %d at %d, another trace "
                       "says %d", kt->name, g->name, g->ranks[i], i, jc->members[i]);
            return -1;
        }
        jc->members[i] = g->ranks[i];
    }
    return g->comm = c;
}

/* ranks (a JSON array of integers, or record_param_comms' string "[0, 1]")
 * as n global ranks; 0 ok, 1 not given or cut short by the recorder ("[0,
 * 1, ..., 63]": saveNcclMeta truncates lists past 30), -1 a count that is
 * not n, -2 an entry that is no rank of the world's [0, world) (*bad: it,
 * or LLONG_MIN when it is not a whole number).  Checked before anything
 * is sized or written by them: the ops CSV spells members out. */
static int parse_ranks(const json_t *v, int n, int world, int **out, json_int_t *bad)
{
    json_t *own = NULL;
    if (json_is_string(v)) {
        if (strstr(json_string_value(v), "...") != NULL)
            return 1;
        v = own = json_loads(json_string_value(v), 0, NULL);
    }
    int rc = json_is_array(v) ? 0 : 1;
    if (rc == 0 && (json_array_size(v) != (size_t)n || n < 1))
        rc = -1;
    int *r = rc == 0 ? malloc((size_t)n * sizeof *r) : NULL;
    if (rc == 0 && r == NULL)
        rc = 1;
    for (int i = 0; rc == 0 && i < n; i++) {
        json_t *e = json_array_get(v, (size_t)i);
        json_int_t x = json_is_integer(e) ? json_integer_value(e) : LLONG_MIN;
        rc = x < 0 || x >= world ? -2 : 0;
        *bad = x;
        r[i] = (int)x;
    }
    json_decref(own);
    if (rc != 0)
        free(r);
    else
        *out = r;
    return rc;
}

/* parse_ranks' refusal of group `name`'s ranks (rc -1 or -2) as err. */
static int ranks_refused(const pb_kt_t *kt, const char *name, int rc, int n, size_t listed,
                         json_int_t bad, pb_err_t *err)
{
    if (rc == -1)
        return pb_err_set(err, PB_EINPUT, "%s: process group '%s' has pg_size %d but %zu ranks "
                          "listed", kt->name, name, n, listed);
    if (bad == LLONG_MIN)
        return pb_err_set(err, PB_EINPUT, "%s: process group '%s' lists a rank that is not a "
                          "whole number", kt->name, name);
    return pb_err_set(err, PB_EINPUT, "%s: process group '%s' lists rank %lld, outside the "
                      "world's [0, %d)", kt->name, name, (long long)bad, kt->world);
}

static pb_kgroup_t *find_group(pb_kt_t *kt, const char *name)
{
    for (size_t i = 0; i < kt->ngroups; i++)
        if (strcmp(kt->groups[i].name, name) == 0)
            return &kt->groups[i];
    return NULL;
}

/* A new group (ranks taken over, NULL for none); PB_EINPUT when this rank
 * is not in it. */
static int add_group(pb_kt_t *kt, const char *name, const char *desc, int size, int *ranks,
                     int gloo, pb_err_t *err)
{
    int in = ranks == NULL;
    for (int i = 0; ranks && i < size; i++)
        in |= ranks[i] == kt->rank;
    pb_kgroup_t *p = in ? realloc(kt->groups, (kt->ngroups + 1) * sizeof *p) : NULL;
    if (p == NULL) {
        free(ranks);
        return in ? pb_err_set(err, PB_ERUNTIME, "out of memory reading '%s'", kt->name)
                  : pb_err_set(err, PB_EINPUT, "%s: rank %d is not in its own process group '%s'",
                               kt->name, kt->rank, name);
    }
    kt->groups = p;
    pb_kgroup_t *g = &p[kt->ngroups++];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    snprintf(g->desc, sizeof g->desc, "%s", desc ? desc : "");
    g->size = size;
    g->ranks = ranks;
    g->gloo = gloo;
    g->comm = -1;
    return PB_OK;
}

int pb_kt_read_pg(pb_kt_t *kt, const json_t *pg, pb_err_t *err)
{
    const char *name = pb_kt_str(pg, "pg_name"), *be = pb_kt_str(pg, "backend_config");
    int64_t size;
    if (name == NULL || pb_kt_int(pg, "pg_size", &size) || size < 1 || size > kt->world)
        return pb_err_set(err, PB_EINPUT, "%s: distributedInfo.pg_config has an entry without "
                          "pg_name or a pg_size in [1, %d]", kt->name, kt->world);
    if (find_group(kt, name))
        return pb_err_set(err, PB_EINPUT, "%s: process group '%s' listed twice", kt->name, name);
    int *ranks = NULL;
    json_int_t bad = 0;
    int rc = parse_ranks(json_object_get(pg, "ranks"), (int)size, kt->world, &ranks, &bad);
    if (rc < 0)
        return ranks_refused(kt, name, rc, (int)size,
                             json_array_size(json_object_get(pg, "ranks")), bad, err);
    return add_group(kt, name, pb_kt_str(pg, "pg_desc"), (int)size, ranks,
                     be != NULL && strstr(be, "gloo") != NULL, err);
}

pb_kgroup_t *pb_kt_rpc_group(pb_kt_t *kt, const json_t *a, int size, pb_err_t *err)
{
    const char *name = pb_kt_str(a, "Process Group Name");
    if (name == NULL) {
        pb_err_set(err, PB_EINPUT, "%s: a record_param_comms names no process group", kt->name);
        return NULL;
    }
    pb_kgroup_t *g = find_group(kt, name);
    int *ranks = NULL;
    json_int_t bad = 0;
    int rc = parse_ranks(json_object_get(a, "Process Group Ranks"), size, kt->world, &ranks, &bad);
    if (rc == -2) {
        ranks_refused(kt, name, rc, size, 0, bad, err);
        return NULL;
    }
    if (rc < 0 || (g && g->size != size) ||
        (g && rc == 0 && g->ranks && memcmp(g->ranks, ranks, (size_t)size * sizeof *ranks))) {
        free(ranks);
        pb_err_set(err, PB_EINPUT, "%s: process group '%s': the ranks a record_param_comms lists "
                   "disagree with its Group size %d or with distributedInfo", kt->name, name, size);
        return NULL;
    }
    if (g) {
        free(ranks);
        return g;
    }
    if (add_group(kt, name, pb_kt_str(a, "Process Group Description"), size, rc ? NULL : ranks,
                  0, err))
        return NULL;
    return &kt->groups[kt->ngroups - 1];
}
