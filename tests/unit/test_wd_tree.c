/* test_wd_tree.c - the shape of the watchdogs' channel (bench/run/pb_wd_tree):
 * node leaders in a fanout-ary tree under leader 0 (rank 0), heap order.
 *
 * By hand, fan-out 2: leader 0's children are 1, 2; 1's are 3, 4; 2's are
 * 5, 6; so 6 -> 2 -> 0 (the path tests/faults/hang_stopped.sh crosses).
 * Fan-out 32 (the default): leaders 1..32 are one hop from the root,
 * 33..32+32^2 = 1056 two hops, 1057..1056+32^3 = 33824 three, so the
 * 2,048 nodes of 16,384 GPUs (8 per node) are 3 hops deep and no leader
 * has more than 32 leader children. */
#include "bench/run/pb_wd_tree.h"

#include "pb_test.h"

static int hops(int li, int fanout)
{
    int h = 0;
    while (li > 0) {
        li = pb_wd_tree_parent(li, fanout);
        h++;
    }
    return h;
}

static void test_by_hand(void)
{
    CHECK(pb_wd_tree_parent(0, 2) == -1);
    CHECK(pb_wd_tree_first_child(0, 2) == 1);
    CHECK(pb_wd_tree_parent(1, 2) == 0 && pb_wd_tree_parent(2, 2) == 0);
    CHECK(pb_wd_tree_first_child(1, 2) == 3 && pb_wd_tree_first_child(2, 2) == 5);
    CHECK(pb_wd_tree_parent(6, 2) == 2 && pb_wd_tree_parent(5, 2) == 2);
    CHECK(hops(6, 2) == 2);
    CHECK(hops(32, 32) == 1 && hops(33, 32) == 2);
    CHECK(hops(1056, 32) == 2 && hops(1057, 32) == 3);
    CHECK(hops(2047, 32) == 3);
    CHECK(hops(33824, 32) == 3 && hops(33825, 32) == 4);
}

/* Every leader is among its parent's children, exactly once; a parent
 * has at most `fanout` of them; nothing forms a cycle (parents are
 * smaller indices). */
static void test_consistent(int nl, int fanout)
{
    int bad = 0;
    for (int li = 1; li < nl; li++) {
        int p = pb_wd_tree_parent(li, fanout);
        int first = pb_wd_tree_first_child(p, fanout);
        if (p < 0 || p >= li || li < first || li >= first + fanout)
            bad++;
    }
    CHECK(bad == 0);
}

int main(void)
{
    test_by_hand();
    int fans[] = {1, 2, 3, 32};
    for (int i = 0; i < 4; i++)
        test_consistent(20000, fans[i]);
    PB_TEST_END("wd_tree");
}
