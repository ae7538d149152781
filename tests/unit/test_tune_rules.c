/* test_tune_rules.c - tune/pb_trules: Open MPI's dynamic rules file as
 * `parbench tune` writes it (issue 49, item 15: a setting never reaches
 * sizes it was not measured on).
 *
 * The file is checked twice: as text, worked by hand from the format of
 * Open MPI 4.1.4's ompi/mca/coll/tuned/coll_tuned_dynamic_file.c (counts
 * of collectives, communicator sizes and rules, then "bytes algorithm
 * faninout segsize" lines, '#' to the end of a line skipped); and read
 * back the way the library reads and applies it
 * (coll_tuned_dynamic_rules.c: the last communicator size <= the
 * communicator's, the first one if all are larger; then the last rule
 * with bytes <= the message's), so that each measured size gets its
 * algorithm and every other size, communicator or collective 0 (the
 * library's own decision). */
#include "tune/pb_trules.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "pb_test.h"

#define NC 4  /* collectives, communicator sizes, rules: room to read back */
#define NS 8
#define NM 8

typedef struct rd {
    long ncoll, coll[NC], ncomm[NC], size[NC][NS], nmsg[NC][NS];
    long bytes[NC][NS][NM], alg[NC][NS][NM];
} rd_t;

/* ompi_coll_base_file_getnext_long: fscanf("%li"), skipping anything
 * else a character at a time, a '#' to the end of its line */
static int next(FILE *f, long *v)
{
    for (;;) {
        int rc = fscanf(f, "%li", v);
        if (rc == EOF)
            return -1;
        if (rc == 1)
            return 0;
        int c = fgetc(f);
        if (c == EOF)
            return -1;
        if (c == '#')
            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
    }
}

/* The reader's loops; 0 when the file reads whole, as the library
 * requires (every communicator size's rules from 0 bytes). */
static int read_back(const char *text, rd_t *r)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    long x, faninout, seg;
    int ok = f != NULL && next(f, &r->ncoll) == 0 && r->ncoll <= NC;
    for (long c = 0; ok && c < r->ncoll; c++) {
        ok = next(f, &r->coll[c]) == 0 && next(f, &r->ncomm[c]) == 0 && r->ncomm[c] <= NS;
        for (long s = 0; ok && s < r->ncomm[c]; s++) {
            ok = next(f, &r->size[c][s]) == 0 && next(f, &r->nmsg[c][s]) == 0 &&
                 r->nmsg[c][s] <= NM;
            for (long m = 0; ok && m < r->nmsg[c][s]; m++)
                ok = next(f, &r->bytes[c][s][m]) == 0 && next(f, &r->alg[c][s][m]) == 0 &&
                     next(f, &faninout) == 0 && next(f, &seg) == 0 &&
                     (m > 0 || r->bytes[c][s][m] == 0);
        }
    }
    ok = ok && next(f, &x) != 0; /* nothing after the last rule */
    if (f)
        fclose(f);
    return ok ? 0 : -1;
}

/* The algorithm the library runs: -1 when the file has no rules for the
 * collective, 0 for its own decision. */
static long pick(const rd_t *r, long coll, long comm, long bytes)
{
    for (long c = 0; c < r->ncoll; c++) {
        if (r->coll[c] != coll)
            continue;
        long s = 0, m = 0;
        for (long i = 0; i < r->ncomm[c] && r->size[c][i] <= comm; i++)
            s = i;
        for (long i = 0; i < r->nmsg[c][s] && r->bytes[c][s][i] <= bytes; i++)
            m = i;
        return r->alg[c][s][m];
    }
    return -1;
}

static pb_trule_t rule(int coll, int size, uint64_t bytes, int alg, const char *why)
{
    pb_trule_t r;
    memset(&r, 0, sizeof r);
    r.coll = coll;
    r.comm_size = size;
    r.bytes = bytes;
    r.alg = alg;
    snprintf(r.why, sizeof r.why, "%s", why);
    return r;
}

/* A TP all-reduce of 64 MiB on 2 ranks won by ring (4), a 1 KiB one on 2
 * ranks by recursive doubling (3) and its neighbour 1025 B by linear (1),
 * a 64 KiB one on 8 ranks and on 9 by basic_linear (1), an all-gather of
 * 1 MiB on 4 ranks by bruck (2); given out of order. */
