/* Backends by concern: the tables of this build, their capabilities, and
 * the one line a run gets when it needs one the chosen backend lacks.
 *
 * 1. Every registered communication side, with every memory side it can
 *    be composed with in this build, passes the completeness check (a
 *    hole would otherwise be a NULL call at run time).
 * 2. The capabilities of the real pairs, as their sources declare them:
 *    mpi on host memory can run asynchronously and times its own calls
 *    (pb_mpi_backend.c) and has the host stand-in; on device memory it
 *    loses the asynchronous mode (Open MPI's CUDA-aware support has no
 *    non-blocking collectives); nccl has graphs and its own deadline.
 * 3. pb_backend_require: the messages the CLI tests and users know
 *    ("graph mode needs a backend with graphs (nccl); mpi has none").
 * 4. The check refuses tables with a hole, and a capability declared
 *    without its operations.
 * 5. Memory resolution: host is a default (nccl gets the device), device
 *    is a request (refused by a library that moves host memory only). */
#include <string.h>

#include "collectives/pb_backend.h"
#include "pb_test.h"

static void test_registry_complete(void)
{
    CHECK(pb_backend_count() >= 1);
    for (int i = 0; i < pb_backend_count(); i++) {
        const pb_comm_ops_t *c = pb_backend_at(i);
        char why[200] = "";
        CHECK(pb_backend_check(c, NULL, why, sizeof why) == 0);
        for (int m = PB_MEM_HOST; m <= PB_MEM_DEVICE; m++) {
            const pb_mem_ops_t *mem = pb_mem_ops_for((pb_memory_t)m);
            if (!(c->moves & (1u << m)) || mem == NULL)
                continue;
            CHECK(pb_backend_check(c, mem, why, sizeof why) == 0);
        }
        CHECK(pb_backend_find(c->name) == c);
    }
    CHECK(pb_backend_find("gloo") == NULL);
    CHECK(pb_mem_ops_for(PB_MEM_HOST) == &pb_host_mem_ops);
}

static void test_real_caps(void)
{
    const pb_comm_ops_t *mpi = pb_backend_find("mpi");
    CHECK(mpi != NULL);
    if (mpi == NULL)
        return;
    CHECK(pb_backend_caps(mpi, PB_MEM_HOST) == (PB_CAP_ASYNC | PB_CAP_TIGHT | PB_CAP_BUSY));
    const pb_comm_ops_t *nccl = pb_backend_find("nccl");
    if (pb_mem_ops_for(PB_MEM_DEVICE) != NULL) {
        CHECK(pb_backend_caps(mpi, PB_MEM_DEVICE) ==
              (PB_CAP_TIGHT | PB_CAP_DEVICE_MEM | PB_CAP_BUSY));
        if (nccl != NULL) {
            /* rotate: nccl-tests moves its buffers between operations
             * (src/common.cu, startColl's shift); OSU, MPI's, does not */
            CHECK(pb_backend_caps(nccl, PB_MEM_DEVICE) ==
                  (PB_CAP_ASYNC | PB_CAP_GRAPH | PB_CAP_DEADLINE | PB_CAP_ROTATE |
                   PB_CAP_DEVICE_MEM | PB_CAP_BUSY));
            CHECK(pb_backend_caps(nccl, PB_MEM_HOST) == 0); /* NCCL moves no host memory */
        }
    } else {
        CHECK(pb_backend_caps(mpi, PB_MEM_DEVICE) == 0); /* no CUDA memory side here */
    }
}

/* A backend as pb_backend_open leaves it, without opening a library:
 * the check and require need only the tables and the mask. */
static pb_backend_t composed(const pb_comm_ops_t *comm, pb_memory_t memory)
{
    pb_backend_t be;
    memset(&be, 0, sizeof be);
    be.comm = comm;
    be.mem = pb_mem_ops_for(memory);
    be.memory = memory;
    be.caps = pb_backend_caps(comm, memory);
    return be;
}

