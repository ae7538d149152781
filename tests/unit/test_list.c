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
    PB_TEST_END("unit_list");
}
