/* Composing a backend from its two sides, checking the tables, and the
 * capability questions callers ask (pb_backend.h). */
#include "pb_backend.h"

#include <stdio.h>
#include <string.h>

#if defined(PARBENCH_HAVE_CUDA) || defined(PARBENCH_HAVE_HIP)
#include "pb_gpu_native.h"
#endif

/* A table entry: its name, where it sits, and the capability that makes
 * it required (0: always required). */
typedef struct slot {
    const char *name;
    size_t off;
    unsigned cap;
} slot_t;

#define COMM(f, cap) {#f, offsetof(pb_comm_ops_t, f), cap}
#define MEM(f, cap) {#f, offsetof(pb_mem_ops_t, f), cap}

static const slot_t comm_slots[] = {
    COMM(caps, 0), COMM(available, 0), COMM(init, 0), COMM(finalize, 0), COMM(version, 0),
    COMM(supports, 0), COMM(has_in_place, 0), COMM(world, 0), COMM(split, 0),
    COMM(group_free, 0), COMM(stream, 0), COMM(allreduce, 0), COMM(allgather, 0),
    COMM(reduce_scatter, 0), COMM(alltoall, 0), COMM(alltoallv, 0), COMM(broadcast, 0),
    COMM(reduce, 0), COMM(sendrecv, 0), COMM(barrier, 0), COMM(p2p_batch, 0), COMM(mark, 0),
    COMM(elapsed, 0), COMM(sync, 0), COMM(progress, 0), COMM(set_async, PB_CAP_ASYNC),
    COMM(set_tight, PB_CAP_TIGHT), COMM(graph_begin, PB_CAP_GRAPH),
    COMM(graph_end, PB_CAP_GRAPH), COMM(graph_launch, PB_CAP_GRAPH),
    COMM(graph_release, PB_CAP_GRAPH), COMM(inject_stall, PB_CAP_DEADLINE),
};

static const slot_t mem_slots[] = {
    MEM(init, 0), MEM(finalize, 0), MEM(alloc, 0), MEM(free, 0), MEM(copy, 0),
    MEM(mem_available, 0), MEM(device_info, 0), MEM(fill, 0), MEM(fill_red, 0),
    MEM(check, 0), MEM(poison, 0), MEM(poke, 0), MEM(busy, PB_CAP_BUSY),
};

/* Every entry is a function pointer; POSIX makes them all one size, and
 * memcpy reads one without pretending to know its type. */
static int present(const void *table, size_t off)
{
    void (*fn)(void);
    memcpy(&fn, (const char *)table + off, sizeof fn);
    return fn != NULL;
}

static int check_slots(const void *table, const char *side, const slot_t *s, size_t n,
                       unsigned caps, char *why, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if ((s[i].cap == 0 || (caps & s[i].cap)) && !present(table, s[i].off)) {
            snprintf(why, len, "%s has no %s%s", side, s[i].name,
                     s[i].cap ? ", which a capability it declares needs" : "");
            return -1;
        }
    return 0;
}

int pb_backend_check(const pb_comm_ops_t *comm, const pb_mem_ops_t *mem, char *why, size_t len)
{
    if (comm->name == NULL || comm->description == NULL || comm->caps == NULL ||
        (comm->moves & (PB_MOVES_HOST | PB_MOVES_DEVICE)) == 0) {
        snprintf(why, len, "a communication table needs a name, a description, caps and moves");
        return -1;
    }
    for (int m = PB_MEM_HOST; m <= PB_MEM_DEVICE; m++) {
        if (!(comm->moves & (1u << m)))
            continue;
        unsigned caps = comm->caps((pb_memory_t)m);
        if (caps & ~(unsigned)PB_CAP_COMM_BITS) {
            snprintf(why, len, "%s declares a memory-side capability", comm->name);
            return -1;
        }
        if (check_slots(comm, comm->name, comm_slots, sizeof comm_slots / sizeof comm_slots[0],
                        caps, why, len))
            return -1;
    }
    if (mem == NULL)
        return 0;
    if (mem->name == NULL || (mem->caps & ~(unsigned)PB_CAP_MEM_BITS)) {
        snprintf(why, len, "a memory table needs a name and memory-side capabilities only");
        return -1;
    }
    return check_slots(mem, mem->name, mem_slots, sizeof mem_slots / sizeof mem_slots[0],
                       mem->caps, why, len);
}

unsigned pb_backend_caps(const pb_comm_ops_t *comm, pb_memory_t memory)
{
    const pb_mem_ops_t *mem = pb_mem_ops_of(comm, memory);
    if (!(comm->moves & (1u << memory)) || mem == NULL)
        return 0;
    return comm->caps(memory) | mem->caps;
}

const pb_mem_ops_t *pb_mem_ops_for(pb_memory_t memory)
{
    if (memory == PB_MEM_HOST)
        return &pb_host_mem_ops;
#if defined(PARBENCH_HAVE_CUDA)
    return &pb_cuda_mem_ops;
#elif defined(PARBENCH_HAVE_HIP)
    return &pb_hip_mem_ops;
#else
    return NULL;
#endif
}

