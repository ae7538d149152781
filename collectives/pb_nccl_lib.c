/* pb_nccl_lib.c - finding, opening and checking libnccl at run time
 * (pb_nccl_lib.h says why and where it is looked for). */
#define _GNU_SOURCE /* dladdr, RTLD_NODELETE */
#include "pb_nccl_lib.h"

#include <dlfcn.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_dl.h"
#include "pb_nccl_ver.h"

/* The required entry points, the member each fills and NCCL's name: first
 * those that take no stream, then those that do. */
#define PB_NCCL_NO_STREAM(X)                                                                       \
    X(GetErrorString, ncclGetErrorString)                                                          \
    X(GetUniqueId, ncclGetUniqueId)                                                                \
    X(CommInitRank, ncclCommInitRank)                                                              \
    X(CommSplit, ncclCommSplit)                                                                    \
    X(CommDestroy, ncclCommDestroy)                                                                \
    X(CommAbort, ncclCommAbort)                                                                    \
    X(CommGetAsyncError, ncclCommGetAsyncError)                                                    \
    X(CommCount, ncclCommCount)                                                                    \
    X(CommUserRank, ncclCommUserRank)                                                              \
    X(GroupStart, ncclGroupStart)                                                                  \
    X(GroupEnd, ncclGroupEnd)
#define PB_NCCL_STREAMED(X)                                                                        \
    X(AllReduce, ncclAllReduce)                                                                    \
    X(AllGather, ncclAllGather)                                                                    \
    X(ReduceScatter, ncclReduceScatter)                                                            \
    X(Reduce, ncclReduce)                                                                          \
    X(Broadcast, ncclBroadcast)                                                                    \
    X(Send, ncclSend)                                                                              \
    X(Recv, ncclRecv)
#define PB_NCCL_REQUIRED(X) PB_NCCL_NO_STREAM(X) PB_NCCL_STREAMED(X)

/* Each member has nccl.h's type: the assignment is type-checked but,
 * inside sizeof, never evaluated, so no NCCL symbol is referenced and
 * nothing is linked.  The members that take a stream are not checked:
 * they take it as void * (pb_nccl_lib.h), where nccl.h says cudaStream_t
 * and rccl.h hipStream_t, both one opaque pointer passed alike. */
