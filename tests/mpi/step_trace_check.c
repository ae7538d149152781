/* step_trace_check TRACE WORLD PP M V [1f1b]
 *
 * Reads the Chrome trace `parbench step --trace` wrote (jansson) and
 * checks the schedule that really ran, rank by rank:
 *  - every (micro-batch, chunk) has exactly one forward and one backward
 *    pass on every rank, the backward after the forward;
 *  - causality along the pipeline: a forward that takes an activation
 *    starts only after the pass that produced it ended on the previous
 *    stage (stage s-1, same chunk; with interleaving, stage p-1 of chunk
 *    c-1 feeds stage 0 of chunk c), and a backward that takes a gradient
 *    only after the producing backward ended on the next stage.  On one
 *    host every rank's times share one clock (the trace is aligned on
 *    CLOCK_MONOTONIC), so the order is exact;
 *  - with `1f1b` (p = 2, m = 4, v = 1): each stage's sequence of passes
 *    and exchanges equals the one derived by hand from Megatron-LM's
 *    forward_backward_pipelining_without_interleaving (below).
 * Ranks are in Megatron order, pipeline outermost: rank r is on stage
 * r / (WORLD / PP), and its pipeline neighbours are r +- WORLD / PP. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXR 64
#define MAXEV 512

typedef struct ev {
    char name[64];
    int fwd, bwd, mb, chunk;
    double t0, t1;
} ev_t;

typedef struct trace {
    ev_t ev[MAXR][MAXEV];
    int n[MAXR];
} trace_t;

static int fail(const char *msg, int rank, const char *what)
{
    fprintf(stderr, "FAIL: %s (rank %d: %s)\n", msg, rank, what);
    return 1;
}

static int load(trace_t *t, const char *path)
{
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (root == NULL) {
        fprintf(stderr, "FAIL: %s: %s (line %d)\n", path, je.text, je.line);
        return 1;
    }
    json_t *arr = json_object_get(root, "traceEvents");
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (ph == NULL || strcmp(ph, "X") != 0)
            continue;
        int pid = (int)json_integer_value(json_object_get(e, "pid"));
        if (pid < 0 || pid >= MAXR || t->n[pid] >= MAXEV)
            continue;
        ev_t *v = &t->ev[pid][t->n[pid]++];
        snprintf(v->name, sizeof v->name, "%s", json_string_value(json_object_get(e, "name")));
        v->t0 = json_number_value(json_object_get(e, "ts"));
        v->t1 = v->t0 + json_number_value(json_object_get(e, "dur"));
        v->fwd = strncmp(v->name, "fwd", 3) == 0;
        v->bwd = strncmp(v->name, "bwd", 3) == 0;
        json_t *args = json_object_get(e, "args");
        json_t *mb = json_object_get(args, "mb"), *ch = json_object_get(args, "chunk");
        v->mb = mb ? (int)json_integer_value(mb) : -1;
        v->chunk = ch ? (int)json_integer_value(ch) : 0;
    }
    json_decref(root);
    return 0;
}

static const ev_t *find(const trace_t *t, int r, int fwd, int mb, int chunk)
{
    for (int i = 0; i < t->n[r]; i++) {
        const ev_t *v = &t->ev[r][i];
        if ((fwd ? v->fwd : v->bwd) && v->mb == mb && v->chunk == chunk)
            return v;
    }
    return NULL;
}

/* 1F1B, p = 2, m = 4.  Stage 0 warms up with p - s - 1 = 1 forward whose
 * activation goes out alone; the steady state sends each new activation
 * while receiving the oldest gradient (a stage-0 backward sends nothing
 * back); the cool-down receives the last gradient.  Stage 1 (the last)
 * has no warm-up: it receives an activation, and after each backward
 * sends the gradient back while receiving the next activation. */
static const char *const hand_1f1b[2] = {
    "fwd mb 0|xchg send_next|fwd mb 1|xchg send_next+recv_next|bwd mb 0|fwd mb 2|"
    "xchg send_next+recv_next|bwd mb 1|fwd mb 3|xchg send_next+recv_next|bwd mb 2|"
    "xchg recv_next|bwd mb 3|",
    "xchg recv_prev|fwd mb 0|bwd mb 0|xchg recv_prev+send_prev|fwd mb 1|bwd mb 1|"
    "xchg recv_prev+send_prev|fwd mb 2|bwd mb 2|xchg recv_prev+send_prev|fwd mb 3|bwd mb 3|"
    "xchg send_prev|"};

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: step_trace_check TRACE WORLD PP M V [1f1b]\n");
        return 2;
    }
    int world = atoi(argv[2]), p = atoi(argv[3]), m = atoi(argv[4]), v = atoi(argv[5]);
    int hand = argc > 6 && strcmp(argv[6], "1f1b") == 0;
    trace_t *t = calloc(1, sizeof *t);
    if (t == NULL || world < 1 || world > MAXR || p < 1 || world % p || load(t, argv[1]))
        return 2;
    int stride = world / p, bad = 0;
    for (int r = 0; r < world; r++) {
        int s = r / stride;
        if (t->n[r] == 0)
            bad |= fail("no events", r, "-");
        for (int mb = 0; mb < m; mb++)
            for (int c = 0; c < v; c++) {
                int nf = 0, nb = 0;
                for (int i = 0; i < t->n[r]; i++) {
                    nf += t->ev[r][i].fwd && t->ev[r][i].mb == mb && t->ev[r][i].chunk == c;
                    nb += t->ev[r][i].bwd && t->ev[r][i].mb == mb && t->ev[r][i].chunk == c;
                }
                const ev_t *f = find(t, r, 1, mb, c), *b = find(t, r, 0, mb, c);
                if (nf != 1 || nb != 1 || b->t0 < f->t1)
                    bad |= fail("not one forward then one backward per micro-batch", r, "");
                if (nf != 1 || nb != 1)
                    continue;
                /* the producer of this forward's input, and of this backward's gradient */
                int ps = s > 0 ? s - 1 : p - 1, pc = s > 0 ? c : c - 1;
                if (pc >= 0) {
                    const ev_t *src = find(t, r + (ps - s) * stride, 1, mb, pc);
                    if (src == NULL || f->t0 < src->t1)
                        bad |= fail("a forward started before its activation was produced", r,
                                    f->name);
                }
                int ns = s < p - 1 ? s + 1 : 0, nc = s < p - 1 ? c : c + 1;
                if (nc < v) {
                    const ev_t *src = find(t, r + (ns - s) * stride, 0, mb, nc);
                    if (src == NULL || b->t0 < src->t1)
                        bad |= fail("a backward started before its gradient was produced", r,
                                    b->name);
                }
            }
        if (hand && p == 2 && m == 4 && v == 1) {
            char seq[2048] = "";
            for (int i = 0; i < t->n[r]; i++)
                if (strncmp(t->ev[r][i].name, "dp", 2) != 0) {
                    strncat(seq, t->ev[r][i].name, sizeof seq - strlen(seq) - 2);
                    strcat(seq, "|");
                }
            if (strcmp(seq, hand_1f1b[s]) != 0) {
                fprintf(stderr, "rank %d ran:      %s\nMegatron's 1F1B: %s\n", r, seq,
                        hand_1f1b[s]);
                bad |= fail("the pipeline order is not 1F1B's", r, "sequence");
            }
        }
    }
    free(t);
    if (bad)
        return 1;
    printf("ok: %d ranks, %d stages, %d micro-batches x %d chunks: every pass once, in causal "
           "order%s\n", world, p, m, v, hand ? ", 1F1B's exact sequence" : "");
    return 0;
}
