/* test_tune_csv.c - reports/pb_tune_csv: tune.csv as libcsv reads it
 * back.  Two rows written by hand: a measured candidate (its numbers
 * bare, strings quoted, a comma inside the note kept in its field) and
 * one left out by the budget (its times and ratios empty, not 0, so no
 * reader takes them for a time). */
#include "reports/pb_tune_csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/pb_csv_records.h"
#include "pb_test.h"

typedef struct got {
    size_t nheader, nrows;
    char cell[3][18][64];
} got_t;

static int on_rec(void *arg, size_t line, const pb_csv_rec_t *rec, pb_err_t *err)
{
    (void)line, (void)err;
    got_t *g = arg;
    size_t r = g->nheader ? g->nrows + 1 : 0;
    if (g->nheader == 0)
        g->nheader = rec->nfields;
    else
        g->nrows++;
    for (size_t i = 0; i < rec->nfields && i < 18 && r < 3; i++)
        snprintf(g->cell[r][i], sizeof g->cell[r][i], "%s", rec->field[i]);
    return PB_OK;
}

int main(void)
{
    char path[] = "/tmp/pb_tune_csv_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    pb_tune_row_t rows[2];
    memset(rows, 0, sizeof rows);
    pb_tune_row_t *a = &rows[0], *b = &rows[1];
    snprintf(a->run_id, sizeof a->run_id, "R1");
    snprintf(a->backend, sizeof a->backend, "mpi");
    snprintf(a->setting, sizeof a->setting, "coll_tuned_allreduce_algorithm=4");
    snprintf(a->group, sizeof a->group, "tp");
    a->group_size = 2;
    snprintf(a->collective, sizeof a->collective, "allreduce");
    a->bytes = 67108864;
    snprintf(a->dtype, sizeof a->dtype, "bfloat16");
    a->count = 131072;
    a->pairs = 10;
    a->default_us = 100.0;
    a->candidate_us = 150.0;
    a->ratio = 1.5;
    a->ratio_lo = 1.25;
    a->ratio_hi = 1.75;
    snprintf(a->verdict, sizeof a->verdict, "slower");
    a->wrong = 0;
    snprintf(a->note, sizeof a->note, "cut, then resumed");
    *b = *a;
    b->pairs = 0;
    b->wrong = -1;
    snprintf(b->verdict, sizeof b->verdict, "not measured");
    snprintf(b->note, sizeof b->note, "budget");
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_tune_csv_write(path, rows, 2, &err) == PB_OK);
    got_t g;
    memset(&g, 0, sizeof g);
    CHECK(pb_csv_parse_table(path, on_rec, &g, &g.nheader, &err) == PB_OK);
    CHECK(g.nheader == 18 && g.nrows == 2);
    CHECK(strcmp(g.cell[0][12], "ratio") == 0 && strcmp(g.cell[0][15], "verdict") == 0);
    CHECK(strcmp(g.cell[1][2], "coll_tuned_allreduce_algorithm=4") == 0);
    CHECK(strcmp(g.cell[1][6], "67108864") == 0 && strcmp(g.cell[1][8], "131072") == 0);
    CHECK(strcmp(g.cell[1][12], "1.5") == 0 && strcmp(g.cell[1][13], "1.25") == 0);
    CHECK(strcmp(g.cell[1][16], "0") == 0 && strcmp(g.cell[1][17], "cut, then resumed") == 0);
    /* not measured: pairs 0, every number empty, wrong unknown */
    CHECK(strcmp(g.cell[2][9], "0") == 0 && g.cell[2][10][0] == '\0' && g.cell[2][12][0] == '\0');
    CHECK(strcmp(g.cell[2][15], "not measured") == 0 && g.cell[2][16][0] == '\0');
    unlink(path);
    /* a file that cannot be written is named */
    CHECK(pb_tune_csv_write("/nonexistent-dir/t.csv", rows, 1, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "/nonexistent-dir/t.csv") != NULL);
    PB_TEST_END("unit_tune_csv");
}