const pb_mem_ops_t *pb_mem_ops_of(const pb_comm_ops_t *comm, pb_memory_t memory)
{
#ifdef PARBENCH_HAVE_HIP
    if (memory == PB_MEM_DEVICE && strcmp(comm->name, "rccl") == 0)
        return &pb_hip_mem_ops;
#else
    (void)comm;
#endif
    return pb_mem_ops_for(memory);
}

/* Host memory is the default, not a choice, so a library that moves
 * device memory only gets that (NCCL, as ever); device memory is asked
 * for explicitly, and refused where comm cannot move it. */
int pb_backend_memory(const pb_comm_ops_t *comm, pb_memory_t asked, pb_memory_t *out,
                      pb_err_t *err)
{
    *out = asked;
    if (comm->moves & (1u << asked))
        return PB_OK;
    if (asked == PB_MEM_HOST) {
        *out = PB_MEM_DEVICE;
        return PB_OK;
    }
    return pb_err_set(err, PB_EINPUT, "--memory device: the %s backend moves host memory only",
                      comm->name);
}

int pb_backend_open(pb_backend_t *be, const pb_comm_ops_t *comm, const pb_backend_config_t *cfg,
                    pb_err_t *err)
{
    memset(be, 0, sizeof *be);
    char why[200];
    if (pb_backend_check(comm, NULL, why, sizeof why))
        return pb_err_set(err, PB_ERUNTIME, "backend table: %s", why);
    pb_backend_config_t mine = *cfg;
    if (pb_backend_memory(comm, cfg->memory, &mine.memory, err) != PB_OK)
        return err->code;
    be->comm = comm;
    be->memory = mine.memory;
    /* the communication side first: it refuses a memory it cannot move
     * here (a MPI that is not CUDA-aware) with its own reason, and binds
     * the rank to its GPU before the memory side asks for one */
    int code = comm->init(be, &mine, err);
    if (code != PB_OK) {
        memset(be, 0, sizeof *be);
        return code;
    }
    const pb_mem_ops_t *mem = pb_mem_ops_of(comm, mine.memory);
    if (mem == NULL)
        code = pb_err_set(err, PB_EINPUT, "device memory needs a build with CUDA or HIP");
    else if (pb_backend_check(comm, mem, why, sizeof why))
        code = pb_err_set(err, PB_ERUNTIME, "backend table: %s", why);
    else {
        be->mem = mem;
        code = mem->init(be, err);
    }
    if (code != PB_OK) {
        comm->finalize(be);
        memset(be, 0, sizeof *be);
        return code;
    }
    be->caps = pb_backend_caps(comm, mine.memory);
#if defined(PARBENCH_HAVE_CUDA) || defined(PARBENCH_HAVE_HIP)
    /* HIP's host fallback (no code object for this GPU) has no compute
     * stand-in: a host loop does not occupy the GPU (pb_hip_kernels.h) */
    if (mine.memory == PB_MEM_DEVICE && !pb_gpu_mem_native(be->mem_priv))
        be->caps &= ~(unsigned)PB_CAP_BUSY;
#endif
    return PB_OK;
}

void pb_backend_close(pb_backend_t *be)
{
    if (be->mem)
        be->mem->finalize(be);
    if (be->comm)
        be->comm->finalize(be);
    memset(be, 0, sizeof *be);
}

/* The line for a missing capability: what needs it, then how the chosen
 * backend falls short. */
typedef struct need {
    unsigned cap;
    const char *what;
    const char *lacks;
} need_t;

static const need_t needs[] = {
    {PB_CAP_GRAPH, "graph mode needs a backend with graphs", "has none"},
    {PB_CAP_DEADLINE, "--fault stall needs a backend that detects hangs", "does not yet"},
    {PB_CAP_BUSY, "a training step needs a backend with a compute stand-in", "has none"},
    {PB_CAP_ASYNC, "this needs a backend with an asynchronous mode", "has none here"},
    {PB_CAP_TIGHT, "this needs a backend that times its own calls", "does not"},
    {PB_CAP_DEVICE_MEM, "this needs buffers in device memory", "has none here"},
};

/* The backends of this build that have `cap` with some memory they move,
 * e.g. "nccl"; "none in this build" when none has. */
static void who_has(unsigned cap, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < pb_backend_count() && used < len; i++) {
        const pb_comm_ops_t *c = pb_backend_at(i);
        if ((pb_backend_caps(c, PB_MEM_HOST) | pb_backend_caps(c, PB_MEM_DEVICE)) & cap)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", c->name);
    }
    if (buf[0] == '\0')
        snprintf(buf, len, "none in this build");
}

int pb_backend_require(const pb_backend_t *be, unsigned caps, pb_err_t *err)
{
    unsigned missing = caps & ~be->caps;
    for (size_t i = 0; missing && i < sizeof needs / sizeof needs[0]; i++) {
        if (!(missing & needs[i].cap))
            continue;
        char who[96];
        who_has(needs[i].cap, who, sizeof who);
        return pb_err_set(err, PB_EINPUT, "%s (%s); %s %s", needs[i].what, who, be->comm->name,
                          needs[i].lacks);
    }
    return PB_OK;
}

int pb_backend_in_place(const pb_backend_t *be, pb_coll_t c)
{
    return pb_coll_has_in_place(c) && be->comm->has_in_place((pb_backend_t *)be, c);
}