static void test_require(void)
{
    pb_backend_t be = composed(pb_backend_find("mpi"), PB_MEM_HOST);
    /* which backends of this build have graphs and deadlines: nccl and
     * rccl where they were built (the registry lists them, in that
     * order), none otherwise */
    int has_nccl = pb_backend_find("nccl") != NULL, has_rccl = pb_backend_find("rccl") != NULL;
    const char *who = has_nccl && has_rccl ? "nccl, rccl" : has_nccl ? "nccl" : has_rccl ? "rccl"
                                                                    : "none in this build";
    char want[200];
    pb_err_t err;

    pb_err_clear(&err);
    CHECK(pb_backend_require(&be, PB_CAP_BUSY | PB_CAP_TIGHT | PB_CAP_ASYNC, &err) == PB_OK);
    CHECK(err.code == PB_OK);

    pb_err_clear(&err);
    CHECK(pb_backend_require(&be, PB_CAP_GRAPH, &err) == PB_EINPUT);
    snprintf(want, sizeof want, "graph mode needs a backend with graphs (%s); mpi has none", who);
    CHECK(strcmp(err.msg, want) == 0);

    pb_err_clear(&err);
    CHECK(pb_backend_require(&be, PB_CAP_DEADLINE, &err) == PB_EINPUT);
    snprintf(want, sizeof want,
             "--fault stall needs a backend that detects hangs (%s); mpi does not yet", who);
    CHECK(strcmp(err.msg, want) == 0);

    /* two missing: one line, about the first in the table (graphs) */
    pb_err_clear(&err);
    CHECK(pb_backend_require(&be, PB_CAP_DEADLINE | PB_CAP_GRAPH | PB_CAP_BUSY, &err) ==
          PB_EINPUT);
    CHECK(strncmp(err.msg, "graph mode", 10) == 0);

    /* in-place: mpi has every variant pb_coll defines; nccl's all-to-all
     * is grouped point-to-point, which has none */
    CHECK(pb_backend_in_place(&be, PB_ALLTOALL) == 1);
    CHECK(pb_backend_in_place(&be, PB_ALLTOALLV) == 0); /* pb_coll: no in-place form */
    const pb_comm_ops_t *nccl = pb_backend_find("nccl");
    if (nccl != NULL) {
        pb_backend_t nb = composed(nccl, PB_MEM_DEVICE);
        CHECK(pb_backend_in_place(&nb, PB_ALLTOALL) == 0);
        CHECK(pb_backend_in_place(&nb, PB_ALLREDUCE) == 1);
        pb_err_clear(&err);
        CHECK(pb_backend_require(&nb, PB_CAP_GRAPH | PB_CAP_DEADLINE | PB_CAP_BUSY, &err) ==
              PB_OK);
    }
}

static unsigned declares_graphs(pb_memory_t m)
{
    (void)m;
    return PB_CAP_GRAPH;
}

static unsigned declares_busy_mem(pb_memory_t m)
{
    (void)m;
    return PB_CAP_BUSY; /* a memory-side bit on the communication side */
}

static void test_check_refuses_holes(void)
{
    char why[200];
    pb_comm_ops_t c = *pb_backend_find("mpi");
    c.allreduce = NULL;
    CHECK(pb_backend_check(&c, NULL, why, sizeof why) == -1);
    CHECK(strcmp(why, "mpi has no allreduce") == 0);

    c = *pb_backend_find("mpi");
    c.caps = declares_graphs; /* graphs promised, none there */
    CHECK(pb_backend_check(&c, NULL, why, sizeof why) == -1);
    CHECK(strcmp(why, "mpi has no graph_begin, which a capability it declares needs") == 0);

    c = *pb_backend_find("mpi");
    c.caps = declares_busy_mem;
    CHECK(pb_backend_check(&c, NULL, why, sizeof why) == -1);

    c = *pb_backend_find("mpi");
    c.moves = 0; /* moves nothing */
    CHECK(pb_backend_check(&c, NULL, why, sizeof why) == -1);

    pb_mem_ops_t m = pb_host_mem_ops;
    m.busy = NULL; /* the stand-in promised by PB_CAP_BUSY, missing */
    CHECK(pb_backend_check(pb_backend_find("mpi"), &m, why, sizeof why) == -1);
    CHECK(strcmp(why, "host has no busy, which a capability it declares needs") == 0);
    m.caps = 0; /* without the promise the stand-in is not required */
    CHECK(pb_backend_check(pb_backend_find("mpi"), &m, why, sizeof why) == 0);
    m = pb_host_mem_ops;
    m.check = NULL;
    CHECK(pb_backend_check(pb_backend_find("mpi"), &m, why, sizeof why) == -1);
    CHECK(strcmp(why, "host has no check") == 0);
}

static void test_memory(void)
{
    pb_err_t err;
    pb_memory_t got = PB_MEM_DEVICE;
    pb_err_clear(&err);
    CHECK(pb_backend_memory(pb_backend_find("mpi"), PB_MEM_HOST, &got, &err) == PB_OK);
    CHECK(got == PB_MEM_HOST);
    /* mpi accepts the request; whether this MPI is CUDA-aware its init says */
    CHECK(pb_backend_memory(pb_backend_find("mpi"), PB_MEM_DEVICE, &got, &err) == PB_OK);
    CHECK(got == PB_MEM_DEVICE);
    const pb_comm_ops_t *nccl = pb_backend_find("nccl");
    if (nccl != NULL) {
        CHECK(pb_backend_memory(nccl, PB_MEM_HOST, &got, &err) == PB_OK);
        CHECK(got == PB_MEM_DEVICE);
    }
    pb_comm_ops_t host_only = *pb_backend_find("mpi");
    host_only.moves = PB_MOVES_HOST;
    CHECK(pb_backend_memory(&host_only, PB_MEM_DEVICE, &got, &err) == PB_EINPUT);
    CHECK(strcmp(err.msg, "--memory device: the mpi backend moves host memory only") == 0);
}

int main(void)
{
    test_registry_complete();
    test_real_caps();
    test_require();
    test_check_refuses_holes();
    test_memory();
    PB_TEST_END("unit_backend_caps");
}
