/* The NCCL-API communication side: collectives on device memory, one
 * rank per GPU, as nccl (NCCL on CUDA) and rccl (RCCL on HIP): RCCL has
 * NCCL's API, so the two tables share every function but the opening of
 * their runtime and library.  Its buffers, fills, checks and compute
 * stand-in are the GPU memory side's (pb_gpu_mem.c), ordered on this
 * side's streams.
 *
 * The control world (pb_ctl.h: MPI ranks, or the threads of --gpus N)
 * bootstraps it (the unique id travels by its broadcast, the local rank
 * picks the GPU) and stays the host control plane; every data movement
 * is the library's, on a dedicated stream per group.  Timing is the
 * runtime's events on that stream.  Waiting is polling with a deadline,
 * so a hang is reported with what hung instead of blocking forever.
 *
 * This file: the library, the communicators and the ops tables; the
 * collectives are pb_nccl_colls.c's, the stream's waiting, timing and
 * graphs pb_nccl_stream.c's (pb_nccl_priv.h).  The library is opened at
 * run time, never linked (pb_nccl_lib.h), and so is HIP (pb_gpurt.h):
 * every call goes through the tables in the backend's state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_gpu_bind.h"
#include "pb_nccl_priv.h"
#include "pb_nccl_ver.h"

int pb_nccl_gpu_fail(const pb_gpurt_t *rt, int rc, const char *call, pb_err_t *err)
{
    return pb_err_set(err, PB_ERUNTIME, "%s%s failed: %s (%d)", rt->name, call,
                      rt->err_string(rt, rc), rc);
}

int pb_nccl_fail(const pb_nccl_lib_t *lib, ncclResult_t rc, const char *call, pb_err_t *err)
{
    return pb_err_set(err, PB_ERUNTIME, "%s failed: %s", call, lib->GetErrorString(rc));
}

/* Opens the vendor's runtime: CUDA's for nccl, HIP's for rccl (where
 * this build has it). */
static int rt_open(const pb_nccl_vendor_t *vd, pb_gpurt_t *rt, char *why, size_t len)
{
    if (vd->rocm) {
#ifdef PARBENCH_HAVE_HIP
        return pb_gpurt_hip_open(rt, why, len);
#else
        snprintf(why, len, "the rccl backend needs a build with HIP");
        return -1;
#endif
    }
#ifdef PARBENCH_HAVE_CUDA
    return pb_gpurt_cuda_open(rt, why, len);
#else
    snprintf(why, len, "the nccl backend needs a build with CUDA");
    return -1;
#endif
}

/* "no CUDA device: ..." / "no AMD GPU: ...": the runtime answers, but
 * with no device or an error code, named. */
static int gpu_available(const pb_gpurt_t *rt, char *why, size_t len)
{
    int n = 0;
    const char *none = rt->vendor == PB_GPU_AMD ? "no AMD GPU" : "no CUDA device";
    int rc = rt->device_count(rt, &n);
    if (rc != 0) {
        /* CUDA: 35 (driver too old / none) and 100 (no device) are "no
         * GPU"; HIP: 100 (hipErrorNoDevice) likewise */
        snprintf(why, len, "%s: %sGetDeviceCount returned %d (%s)", none, rt->name, rc,
                 rt->err_string(rt, rc));
        return 0;
    }
    if (n == 0) {
        snprintf(why, len, "%s: %sGetDeviceCount found 0 devices", none, rt->name);
        return 0;
    }
    return 1;
}

/* nccl: the library first: a missing, old or incomplete NCCL is the
 * reason given also on a machine without a GPU, where it is checked too.
 * rccl: an AMD GPU in the kernel's KFD topology (before HIP is loaded:
 * pb_gpurt.h), the runtime, a device it can use, then the library: "no
 * AMD GPU" and "no HIP runtime" say more on a machine without an AMD GPU
 * or without ROCm than the library's absence, which follows from them. */
