/* pb_mpi_knob.c - communication settings of the MPI library in a running
 * process (tune/pb_knob.h, PB_APPLY_MPIT): an MPI_T control variable is
 * written, and the communicators split after it take the new value.  Open
 * MPI's tuned collectives read their forced algorithm when a communicator
 * is created, so the groups made before keep the old one: the default and
 * a candidate live side by side and are timed in alternation.
 *
 * A variable's first value is kept the first time it is touched, so that
 * "back to the default" (value NULL) restores what the launch set, not a
 * guess.  Variables the MPI lets no one change while it runs (scope
 * constant or read-only: Open MPI's coll_tuned_use_dynamic_rules) are
 * refused with the launch setting that would do it, unless they already
 * hold the value asked for: a tuner states what a candidate needs, and
 * a launch that set it passes. */
#include <stdlib.h>
#include <string.h>

#include "pb_mpi_priv.h"

static int mpit_on(pb_mpi_state_t *st, pb_err_t *err)
{
    int provided = 0;
    if (st->mpit)
        return PB_OK;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return pb_err_set(err, PB_ERUNTIME, "MPI_T_init_thread failed: this MPI's control "
                          "variables cannot be set");
    st->mpit = 1;
    return PB_OK;
}

/* A variable's value as an int, whether the MPI keeps an int or a C
 * bool (Open MPI's switches, coll_tuned_use_dynamic_rules among them). */
static int cvar_get(MPI_T_cvar_handle h, int is_bool, int *v)
{
    _Bool b = 0;
    int rc = is_bool ? MPI_T_cvar_read(h, &b) : MPI_T_cvar_read(h, v);
    if (is_bool)
        *v = b;
    return rc;
}

static int cvar_put(MPI_T_cvar_handle h, int is_bool, int v)
{
    _Bool b = v != 0;
    return is_bool ? MPI_T_cvar_write(h, &b) : MPI_T_cvar_write(h, &v);
}

/* The variable's first value, read once and kept. */
static int original(pb_mpi_state_t *st, int idx, MPI_T_cvar_handle h, int is_bool, int *v,
                    pb_err_t *err)
{
    for (int i = 0; i < st->nkept; i++)
        if (st->kept[i].idx == idx) {
            *v = st->kept[i].value;
            return PB_OK;
        }
    if (st->nkept == PB_MPI_KNOBS)
        return pb_err_set(err, PB_EINPUT, "more than %d MPI control variables changed in one run",
                          PB_MPI_KNOBS);
    if (cvar_get(h, is_bool, v) != MPI_SUCCESS)
        return pb_err_set(err, PB_ERUNTIME, "MPI_T_cvar_read failed");
    st->kept[st->nkept].idx = idx;
    st->kept[st->nkept++].value = *v;
    return PB_OK;
}

/* The variable named, checked an integer or a bool (*is_bool); its
 * handle, and whether it is fixed while the process runs (*ro). */
static int open_var(const char *name, int *idx, MPI_T_cvar_handle *h, int *ro, int *is_bool,
                    pb_err_t *err)
{
    char nm[256], desc[8];
    int nl = sizeof nm, dl = sizeof desc, verb = 0, bind = 0, scope = 0, count = 0;
    MPI_Datatype dt;
    MPI_T_enum en;
    if (MPI_T_cvar_get_index(name, idx) != MPI_SUCCESS)
        return pb_err_set(err, PB_EINPUT, "this MPI has no control variable %s", name);
    if (MPI_T_cvar_get_info(*idx, nm, &nl, &verb, &dt, &en, desc, &dl, &bind, &scope) !=
        MPI_SUCCESS)
        return pb_err_set(err, PB_ERUNTIME, "MPI_T_cvar_get_info(%s) failed", name);
    *ro = scope == MPI_T_SCOPE_CONSTANT || scope == MPI_T_SCOPE_READONLY;
    *is_bool = dt == MPI_C_BOOL;
    if ((dt != MPI_INT && dt != MPI_C_BOOL) || bind != MPI_T_BIND_NO_OBJECT)
        return pb_err_set(err, PB_EINPUT, "%s is not a plain integer variable", name);
    if (MPI_T_cvar_handle_alloc(*idx, NULL, h, &count) != MPI_SUCCESS || count != 1)
        return pb_err_set(err, PB_ERUNTIME, "MPI_T_cvar_handle_alloc(%s) failed", name);
    return PB_OK;
}

int pb_mpi_knob(pb_backend_t *be, const char *name, const char *value, pb_err_t *err)
{
    pb_mpi_state_t *st = be->priv;
    MPI_T_cvar_handle h;
    int idx = -1, v = 0, now = 0, ro = 0, is_bool = 0, code = mpit_on(st, err);
    if (code == PB_OK)
        code = open_var(name, &idx, &h, &ro, &is_bool, err);
    if (code != PB_OK)
        return code;
    code = original(st, idx, h, is_bool, &v, err);
    if (code == PB_OK && value != NULL) {
        char *end = NULL;
        long x = strtol(value, &end, 10);
        if (end == value || *end != '\0' || x < -2147483647L || x > 2147483647L)
            code = pb_err_set(err, PB_EINPUT, "%s takes an integer, not '%s'", name, value);
        v = (int)x;
    }
    if (code == PB_OK && ro && cvar_get(h, is_bool, &now) != MPI_SUCCESS)
        code = pb_err_set(err, PB_ERUNTIME, "MPI_T_cvar_read(%s) failed", name);
    else if (code == PB_OK && ro && now != v)
        code = pb_err_set(err, PB_EINPUT, "%s cannot change in a running process: set "
                          "OMPI_MCA_%s=%d at launch", name, name, v);
    else if (code == PB_OK && !ro && cvar_put(h, is_bool, v) != MPI_SUCCESS)
        code = pb_err_set(err, PB_EINPUT, "MPI_T_cvar_write(%s, %d) refused", name, v);
    MPI_T_cvar_handle_free(&h);
    return code;
}

void pb_mpi_knob_fini(pb_mpi_state_t *st)
{
    if (st->mpit)
        MPI_T_finalize();
    st->mpit = 0;
}