static void test_file(void)
{
    pb_trule_t r[6] = {rule(2, 8, 65536, 1, "w8"), rule(0, 4, 1048576, 2, "ag"),
                       rule(2, 2, 67108864, 4, "tp"), rule(2, 2, 1024, 3, "k1"),
                       rule(2, 9, 65536, 1, "w9"), rule(2, 2, 1025, 1, "k2")};
    char buf[4096] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    pb_err_t err;
    memset(&err, 0, sizeof err);
    CHECK(f != NULL && pb_trules_write(f, "hdr", r, 6, &err) == PB_OK);
    fclose(f);
    /* allgather (0): sizes 1 (guard), 4, 5 (guard); allreduce (2): 1
     * (guard), 2, 3 (guard), 8, 9 (adjacent to 8: no guard between), 10
     * (guard); on 2 ranks 1024 and 1025 adjacent (no 0 between them),
     * then 1026 back to 0 */
    const char *want =
        "# hdr\n"
        "# Open MPI coll/tuned dynamic rules (4.1 format): each algorithm on the exact\n"
        "# communicator and message sizes it was measured faster on; 0: the library's own "
        "choice\n"
        "2 # collectives\n"
        "0 3 # collective 0 (COLLTYPE_T)\n"
        "1 1 # 1 ranks and up to the next size: not tuned\n0 0 0 0\n"
        "4 3 # communicator of 4 ranks\n0 0 0 0\n1048576 2 4 0 # ag\n1048577 0 0 0\n"
        "5 1 # 5 ranks and up to the next size: not tuned\n0 0 0 0\n"
        "2 6 # collective 2 (COLLTYPE_T)\n"
        "1 1 # 1 ranks and up to the next size: not tuned\n0 0 0 0\n"
        "2 6 # communicator of 2 ranks\n0 0 0 0\n1024 3 4 0 # k1\n1025 1 4 0 # k2\n"
        "1026 0 0 0\n67108864 4 4 0 # tp\n67108865 0 0 0\n"
        "3 1 # 3 ranks and up to the next size: not tuned\n0 0 0 0\n"
        "8 3 # communicator of 8 ranks\n0 0 0 0\n65536 1 4 0 # w8\n65537 0 0 0\n"
        "9 3 # communicator of 9 ranks\n0 0 0 0\n65536 1 4 0 # w9\n65537 0 0 0\n"
        "10 1 # 10 ranks and up to the next size: not tuned\n0 0 0 0\n";
    CHECK(strcmp(buf, want) == 0);
    if (strcmp(buf, want) != 0)
        fprintf(stderr, "got:\n%s", buf);
    rd_t rd;
    memset(&rd, 0, sizeof rd);
    CHECK(read_back(buf, &rd) == 0);
    CHECK(pick(&rd, 2, 2, 67108864) == 4); /* the TP all-reduce: ring */
    CHECK(pick(&rd, 2, 2, 67108863) == 0); /* a byte either side: not measured */
    CHECK(pick(&rd, 2, 2, 67108865) == 0);
    CHECK(pick(&rd, 2, 2, 160000000) == 0); /* a DP bucket on 2 ranks: untouched */
    CHECK(pick(&rd, 2, 3, 67108864) == 0); /* 64 MiB on 3 ranks: untouched */
    CHECK(pick(&rd, 2, 1, 67108864) == 0);
    CHECK(pick(&rd, 2, 2, 1024) == 3 && pick(&rd, 2, 2, 1025) == 1 && pick(&rd, 2, 2, 1026) == 0);
    CHECK(pick(&rd, 2, 8, 65536) == 1 && pick(&rd, 2, 9, 65536) == 1);
    CHECK(pick(&rd, 2, 10, 65536) == 0 && pick(&rd, 2, 64, 65536) == 0);
    CHECK(pick(&rd, 0, 4, 1048576) == 2 && pick(&rd, 0, 4, 1048575) == 0);
    CHECK(pick(&rd, 0, 8, 1048576) == 0);
    CHECK(pick(&rd, 3, 4, 1048576) == -1); /* all-to-all: no rules, the library's */
}

static void test_bad(void)
{
    char buf[512];
    pb_err_t err;
    memset(&err, 0, sizeof err);
    pb_trule_t twice[2] = {rule(2, 2, 64, 4, ""), rule(2, 2, 64, 3, "")};
    FILE *f = fmemopen(buf, sizeof buf, "w");
    CHECK(f != NULL && pb_trules_write(f, "h", twice, 2, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "two rules for collective 2 on 2 ranks at 64 B") != NULL);
    pb_trule_t big = rule(2, 2, (uint64_t)LONG_MAX + 1u, 4, "");
    memset(&err, 0, sizeof err);
    CHECK(pb_trules_write(f, "h", &big, 1, &err) == PB_EINPUT);
    pb_trule_t zero = rule(2, 2, 64, 0, ""); /* 0 is the library's own choice, no rule */
    memset(&err, 0, sizeof err);
    CHECK(pb_trules_write(f, "h", &zero, 1, &err) == PB_EINPUT);
    fclose(f);
    /* no rules: a file with no collective, which the library reads as such */
    char empty[512] = "";
    f = fmemopen(empty, sizeof empty - 1, "w");
    CHECK(f != NULL && pb_trules_write(f, "h", NULL, 0, &err) == PB_OK);
    fclose(f);
    rd_t rd;
    memset(&rd, 0, sizeof rd);
    CHECK(read_back(empty, &rd) == 0 && rd.ncoll == 0);
}

int main(void)
{
    test_file();
    test_bad();
    PB_TEST_END("unit_tune_rules");
}
