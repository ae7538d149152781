/* A captured graph refers to the buffers it was captured on, so
 * pb_bufs_free must have the backend destroy the graph before it frees
 * them.  A fake backend logs the calls in order. */
#include <string.h>

#include "bench/pb_exec.h"
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
    pb_backend_ops_t ops;
    memset(&ops, 0, sizeof ops);
    ops.free = fake_free;
    ops.graph_release = fake_release;
    pb_backend_t be = {&ops, &calls};
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

    /* a backend without graphs (the MPI one): buffers freed, nothing else */
    memset(&calls, 0, sizeof calls);
    ops.graph_release = NULL;
    b.send = &send;
    b.recv = &recv;
    pb_bufs_free(&g, &b);
    CHECK(strcmp(calls.log, "FF") == 0);
    PB_TEST_END("unit_graph_release");
}