#define PB_NCCL_SAME_TYPE(member, sym)                                                             \
    _Static_assert(sizeof(((pb_nccl_lib_t *)0)->member = sym) == sizeof(void *),                   \
                   #sym ": pb_nccl_lib_t's member differs from nccl.h");
PB_NCCL_NO_STREAM(PB_NCCL_SAME_TYPE)
PB_NCCL_SAME_TYPE(GetVersion, ncclGetVersion)

const pb_nccl_vendor_t pb_nccl_vendor_nvidia = {
    "NCCL", "nccl", PB_NCCL_SONAME, PB_NCCL_ENV, PB_NCCL_PY_LIB, "ncclAlltoAll", 28, 0,
};
/* RCCL: ncclAllToAll is in every version parbench takes (rccl
 * src/nccl.h.in) */
const pb_nccl_vendor_t pb_nccl_vendor_amd = {
    "RCCL", "rccl", "librccl.so.1", "PARBENCH_RCCL_LIB", NULL, "ncclAllToAll", 0, 1,
};

/* The buffers a reason passes through on its way to the caller's line:
 * "FILE: reason" with the file cut at 200 characters fits. */
#define PB_NCCL_REASON 420

typedef struct entry {
    const char *name;
    size_t off;
} entry_t;

#define PB_NCCL_ENTRY(member, sym) {#sym, offsetof(pb_nccl_lib_t, member)},
static const entry_t required[] = {PB_NCCL_REQUIRED(PB_NCCL_ENTRY)};

const char *pb_nccl_from_name(pb_nccl_from_t from)
{
    switch (from) {
    case PB_NCCL_FROM_OPTION:
        return "--nccl-lib";
    case PB_NCCL_FROM_ENV:
        return PB_NCCL_ENV; /* NCCL's; open_named names RCCL's variable */
    case PB_NCCL_FROM_LOADER:
        return "the loader's path";
    case PB_NCCL_FROM_VENV:
        return "VIRTUAL_ENV";
    case PB_NCCL_FROM_ROCM:
        return "ROCm's prefix";
    default:
        return "CONDA_PREFIX";
    }
}

static int set(pb_nccl_candidate_t *c, pb_nccl_from_t from, const char *prefix, const char *name)
{
    c->from = from;
    int n = snprintf(c->name, sizeof c->name, "%s%s", prefix, name);
    return n >= 0 && (size_t)n < sizeof c->name ? 0 : -1;
}

static int given(const char *s) { return s != NULL && s[0] != '\0'; }

int pb_nccl_lib_candidates(const pb_nccl_vendor_t *v, const char *option,
                               const char *env_lib, const char *venv, const char *conda,
                               const char *rocm,
                               pb_nccl_candidate_t out[PB_NCCL_MAX_CANDIDATES])
{
    /* a named file is the only candidate (pb_nccl_lib.h) */
    if (given(option))
        return set(&out[0], PB_NCCL_FROM_OPTION, "", option) ? -1 : 1;
    if (given(env_lib))
        return set(&out[0], PB_NCCL_FROM_ENV, "", env_lib) ? -1 : 1;
    int n = 0;
    if (set(&out[n++], PB_NCCL_FROM_LOADER, "", v->soname))
        return -1;
    if (v->py_lib != NULL) {
        /* the wheel's place in any Python 3 of the environment (glob) */
        char site[256];
        snprintf(site, sizeof site, "/lib/python3.*/site-packages/%s", v->py_lib);
        if (given(venv) && set(&out[n++], PB_NCCL_FROM_VENV, venv, site))
            return -1;
        if (given(conda) && set(&out[n++], PB_NCCL_FROM_CONDA, conda, site))
            return -1;
    }
    if (v->rocm) {
        char file[64];
        snprintf(file, sizeof file, "/lib/%s", v->soname);
        if (given(rocm) && set(&out[n++], PB_NCCL_FROM_ROCM, rocm, file))
            return -1;
        if (set(&out[n++], PB_NCCL_FROM_ROCM, "/opt/rocm", file))
            return -1;
    }
    return n;
}

void pb_nccl_lib_close(pb_nccl_lib_t *lib)
{
    if (lib->handle != NULL && dlclose(lib->handle) != 0)
        (void)dlerror(); /* nothing to undo: the handle is gone either way */
    memset(lib, 0, sizeof *lib);
}

/* After dlopen: the version first (an old library lacks newer symbols,
 * and "too old" is the better reason), then every required entry.  The
 * reason in `why` names no file: load() puts the file before it. */
static int check(const pb_nccl_vendor_t *vd, pb_nccl_lib_t *lib, const char *name, char *why,
                 size_t len)
{
    if (!pb_dl_sym(lib->handle, "ncclGetVersion", &lib->GetVersion)) {
        snprintf(lib->path, sizeof lib->path, "%s", name);
        snprintf(why, len, "not an %s library (no ncclGetVersion)", vd->lib_name);
        return -1;
    }
    Dl_info info;
    void *addr = NULL;
    memcpy(&addr, &lib->GetVersion, sizeof addr);
    /* the file the loader picked, also when it was asked for a bare name */
    snprintf(lib->path, sizeof lib->path, "%s",
             dladdr(addr, &info) != 0 && info.dli_fname != NULL ? info.dli_fname : name);
    if (lib->GetVersion(&lib->version) != ncclSuccess) {
        snprintf(why, len, "ncclGetVersion failed");
        return -1;
    }
    if (pb_nccl_version_check(lib->version, vd->lib_name, vd->backend, why, len))
        return -1;
    pb_nccl_ver_t v = pb_nccl_version_decode(lib->version);
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!pb_dl_sym(lib->handle, required[i].name, (char *)lib + required[i].off)) {
            snprintf(why, len, "%s %d.%d.%d has no %s, which the %s backend calls",
                     vd->lib_name, v.major, v.minor, v.patch, required[i].name, vd->backend);
            return -1;
        }
    if (pb_nccl_version_at_least(lib->version, 2, vd->alltoall_minor))
        (void)pb_dl_sym(lib->handle, vd->alltoall, &lib->AlltoAll); /* optional */
    return 0;
}

/* 0: loaded and checked; 1: the loader could not load `name` (its
 * message, which names the file, in `why`); -1: loaded but refused ("FILE:
 * reason" in `why`).  RTLD_NODELETE: a closed NCCL stays mapped, since
 * threads it started (the bootstrap root of ncclGetUniqueId) may outlive
 * the last communicator. */
static int load(const pb_nccl_vendor_t *vd, pb_nccl_lib_t *lib, const char *name,
                pb_nccl_from_t from, char *why, size_t len)
{
    memset(lib, 0, sizeof *lib);
    lib->from = from;
    lib->handle = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (lib->handle == NULL) {
        const char *e = dlerror();
        snprintf(why, len, "%s", e != NULL ? e : "dlopen failed");
        return 1;
    }
    char reason[200];
    if (check(vd, lib, name, reason, sizeof reason) == 0)
        return 0;
    snprintf(why, len, "%.200s: %s", lib->path, reason);
    pb_nccl_lib_close(lib);
    return -1;
}

