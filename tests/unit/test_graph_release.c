/* A captured graph refers to the buffers it was captured on, so
 * pb_bufs_free must have the backend destroy the graph before it frees
 * them.  A fake backend (a communication side with graphs, a memory side
 * that frees) logs the calls in order; graph_release is called only
 * where the capability mask says the backend has graphs. */
#include <string.h>

#include "bench/run/pb_exec.h"
#include "pb_test.h"

typedef struct {
    char log[64]; /* one letter per call: G graph released, F buffer freed */
    int n;
} calls_t;

static void fake_free(pb_backend_t *be, void *ptr)
{
    (void)ptr;
    calls_t *c = be->priv;
    c->log[c->n++] = 'F';
}

static void fake_release(pb_group_t *g)
{
    calls_t *c = g->be->priv;
    c->log[c->n++] = 'G';
}

int main(void)
{
    calls_t calls;
    memset(&calls, 0, sizeof calls);
    pb_comm_ops_t comm;
    pb_mem_ops_t mem;
    memset(&comm, 0, sizeof comm);
    memset(&mem, 0, sizeof mem);
    mem.free = fake_free;
    comm.graph_release = fake_release;
    pb_backend_t be;
    memset(&be, 0, sizeof be);
    be.comm = &comm;
    be.mem = &mem;
    be.caps = PB_CAP_GRAPH;
    be.priv = &calls;
    pb_group_t g;
    memset(&g, 0, sizeof g);
    g.be = &be;
    g.size = 1;
    int send = 0, recv = 0;
    pb_bufs_t b;
    memset(&b, 0, sizeof b);
    b.send = &send;
    b.recv = &recv;
    pb_bufs_free(&g, &b);
    /* the graph first, then both buffers */
    CHECK(strcmp(calls.log, "GFF") == 0);
    CHECK(b.send == NULL && b.recv == NULL);

    /* a backend without graphs (the MPI one): buffers freed, nothing else;
     * the pointer left in place shows that the mask, not the pointer, is
     * what is asked */
    memset(&calls, 0, sizeof calls);
    be.caps = 0;
    b.send = &send;
    b.recv = &recv;
    pb_bufs_free(&g, &b);
    CHECK(strcmp(calls.log, "FF") == 0);
    PB_TEST_END("unit_graph_release");
}
