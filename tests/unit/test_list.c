/* test_list.c - util/pb_list: names kept once in one string. */
#include "util/pb_list.h"

#include <string.h>

#include "pb_test.h"

int main(void)
{
    char l[32] = "";
    CHECK(pb_list_add(l, sizeof l, "bf16", ", ") == 1);
    CHECK(pb_list_add(l, sizeof l, "fp8", ", ") == 1);
    CHECK(pb_list_add(l, sizeof l, "bf16", ", ") == 0); /* once */
    CHECK(strcmp(l, "bf16, fp8") == 0);
    /* whole items only: a prefix or a suffix of an item is another item */
    CHECK(pb_list_has(l, "bf16", ", ") && pb_list_has(l, "fp8", ", "));
    CHECK(!pb_list_has(l, "bf1", ", ") && !pb_list_has(l, "16", ", ") && !pb_list_has(l, "fp", ", "));
    CHECK(pb_list_add(l, sizeof l, "bf1", ", ") == 1);
    CHECK(strcmp(l, "bf16, fp8, bf1") == 0);
    CHECK(!pb_list_has(l, "", ", "));
    /* another separator */
    char c[16] = "";
    CHECK(pb_list_add(c, sizeof c, "allreduce", ",") == 1);
    CHECK(pb_list_add(c, sizeof c, "allreduce", ",") == 0);
    CHECK(strcmp(c, "allreduce") == 0);
    /* full: what does not fit is cut, the string stays a string */
    CHECK(pb_list_add(c, sizeof c, "allgather", ",") == 1);
    CHECK(strlen(c) == sizeof c - 1 && strcmp(c, "allreduce,allga") == 0);
    CHECK(pb_list_add(c, sizeof c, "x", ",") == 0);
    /* issue 32: membership is by whole item, never by substring: the
     * collective "allreduce" holds neither "reduce" nor "all", and
     * "reduce" joins a list that has "allreduce" */
    char r[64] = "allreduce";
    CHECK(!pb_list_has(r, "reduce", ",") && !pb_list_has(r, "all", ","));
    CHECK(pb_list_add(r, sizeof r, "reduce", ",") == 1 && strcmp(r, "allreduce,reduce") == 0);
    CHECK(pb_list_add(r, sizeof r, "reduce", ",") == 0);
    char q[64] = "allreduce, reduce_scatter";
    CHECK(!pb_list_has(q, "reduce", ", ") && !pb_list_has(q, "scatter", ", "));
    CHECK(pb_list_has(q, "reduce_scatter", ", ") && pb_list_has(q, "allreduce", ", "));
    PB_TEST_END("unit_list");
}