/* --nccl-lib or PARBENCH_NCCL_LIB: that file or a refusal naming it. */
static int open_named(const pb_nccl_vendor_t *vd, const pb_nccl_candidate_t *c,
                      pb_nccl_lib_t *out, char *why, size_t len)
{
    /* as typed: "--nccl-lib FILE", "PARBENCH_NCCL_LIB=FILE" */
    const char *via = c->from == PB_NCCL_FROM_ENV ? vd->env : pb_nccl_from_name(c->from);
    const char *sep = c->from == PB_NCCL_FROM_ENV ? "=" : " ";
    if (strchr(c->name, '/') != NULL && access(c->name, F_OK) != 0) {
        snprintf(why, len, "%s%s%s: no such file", via, sep, c->name);
        return -1;
    }
    char reason[PB_NCCL_REASON];
    if (load(vd, out, c->name, c->from, reason, sizeof reason) == 0)
        return 0;
    /* the loader's reason and load()'s both begin with the file */
    snprintf(why, len, "%s%s%s", via, sep, reason);
    return -1;
}

/* The first file of a Python environment's pattern that is a good NCCL
 * library: 0; else -1 when one loaded and was refused (its reason in
 * `why`), 1 when none matched or loaded. */
static int open_glob(const pb_nccl_vendor_t *vd, const pb_nccl_candidate_t *c,
                     pb_nccl_lib_t *out, char *why, size_t len)
{
    glob_t g;
    if (glob(c->name, 0, NULL, &g) != 0) {
        globfree(&g);
        return 1; /* GLOB_NOMATCH, or a directory that cannot be read */
    }
    int rc = 1;
    char reason[PB_NCCL_REASON];
    for (size_t i = 0; i < g.gl_pathc; i++) {
        int r = load(vd, out, g.gl_pathv[i], c->from, reason, sizeof reason);
        if (r == 0 || (r < 0 && rc > 0))
            snprintf(why, len, "%s", reason);
        if (r <= 0)
            rc = r;
        if (r == 0)
            break;
    }
    globfree(&g);
    return rc;
}

/* The reason when no candidate loaded: NCCL's sentence as before,
 * RCCL's starting "no RCCL: librccl.so.1 not found". */
static void none_found(const pb_nccl_vendor_t *vd, char *why, size_t len)
{
    if (vd->rocm)
        snprintf(why, len,
                 "no %s: %s not found (not on the loader's path, in $ROCM_PATH/lib or "
                 "/opt/rocm/lib); name one with --nccl-lib PATH or %s",
                 vd->lib_name, vd->soname, vd->env);
    else
        snprintf(why, len,
                 "no NCCL library: %s is not on the loader's path and no Python environment "
                 "(VIRTUAL_ENV, CONDA_PREFIX) has one; name one with --nccl-lib PATH or %s",
                 vd->soname, vd->env);
}

int pb_nccl_lib_open(const pb_nccl_vendor_t *vd, const char *explicit_path,
                         pb_nccl_lib_t *out, char *why, size_t len)
{
    memset(out, 0, sizeof *out);
    pb_nccl_candidate_t c[PB_NCCL_MAX_CANDIDATES];
    int n = pb_nccl_lib_candidates(vd, explicit_path, getenv(vd->env), getenv("VIRTUAL_ENV"),
                                       getenv("CONDA_PREFIX"), getenv("ROCM_PATH"), c);
    if (n < 0) {
        snprintf(why, len, "the %s library's path is longer than %zu characters", vd->lib_name,
                 sizeof c[0].name - 1);
        return -1;
    }
    if (c[0].from == PB_NCCL_FROM_OPTION || c[0].from == PB_NCCL_FROM_ENV)
        return open_named(vd, &c[0], out, why, len);
    /* a library that was found but refused (too old, a symbol missing)
     * is the reason given when no later candidate is good */
    char refused[PB_NCCL_REASON] = "", reason[PB_NCCL_REASON];
    for (int i = 0; i < n; i++) {
        int glob_it = c[i].from == PB_NCCL_FROM_VENV || c[i].from == PB_NCCL_FROM_CONDA;
        int rc = glob_it ? open_glob(vd, &c[i], out, reason, sizeof reason)
                         : load(vd, out, c[i].name, c[i].from, reason, sizeof reason);
        if (rc == 0)
            return 0;
        if (rc < 0 && refused[0] == '\0')
            snprintf(refused, sizeof refused, "%s", reason);
    }
    if (refused[0] != '\0')
        snprintf(why, len, "%s; name another with --nccl-lib PATH or %s", refused, vd->env);
    else
        none_found(vd, why, len);
    return -1;
}

