#include "pb_trules.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int by_key(const void *a, const void *b)
{
    const pb_trule_t *x = a, *y = b;
    if (x->coll != y->coll)
        return x->coll < y->coll ? -1 : 1;
    if (x->comm_size != y->comm_size)
        return x->comm_size < y->comm_size ? -1 : 1;
    return x->bytes < y->bytes ? -1 : x->bytes > y->bytes ? 1 : 0;
}

static int check(const pb_trule_t *r, size_t n, pb_err_t *err)
{
    for (size_t i = 0; i < n; i++) {
        if (r[i].coll < 0 || r[i].comm_size < 1 || r[i].alg < 1 ||
            r[i].bytes > (uint64_t)LONG_MAX || r[i].comm_size == INT_MAX)
            return pb_err_set(err, PB_EINPUT, "rules file: rule %zu out of range (collective %d, "
                              "%d ranks, %" PRIu64 " B, algorithm %d)", i, r[i].coll,
                              r[i].comm_size, r[i].bytes, r[i].alg);
        if (i > 0 && by_key(&r[i - 1], &r[i]) == 0)
            return pb_err_set(err, PB_EINPUT, "rules file: two rules for collective %d on %d "
                              "ranks at %" PRIu64 " B", r[i].coll, r[i].comm_size, r[i].bytes);
    }
    return PB_OK;
}

/* The end of the run of rules from i on with the same collective (and,
 * with comm, the same communicator size). */
static size_t run_end(const pb_trule_t *r, size_t n, size_t i, int comm)
{
    size_t j = i;
    while (j < n && r[j].coll == r[i].coll && (!comm || r[j].comm_size == r[i].comm_size))
        j++;
    return j;
}

/* A rule line: the message size, the algorithm, fan-in/out, segment. */
static void rule_line(FILE *f, uint64_t bytes, int alg, const char *why)
{
    fprintf(f, "%" PRIu64 " %d %d 0", bytes, alg, alg ? PB_TRULES_FANINOUT : 0);
    fprintf(f, why ? " # %s\n" : "\n", why);
}

/* One communicator size's rules [i, j): from 0 bytes the library's own
 * decision, each rule at its bytes, back to the library's at bytes + 1. */
static void comm_rules(FILE *f, const pb_trule_t *r, size_t i, size_t j)
{
    size_t nmsg = 0;
    for (size_t k = i; k < j; k++)
        nmsg += 1 + (k + 1 == j || r[k + 1].bytes != r[k].bytes + 1);
    nmsg += r[i].bytes > 0;
    fprintf(f, "%d %zu # communicator of %d ranks\n", r[i].comm_size, nmsg, r[i].comm_size);
    if (r[i].bytes > 0)
        rule_line(f, 0, 0, NULL);
    for (size_t k = i; k < j; k++) {
        rule_line(f, r[k].bytes, r[k].alg, r[k].why);
        if (k + 1 == j || r[k + 1].bytes != r[k].bytes + 1)
            rule_line(f, r[k].bytes + 1, 0, NULL);
    }
}

/* A communicator size no rule was measured on: the library's decision. */
static void comm_default(FILE *f, int size)
{
    fprintf(f, "%d 1 # %d ranks and up to the next size: not tuned\n", size, size);
    rule_line(f, 0, 0, NULL);
}

/* One collective's communicator sizes, rules [i, j). */
static void coll_rules(FILE *f, const pb_trule_t *r, size_t i, size_t j)
{
    size_t ncomm = r[i].comm_size > 1;
    for (size_t k = i; k < j; k = run_end(r, j, k, 1)) {
        size_t e = run_end(r, j, k, 1);
        ncomm += 1 + (e == j || r[e].comm_size != r[k].comm_size + 1);
    }
    fprintf(f, "%d %zu # collective %d (COLLTYPE_T)\n", r[i].coll, ncomm, r[i].coll);
    if (r[i].comm_size > 1)
        comm_default(f, 1);
    for (size_t k = i; k < j; k = run_end(r, j, k, 1)) {
        size_t e = run_end(r, j, k, 1);
        comm_rules(f, r, k, e);
        if (e == j || r[e].comm_size != r[k].comm_size + 1)
            comm_default(f, r[k].comm_size + 1);
    }
}

int pb_trules_write(FILE *f, const char *header, pb_trule_t *rules, size_t n, pb_err_t *err)
{
    if (n > 0)
        qsort(rules, n, sizeof rules[0], by_key);
    if (check(rules, n, err) != PB_OK)
        return err->code;
    size_t ncoll = 0;
    for (size_t i = 0; i < n; i = run_end(rules, n, i, 0))
        ncoll++;
    fprintf(f, "# %s\n", header);
    fprintf(f, "# Open MPI coll/tuned dynamic rules (4.1 format): each algorithm on the exact\n"
               "# communicator and message sizes it was measured faster on; 0: the library's "
               "own choice\n");
    fprintf(f, "%zu # collectives\n", ncoll);
    for (size_t i = 0; i < n; i = run_end(rules, n, i, 0))
        coll_rules(f, rules, i, run_end(rules, n, i, 0));
    if (fflush(f) != 0 || ferror(f))
        return pb_err_set(err, PB_ERUNTIME, "writing the rules file failed");
    return PB_OK;
}