static int vendor_available(const pb_nccl_vendor_t *vd, const pb_backend_config_t *cfg,
                            char *why, size_t len)
{
    pb_nccl_lib_t lib;
    pb_gpurt_t rt;
    if (!vd->rocm && pb_nccl_lib_open(vd, cfg->lib_path, &lib, why, len) != 0)
        return 0;
    if (!vd->rocm)
        pb_nccl_lib_close(&lib);
    if (rt_open(vd, &rt, why, len) != 0)
        return 0;
    int ok = gpu_available(&rt, why, len);
    pb_gpurt_close(&rt);
    if (!ok || !vd->rocm)
        return ok;
    if (pb_nccl_lib_open(vd, cfg->lib_path, &lib, why, len) != 0)
        return 0;
    pb_nccl_lib_close(&lib);
    return 1;
}

static int nccl_available(const pb_backend_config_t *cfg, char *why, size_t len)
{
    return vendor_available(&pb_nccl_vendor_nvidia, cfg, why, len);
}

static int rccl_available(const pb_backend_config_t *cfg, char *why, size_t len)
{
    return vendor_available(&pb_nccl_vendor_amd, cfg, why, len);
}

static void nccl_finalize(pb_backend_t *be)
{
    pb_nccl_state_t *st = be->priv;
    if (st == NULL)
        return;
    pb_nccl_lib_close(&st->lib);
    pb_gpurt_close(&st->gpurt);
    free(st);
    be->priv = NULL;
}

static int init_state(pb_nccl_state_t *st, const pb_backend_config_t *cfg, pb_err_t *err)
{
    char why[480];
    st->timeout_s = cfg->timeout_s;
    if (rt_open(st->vendor, &st->gpurt, why, sizeof why) != 0)
        return pb_err_set(err, PB_EINPUT, "%s", why);
    st->rt = &st->gpurt;
    /* the library's version, not the header's, is checked by the open:
     * they differ when parbench runs with another libnccl.so.2 than the
     * one it was built against */
    if (pb_nccl_lib_open(st->vendor, cfg->lib_path, &st->lib, why, sizeof why) != 0 ||
        !gpu_available(st->rt, why, sizeof why))
        return pb_err_set(err, PB_EINPUT, "%s", why);
    st->world = cfg->ctl;
    /* one rank per GPU: local rank modulo the visible devices, so that
     * per-rank binding (each rank sees one GPU) works too; two ranks of a
     * node on one GPU are refused by bus id (pb_gpu_pick.h) */
    char bus[32] = "?";
    int code = pb_gpu_bind_local(st->rt, st->world, &st->device, bus, sizeof bus, err);
    pb_gpu_props_t props;
    /* fp8's check (supports()): unknown prints as 0.x and is refused */
    if (code == PB_OK && st->rt->vendor == PB_GPU_NVIDIA &&
        st->rt->props(st->rt, st->device, &props) == 0)
        st->cc_major = props.cc_major;
    return code;
}

