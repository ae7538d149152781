/* Asynchronous mode of the MPI backend: each group's list of pending
 * requests, set_async, sync's wait, and progress().
 *
 * Open MPI has no progress thread for host transports: a non-blocking
 * collective advances only while the process is inside an MPI call.  So
 * progress() tests the pending requests of every asynchronous group of
 * this backend instance (the registry in pb_mpi_state_t), and the host
 * compute stand-in (pb_host_mem.c) calls it while it spins, as a DDP comm
 * hook's progress engine would. */
#include <stdlib.h>

#include "pb_mpi_priv.h"

static pb_mpi_group_t *mg_of(const pb_group_t *g) { return (pb_mpi_group_t *)g->priv; }

MPI_Request *pb_mpi_pending_new(pb_group_t *g, pb_mpi_after_t **after, pb_err_t *err)
{
    pb_mpi_group_t *mg = mg_of(g);
    if (mg->n_pending == mg->cap_pending) {
        int cap = mg->cap_pending ? 2 * mg->cap_pending : 16;
        MPI_Request *r = realloc(mg->reqs, (size_t)cap * sizeof *r);
        if (r != NULL)
            mg->reqs = r;
        pb_mpi_after_t *a = realloc(mg->after, (size_t)cap * sizeof *a);
        if (a != NULL)
            mg->after = a;
        int *x = realloc(mg->idx, (size_t)cap * sizeof *x);
        if (x != NULL)
            mg->idx = x;
        if (r == NULL || a == NULL || x == NULL) {
            pb_err_set(err, PB_ERUNTIME, "out of memory for %d pending requests", cap);
            return NULL;
        }
        mg->cap_pending = cap;
    }
    int i = mg->n_pending++;
    mg->reqs[i] = MPI_REQUEST_NULL;
    mg->after[i] = (pb_mpi_after_t){NULL, NULL, 0, NULL, MPI_DATATYPE_NULL};
    *after = &mg->after[i];
    return &mg->reqs[i];
}

/* Entries whose request is null are finished (complete, or never
 * started because their call failed): run what follows them and drop
 * them, keeping the others in issue order.  Every entry is released even
 * after a failed move; the first failure is returned. */
static int drop_finished(pb_group_t *g, pb_err_t *err)
{
    pb_mpi_group_t *mg = mg_of(g);
    pb_backend_t *be = g->be;
    int keep = 0, code = PB_OK;
    for (int i = 0; i < mg->n_pending; i++) {
        if (mg->reqs[i] != MPI_REQUEST_NULL) {
            mg->reqs[keep] = mg->reqs[i];
            mg->after[keep++] = mg->after[i];
            continue;
        }
        pb_mpi_after_t *a = &mg->after[i];
        if (a->bytes && be->mem->copy(be, a->dst, a->src, a->bytes, err) != PB_OK &&
            code == PB_OK)
            code = err->code;
        if (a->scratch)
            be->mem->free(be, a->scratch);
        if (a->type != MPI_DATATYPE_NULL)
            MPI_Type_free(&a->type);
    }
    mg->n_pending = keep;
    return code;
}

int pb_mpi_pending_wait(pb_group_t *g, pb_err_t *err)
{
    pb_mpi_group_t *mg = mg_of(g);
    if (mg->n_pending == 0)
        return PB_OK;
    int rc = MPI_Waitall(mg->n_pending, mg->reqs, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) {
        /* the list must not keep failed requests, and the MPI failure is
         * the cause to report */
        for (int i = 0; i < mg->n_pending; i++)
            mg->reqs[i] = MPI_REQUEST_NULL;
        pb_mpi_fail(rc, "MPI_Waitall", err);
        drop_finished(g, err);
        return err->code;
    }
    return drop_finished(g, err);
}

/* One progress poll of g: completes what has completed. */
static int pending_test(pb_group_t *g, pb_err_t *err)
{
    pb_mpi_group_t *mg = mg_of(g);
    if (mg->n_pending == 0)
        return PB_OK;
    /* Testsome, not Testall: Testall changes nothing unless everything
     * is done, so a finished bucket would wait for the last one before
     * its slot and buffers were released. */
    int done = 0;
    int rc = MPI_Testsome(mg->n_pending, mg->reqs, &done, mg->idx, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
        return pb_mpi_fail(rc, "MPI_Testsome", err);
    if (done != MPI_UNDEFINED && done > 0)
        return drop_finished(g, err);
    return PB_OK;
}

static int registry_index(const pb_mpi_state_t *st, const pb_group_t *g)
{
    for (int i = 0; i < st->n_async; i++)
        if (st->async_groups[i] == g)
            return i;
    return -1;
}

static void unregister(pb_group_t *g)
{
    pb_mpi_state_t *st = pb_mpi_state(g);
    int i = registry_index(st, g);
    if (i < 0)
        return;
    st->async_groups[i] = st->async_groups[--st->n_async];
}

int pb_mpi_set_async(pb_group_t *g, int on, pb_err_t *err)
{
    pb_mpi_group_t *mg = mg_of(g);
    pb_mpi_state_t *st = pb_mpi_state(g);
    if (on && !mg->async) {
        if (st->n_async == st->cap_async) {
            int cap = st->cap_async ? 2 * st->cap_async : 8;
            pb_group_t **r = realloc(st->async_groups, (size_t)cap * sizeof *r);
            if (r == NULL)
                return pb_err_set(err, PB_ERUNTIME, "out of memory for asynchronous groups");
            st->async_groups = r;
            st->cap_async = cap;
        }
        st->async_groups[st->n_async++] = g;
        mg->async = 1;
    } else if (!on && mg->async) {
        /* back to "complete on return": what was issued before completes
         * now, as if each call had waited */
        mg->async = 0;
        unregister(g);
        return pb_mpi_pending_wait(g, err);
    }
    return PB_OK;
}

int pb_mpi_progress(pb_backend_t *be, pb_err_t *err)
{
    pb_mpi_state_t *st = be->priv;
    for (int i = 0; i < st->n_async; i++)
        if (pending_test(st->async_groups[i], err) != PB_OK)
            return err->code;
    return PB_OK;
}

void pb_mpi_async_release(pb_group_t *g)
{
    pb_mpi_group_t *mg = mg_of(g);
    /* Completed, not cancelled: MPI cannot cancel a collective, and a
     * cancelled send would leave its peer's receive unmatched.  Every
     * rank frees its groups at the same point (MPI_Comm_free is
     * collective), so the peers are there to complete them. */
    pb_err_t ignored;
    pb_err_clear(&ignored);
    pb_mpi_pending_wait(g, &ignored);
    unregister(g);
    mg->async = 0;
    free(mg->reqs);
    free(mg->after);
    free(mg->idx);
    mg->reqs = NULL;
    mg->after = NULL;
    mg->idx = NULL;
    mg->n_pending = mg->cap_pending = 0;
}
