/* pb_jp_plugin_rank.c - the plugin's files' units and global ranks
 * (pb_jp_plugin_rank.h). */
#include "pb_jp_plugin_rank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int same_proc(const pb_prof_head_t *a, const pb_prof_head_t *b)
{
    return a->pid == b->pid && strcmp(a->host, b->host) == 0;
}

/* A file naming no device takes the one its process's other files name
 * (a device lookup that failed for one communicator); with two named it
 * cannot be placed: PB_EINPUT.  Nothing to do where no file names one
 * (format 2), which spares the search. */
static int fill_devices(pb_jp_plugin_t *pl, pb_err_t *err)
{
    int any = 0;
    for (size_t i = 0; i < pl->n; i++)
        any |= pl->files[i].head.device >= 0;
    for (size_t i = 0; i < pl->n && any; i++) {
        pb_jp_pfile_t *f = &pl->files[i];
        const pb_jp_pfile_t *named = NULL;
        for (size_t j = 0; j < pl->n && f->head.device < 0; j++) {
            const pb_jp_pfile_t *g = &pl->files[j];
            if (g->head.device < 0 || !same_proc(&f->head, &g->head))
                continue;
            if (named != NULL && named->head.device != g->head.device)
                return pb_err_set(err, PB_EINPUT, "%s: no device recorded, but %s and %s of its "
                                  "process (%s pid %d) name devices %d and %d: whose rank's file "
                                  "it is cannot be told", f->name, named->name, g->name,
                                  f->head.host, f->head.pid, named->head.device,
                                  g->head.device);
            named = named ? named : g;
        }
        if (f->head.device < 0 && named != NULL)
            f->head.device = named->head.device;
    }
    return PB_OK;
}

/* The units, (host, pid, device) apart: f->proc for every file, first[k]
 * a file of unit k; their count. */
static int number_units(pb_jp_plugin_t *pl, pb_jp_pfile_t **first)
{
    int nu = 0;
    for (size_t i = 0; i < pl->n; i++) {
        pb_jp_pfile_t *f = &pl->files[i];
        f->proc = -1;
        for (int k = 0; k < nu && f->proc < 0; k++)
            if (same_proc(&first[k]->head, &f->head) && first[k]->head.device == f->head.device)
                f->proc = k;
        if (f->proc < 0) {
            first[nu] = f;
            f->proc = nu++;
        }
    }
    return nu;
}

static int by_unit(const void *a, const void *b)
{
    const pb_jp_pfile_t *x = *(pb_jp_pfile_t *const *)a, *y = *(pb_jp_pfile_t *const *)b;
    int c = strcmp(x->head.host, y->head.host);
    if (c == 0)
        c = (x->head.pid > y->head.pid) - (x->head.pid < y->head.pid);
    return c ? c : (x->head.device > y->head.device) - (x->head.device < y->head.device);
}

/* A communicator every unit has a file of, with distinct ranks 0..nu-1:
 * its ranks are the global ones (the job's world communicator).  0 and
 * grank filled, or -1. */
static int ranks_from_world_comm(const pb_jp_plugin_t *pl, int nu, int *grank)
{
    for (size_t i = 0; i < pl->n; i++) {
        const pb_prof_head_t *h = &pl->files[i].head;
        if (h->nranks != nu)
            continue;
        for (int k = 0; k < nu; k++)
            grank[k] = -1;
        int ok = 1;
        for (size_t j = 0; j < pl->n && ok; j++) {
            const pb_jp_pfile_t *f = &pl->files[j];
            if (f->head.comm_id != h->comm_id)
                continue;
            int r = f->head.rank;
            ok = r >= 0 && r < nu && grank[f->proc] < 0;
            for (int k = 0; k < nu && ok; k++)
                ok = grank[k] != r;
            if (ok)
                grank[f->proc] = r;
        }
        for (int k = 0; k < nu && ok; k++)
            ok = grank[k] >= 0;
        if (ok)
            return 0;
    }
    return -1;
}

typedef struct claim {
    int g;
    size_t file;
} claim_t;

static int by_claim(const void *a, const void *b)
{
    const claim_t *x = a, *y = b;
    if (x->g != y->g)
        return x->g < y->g ? -1 : 1;
    return (x->file > y->file) - (x->file < y->file);
}

