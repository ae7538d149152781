/* pb_nccl_knob.c - NCCL's settings for the communicators split next
 * (tune/pb_knob.h): the default and a candidate as two communicators of
 * one process, timed in alternation.
 *
 *  - NCCL_ALGO, NCCL_PROTO: read from the environment while a
 *    communicator is created (ncclGetEnv in ncclTopoTuneModel,
 *    src/graph/tuning.cc; not cached by NCCL_PARAM), so they are set
 *    around ncclCommSplit and put back after it.  The environment is
 *    the process's: the ranks of --gpus (threads of one process) would
 *    race on it, so there they are refused.
 *  - NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS: ncclConfig_t's minCTAs and
 *    maxCTAs (NCCL 2.17+), the same limits per communicator.
 *  - The rest (NCCL_BUFFSIZE, NCCL_NVLS_ENABLE, ...) are NCCL_PARAMs,
 *    read once per process: refused here, they need a launch each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_nccl_priv.h"

static int set_str(char *dst, size_t len, const char *name, const char *value, pb_err_t *err)
{
    if (value == NULL) {
        dst[0] = '\0';
        return PB_OK;
    }
    if (value[0] == '\0' || strlen(value) >= len)
        return pb_err_set(err, PB_EINPUT, "%s: '%s' is not a value NCCL takes", name, value);
    snprintf(dst, len, "%s", value);
    return PB_OK;
}

static int set_ctas(int *dst, const char *name, const char *value, pb_err_t *err)
{
    if (value == NULL) {
        *dst = 0;
        return PB_OK;
    }
    char *end = NULL;
    long x = strtol(value, &end, 10);
    if (end == value || *end != '\0' || x < 1 || x > 64) /* MAXCHANNELS is 64 */
        return pb_err_set(err, PB_EINPUT, "%s takes a channel count from 1 to 64, not '%s'",
                          name, value);
    *dst = (int)x;
    return PB_OK;
}

int pb_nccl_knob(pb_backend_t *be, const char *name, const char *value, pb_err_t *err)
{
    pb_nccl_state_t *st = be->priv;
    int is_env = strcmp(name, "NCCL_ALGO") == 0 || strcmp(name, "NCCL_PROTO") == 0;
    if (is_env && !pb_ctl_is_mpi(st->world) && value != NULL)
        return pb_err_set(err, PB_EINPUT, "%s per candidate needs one process per rank "
                          "(mpirun): the ranks of --gpus share one environment", name);
    if (strcmp(name, "NCCL_ALGO") == 0)
        return set_str(st->algo, sizeof st->algo, name, value, err);
    if (strcmp(name, "NCCL_PROTO") == 0)
        return set_str(st->proto, sizeof st->proto, name, value, err);
    if (strcmp(name, "NCCL_MIN_NCHANNELS") == 0)
        return set_ctas(&st->min_ctas, name, value, err);
    if (strcmp(name, "NCCL_MAX_NCHANNELS") == 0)
        return set_ctas(&st->max_ctas, name, value, err);
    return pb_err_set(err, PB_EINPUT, "NCCL reads %s once per process: it cannot change in a "
                      "running process (a launch per value sets it)", name);
}

/* name=value in the environment for one call; the old value kept in
 * `old` (NULL: there was none) and put back by env_restore. */
typedef struct env_save {
    const char *name;
    char *old;
    int set;
} env_save_t;

static int env_push(env_save_t *s, const char *name, const char *value, pb_err_t *err)
{
    s->name = name;
    s->old = NULL;
    s->set = 0;
    if (value[0] == '\0')
        return PB_OK;
    const char *o = getenv(name);
    if (o != NULL && (s->old = strdup(o)) == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    if (setenv(name, value, 1) != 0) {
        free(s->old);
        return pb_err_set(err, PB_ERUNTIME, "setenv(%s) failed", name);
    }
    s->set = 1;
    return PB_OK;
}

static void env_restore(env_save_t *s)
{
    if (!s->set)
        return;
    if (s->old != NULL)
        setenv(s->name, s->old, 1);
    else
        unsetenv(s->name);
    free(s->old);
    s->set = 0;
}

int pb_nccl_split_comm(pb_nccl_state_t *st, ncclComm_t parent, int color, int key,
                       ncclComm_t *out, pb_err_t *err)
{
    const pb_nccl_lib_t *lib = &st->lib;
    /* nccl.h's config also for RCCL: RCCL's ncclConfig_t (src/nccl.h.in,
     * ncclConfig_v21700) is a prefix of NCCL 2.28's with the same magic,
     * and RCCL's parseCommConfig (src/init.cc) reads no more than its own
     * sizeof of the size the initializer wrote */
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
    ncclConfig_t *pcfg = NULL; /* NULL: the parent's configuration */
    if (st->min_ctas || st->max_ctas) {
        if (st->min_ctas)
            cfg.minCTAs = st->min_ctas;
        if (st->max_ctas)
            cfg.maxCTAs = st->max_ctas;
        pcfg = &cfg;
    }
    env_save_t a, p;
    int code = env_push(&a, "NCCL_ALGO", st->algo, err);
    if (code == PB_OK && (code = env_push(&p, "NCCL_PROTO", st->proto, err)) != PB_OK)
        env_restore(&a);
    if (code != PB_OK)
        return code;
    ncclResult_t rc = lib->CommSplit(parent, color, key, out, pcfg);
    env_restore(&p);
    env_restore(&a);
    if (rc != ncclSuccess)
        return pb_nccl_fail(lib, rc, "ncclCommSplit", err);
    return PB_OK;
}