static int vendor_init(const pb_nccl_vendor_t *vd, pb_backend_t *be,
                       const pb_backend_config_t *cfg, pb_err_t *err)
{
    pb_nccl_state_t *st = calloc(1, sizeof *st);
    if (st == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for the %s backend", vd->lib_name);
    st->vendor = vd;
    be->priv = st;
    int code = init_state(st, cfg, err);
    /* pb_backend_open forgets a backend whose init failed: free it here */
    if (code != PB_OK)
        nccl_finalize(be);
    return code;
}

static int nccl_init(pb_backend_t *be, const pb_backend_config_t *cfg, pb_err_t *err)
{
    return vendor_init(&pb_nccl_vendor_nvidia, be, cfg, err);
}

static int rccl_init(pb_backend_t *be, const pb_backend_config_t *cfg, pb_err_t *err)
{
    return vendor_init(&pb_nccl_vendor_amd, be, cfg, err);
}

static void nccl_version(pb_backend_t *be, char *buf, size_t len)
{
    const pb_nccl_state_t *st = be->priv;
    const pb_gpurt_t *r = st->rt;
    int rt = 0, drv = 0;
    /* a failed query prints as 0.0 */
    if (r->runtime_version(r, &rt) != 0)
        rt = 0;
    if (r->driver_version(r, &drv) != 0)
        drv = 0;
    pb_nccl_ver_t v = pb_nccl_version_decode(st->lib.version);
    if (r->vendor == PB_GPU_AMD) {
        /* HIP's versions are major * 10^7 + minor * 10^5 + patch */
        snprintf(buf, len, "RCCL %d.%d.%d from %s, HIP runtime %d.%d from %s", v.major, v.minor,
                 v.patch, st->lib.path, rt / 10000000, rt / 100000 % 100, r->path);
        return;
    }
    snprintf(buf, len,
             "NCCL %d.%d.%d (header %d.%d.%d) from %s, CUDA runtime %d.%d, driver %d.%d",
             v.major, v.minor, v.patch, NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH, st->lib.path,
             rt / 1000, rt % 1000 / 10, drv / 1000, drv % 1000 / 10);
}

static void group_destroy(pb_group_t *g)
{
    if (g == NULL)
        return;
    pb_nccl_group_t *gg = g->priv;
    if (gg) {
        /* teardown: a failure here could only repeat an earlier one */
        const pb_gpurt_t *rt = pb_nccl_rt_of(g);
        pb_nccl_release_stall(gg);
        if (gg->stream)
            (void)rt->stream_sync(rt, gg->stream);
        if (gg->exec)
            (void)rt->graph_exec_destroy(rt, gg->exec);
        if (gg->graph)
            (void)rt->graph_destroy(rt, gg->graph);
        for (int i = 0; i < PB_NCCL_MARKS; i++)
            if (gg->marks[i])
                (void)rt->event_destroy(rt, gg->marks[i]);
        if (gg->scratch)
            (void)rt->free(rt, gg->scratch);
        /* a group being freed has nothing left to report: a failed
         * destroy leaves nothing to undo */
        if (gg->comm)
            (void)pb_nccl_lib_of(g)->CommDestroy(gg->comm);
        if (gg->stream)
            (void)rt->stream_destroy(rt, gg->stream);
        if (gg->stall_release)
            (void)rt->host_free(rt, (void *)gg->stall_release);
        free(gg);
    }
    free(g);
}

/* Takes ownership of comm. */
static int group_wrap(pb_backend_t *be, ncclComm_t comm, pb_group_t **out, pb_err_t *err)
{
    const pb_nccl_lib_t *lib = &((const pb_nccl_state_t *)be->priv)->lib;
    const pb_gpurt_t *rt = ((const pb_nccl_state_t *)be->priv)->rt;
    pb_group_t *g = calloc(1, sizeof *g);
    pb_nccl_group_t *gg = calloc(1, sizeof *gg);
    if (g == NULL || gg == NULL) {
        free(g);
        free(gg);
        /* the out-of-memory is the error reported */
        (void)lib->CommDestroy(comm);
        return pb_err_set(err, PB_ERUNTIME, "out of memory for a group");
    }
    g->be = be;
    g->priv = gg;
    gg->comm = comm;
    *out = g;
    int code = PB_OK;
    int rc = rt->stream_create(rt, &gg->stream); /* non-blocking (pb_gpurt.h) */
    for (int i = 0; i < PB_NCCL_MARKS && rc == 0; i++)
        rc = rt->event_create(rt, &gg->marks[i]);
    void *scratch = NULL;
    if (rc == 0)
        rc = rt->malloc(rt, &scratch, sizeof *gg->scratch);
    gg->scratch = scratch;
    if (rc != 0)
        code = pb_err_set(err, PB_ERUNTIME,
                          "creating a group's stream, events and scratch failed: %s (%d)",
                          rt->err_string(rt, rc), rc);
    ncclResult_t nrc = ncclSuccess;
    if (code == PB_OK && (nrc = lib->CommUserRank(comm, &g->rank)) == ncclSuccess)
        nrc = lib->CommCount(comm, &g->size);
    if (code == PB_OK && nrc != ncclSuccess)
        code = pb_nccl_fail(lib, nrc, "ncclCommUserRank/Count", err);
    if (code != PB_OK) {
        group_destroy(g);
        *out = NULL;
    }
    return code;
}

static int nccl_world(pb_backend_t *be, pb_group_t **out, pb_err_t *err)
{
    pb_nccl_state_t *st = be->priv;
    const pb_nccl_lib_t *lib = &st->lib;
    int rank = st->world->rank, size = st->world->size;
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    ncclResult_t rc = rank == 0 ? lib->GetUniqueId(&id) : ncclSuccess;
    /* rank 0's failure must not leave the others waiting for an id */
    int ok = rc == ncclSuccess;
    if (pb_ctl_bcast(st->world, &ok, sizeof ok, 0) != PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "the exchange of the NCCL id's state failed");
    if (!ok)
        return rank == 0 ? pb_nccl_fail(lib, rc, "ncclGetUniqueId", err)
                         : pb_err_set(err, PB_ERUNTIME, "rank 0 could not create an NCCL id");
    if (pb_ctl_bcast(st->world, &id, sizeof id, 0) != PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "the broadcast of the NCCL id failed");
    ncclComm_t comm;
    PB_NCCL_OK(lib, lib->CommInitRank(&comm, size, id, rank), "ncclCommInitRank");
    return group_wrap(be, comm, out, err);
}

static int nccl_split(pb_group_t *parent, int color, int key, pb_group_t **out, pb_err_t *err)
{
    ncclComm_t comm = NULL;
    int code = pb_nccl_split_comm(pb_nccl_state_of(parent), pb_nccl_grp(parent)->comm,
                                  color < 0 ? NCCL_SPLIT_NOCOLOR : color, key, &comm, err);
    if (code != PB_OK)
        return code;
    if (comm == NULL) {
        *out = NULL;
        return PB_OK;
    }
    return group_wrap(parent->be, comm, out, err);
}

/* NCCL runs a one-rank reduction itself (src/device/onerank.cu,
 * ncclLaunchOneRank): a copy, or for avg a pre-multiplied sum, whose
 * host-side switch lists the fp8 types only under __CUDA_ARCH__ >= 900,
 * never true in host code; so every NCCL from 2.24.3 (fp8's first) to
 * 2.29 answers ncclInvalidArgument to an fp8 avg on one rank.  Found on
 * an H200 with NCCL 2.28.3 (doc/gpu-acceptance.md). */
static int fp8_avg_alone(pb_dtype_t t, pb_redop_t op, int nranks, char *why, size_t len)
{
    if (op != PB_AVG || nranks != 1)
        return 0;
    snprintf(why, len,
             "%s avg on a one-rank group: NCCL refuses it (ncclLaunchOneRank has no fp8 "
             "kernel on the host side)", pb_dtype_name(t));
    return 1;
}

static int supports(pb_backend_t *be, pb_dtype_t t, pb_redop_t op, int nranks, char *why,
                    size_t len)
{
    /* sum, max, min and avg: every NCCL since 2.10 */
    if (t != PB_F8E4M3 && t != PB_F8E5M2)
        return 1;
    if (fp8_avg_alone(t, op, nranks, why, len))
        return 0;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
    const pb_nccl_state_t *st = be->priv;
    if (!pb_nccl_version_at_least(st->lib.version, 2, 24)) {
        pb_nccl_ver_t v = pb_nccl_version_decode(st->lib.version);
        snprintf(why, len, "%s needs NCCL 2.24 or newer (the library loaded is %d.%d)",
                 pb_dtype_name(t), v.major, v.minor);
        return 0;
    }
    if (st->rt->vendor == PB_GPU_AMD) {
        /* RCCL's fp8 on gfx942 is the FNUZ encoding, not the OCP one the
         * checks compute: refused until verified on such a GPU */
        snprintf(why, len, "%s on RCCL is not supported by parbench yet (not verified on an "
                 "AMD GPU)", pb_dtype_name(t));
        return 0;
    }
    int major = st->cc_major; /* init's; 0 when unknown: refused with "0.x" */
    if (major >= 9)
        return 1;
    snprintf(why, len, "%s needs a GPU of compute capability 9.0 or newer (this one is %d.x)",
             pb_dtype_name(t), major);
#else
    (void)be;
    snprintf(why, len, "%s needs NCCL 2.24 or newer (built with %d.%d)", pb_dtype_name(t),
             NCCL_MAJOR, NCCL_MINOR);
#endif
    return 0;
}

static int has_in_place(pb_backend_t *be, pb_coll_t c)
{
    (void)be;
    /* NCCL defines in-place for its collectives, not for grouped
     * point-to-point: an all-to-all on one buffer would read what it
     * already overwrote */
    return c != PB_ALLTOALL && c != PB_ALLTOALLV;
}

/* Work on the group's stream returns once issued already; sync() waits. */
static int c_set_async(pb_group_t *g, int on, pb_err_t *err)
{
    (void)g;
    (void)on;
    (void)err;
    return PB_OK;
}

static void *c_stream(const pb_group_t *g) { return pb_nccl_grp(g)->stream; }

/* The GPU moves NCCL's work by itself: nothing to poll. */
static int c_progress(pb_backend_t *be, pb_err_t *err)
{
    (void)be;
    (void)err;
    return PB_OK;
}

static unsigned nccl_caps(pb_memory_t memory)
{
    (void)memory; /* device memory only */
    return PB_CAP_ASYNC | PB_CAP_GRAPH | PB_CAP_DEADLINE | PB_CAP_ROTATE;
}

/* The shared part of both tables: everything after name, description,
 * available and init. */
#define PB_NCCL_API_OPS                                                                            \
    .moves = PB_MOVES_DEVICE, \
    .caps = nccl_caps, \
    .finalize = nccl_finalize, \
    .version = nccl_version, \
    .supports = supports, \
    .has_in_place = has_in_place, \
    .world = nccl_world, \
    .split = nccl_split, \
    .group_free = group_destroy, \
    .knob = pb_nccl_knob, \
    .stream = c_stream, \
    .allreduce = pb_nccl_allreduce, \
    .allgather = pb_nccl_allgather, \
    .reduce_scatter = pb_nccl_reduce_scatter, \
    .alltoall = pb_nccl_alltoall, \
    .alltoallv = pb_nccl_alltoallv, \
    .broadcast = pb_nccl_broadcast, \
    .reduce = pb_nccl_reduce, \
    .sendrecv = pb_nccl_sendrecv, \
    .barrier = pb_nccl_barrier, \
    .p2p_batch = pb_nccl_p2p_batch, \
    .mark = pb_nccl_mark, \
    .elapsed = pb_nccl_elapsed, \
    .sync = pb_nccl_sync, \
    .progress = c_progress, \
    .set_async = c_set_async, \
    .graph_begin = pb_nccl_graph_begin, \
    .graph_end = pb_nccl_graph_end, \
    .graph_launch = pb_nccl_graph_launch, \
    .graph_release = pb_nccl_graph_release, \
    .inject_stall = pb_nccl_stall,

const pb_comm_ops_t pb_nccl_comm_ops = {
    .name = "nccl",
    .description = "NCCL on CUDA device memory, one rank per GPU",
    .available = nccl_available,
    .init = nccl_init,
    PB_NCCL_API_OPS};

/* The same backend on AMD GPUs: RCCL on HIP (pb_backend_list.def lists
 * it where the build has HIP and an NCCL-API header). */
const pb_comm_ops_t pb_rccl_comm_ops = {
    .name = "rccl",
    .description = "RCCL on HIP device memory (AMD GPUs), one rank per GPU; "
                   "--nccl-lib names its librccl",
    .available = rccl_available,
    .init = rccl_init,
    PB_NCCL_API_OPS};