/* Two units given one global rank (only the launchers' world_rank can
 * do that: rule 1, each unit a process): PB_EINPUT naming both. */
static int distinct(const pb_jp_plugin_t *pl, const int *grank, pb_err_t *err)
{
    claim_t *c = malloc(pl->n * sizeof *c);
    if (c == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    for (size_t i = 0; i < pl->n; i++)
        c[i] = (claim_t){grank[pl->files[i].proc], i};
    qsort(c, pl->n, sizeof *c, by_claim);
    int code = PB_OK;
    for (size_t i = 1; i < pl->n && code == PB_OK; i++) {
        const pb_jp_pfile_t *g = &pl->files[c[i - 1].file], *f = &pl->files[c[i].file];
        if (c[i].g == c[i - 1].g && g->proc != f->proc)
            code = pb_err_set(err, PB_EINPUT, "%s and %s: two processes (%s pid %d, %s pid %d) "
                              "both global rank %d", g->name, f->name, g->head.host, g->head.pid,
                              f->head.host, f->head.pid, c[i].g);
    }
    free(c);
    return code;
}

/* Every unit's global rank (the rules in pb_jp_plugin_rank.h); *alone: 1
 * where every process holds one unit.  first is sorted here. */
static int global_ranks(pb_jp_plugin_t *pl, pb_jp_pfile_t **first, int nu, int *grank,
                        int *alone, pb_jobprof_t *jp, pb_err_t *err)
{
    qsort(first, (size_t)nu, sizeof *first, by_unit);
    *alone = 1;
    for (int k = 1; k < nu; k++)
        *alone &= !same_proc(&first[k - 1]->head, &first[k]->head);
    int all = *alone;
    for (int k = 0; k < nu; k++) {
        grank[first[k]->proc] = first[k]->head.world_rank;
        all &= first[k]->head.world_rank >= 0;
    }
    if (!all && ranks_from_world_comm(pl, nu, grank) != 0) {
        for (int k = 0; k < nu; k++)
            grank[first[k]->proc] = k;
        jp->ranks_guessed = 1;
    }
    return distinct(pl, grank, err);
}

/* The job's size: what the files declare, every one alike (two jobs'
 * files mixed otherwise), and every global rank below it; where a
 * process holds several units the declared size counts processes, so
 * only the ranks found size the job. */
static int job_world(const pb_jp_plugin_t *pl, const int *grank, int alone, pb_jobprof_t *jp,
                     pb_err_t *err)
{
    const pb_jp_pfile_t *decl = NULL;
    for (size_t i = 0; i < pl->n; i++) {
        const pb_jp_pfile_t *f = &pl->files[i];
        if (f->head.world_size <= 0)
            continue;
        if (decl && decl->head.world_size != f->head.world_size)
            return pb_err_set(err, PB_EINPUT, "%s: a job of %d ranks, but %s: of %d (files "
                              "of two jobs?)", decl->name, decl->head.world_size, f->name,
                              f->head.world_size);
        decl = f;
    }
    decl = alone ? decl : NULL;
    int world = decl ? decl->head.world_size : 0;
    for (size_t i = 0; i < pl->n; i++) {
        const pb_jp_pfile_t *f = &pl->files[i];
        int g = grank[f->proc]; /* below PB_JP_MAX_RANKS or the file count: g + 1 fits */
        if (decl && g >= world)
            return pb_err_set(err, PB_EINPUT, "%s: global rank %d, but %s: a job of %d ranks",
                              f->name, g, decl->name, world);
        if (g + 1 > world)
            world = g + 1;
    }
    if (world > jp->world)
        jp->world = world;
    return PB_OK;
}

int pb_jp_plugin_ranks(pb_jp_plugin_t *pl, int *grank, pb_jobprof_t *jp, pb_err_t *err)
{
    pb_jp_pfile_t **first = malloc(pl->n * sizeof *first);
    if (first == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    int alone = 1, code = fill_devices(pl, err);
    int nu = code == PB_OK ? number_units(pl, first) : 0;
    if (code == PB_OK)
        code = global_ranks(pl, first, nu, grank, &alone, jp, err);
    if (code == PB_OK)
        code = job_world(pl, grank, alone, jp, err);
    free(first);
    return code;
}
