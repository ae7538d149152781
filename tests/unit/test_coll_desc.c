/* test_coll_desc.c - core/: the per-collective descriptors (bus factor,
 * wire bytes, buffer geometry, in-place offsets), and the one data-type
 * and link vocabulary the layers share.
 *
 * Every expected value is worked by hand from nccl-tests' per-collective
 * files:
 *   src/all_reduce.cu     AllReduceGetBw:     busbw = algbw * 2(n-1)/n
 *   src/all_gather.cu     AllGatherGetBw:     (n-1)/n; GetCollByteCount:
 *                         recvcount = sendcount * n, sendInplaceOffset =
 *                         sendcount, recvInplaceOffset = 0
 *   src/reduce_scatter.cu ReduceScatterGetBw: (n-1)/n; sendcount =
 *                         recvcount * n, sendInplaceOffset = 0,
 *                         recvInplaceOffset = recvcount
 *   src/alltoall.cu       AlltoAllGetBw:      (n-1)/n
 *   src/broadcast.cu, src/reduce.cu, src/sendrecv.cu: factor 1
 *   src/common.cu         in place: send = recvbuff + sendInplaceOffset *
 *                         rank, recv = recvbuff + recvInplaceOffset * rank */
#include <stdint.h>
#include <string.h>

#include "core/pb_coll.h"
#include "core/pb_dtype.h"
#include "core/pb_link.h"
#include "model/pb_calib.h"
#include "patterns/pb_pat_op.h"
#include "pb_test.h"

#define MiB (UINT64_C(1) << 20)

/* n = 8, S = 1 MiB: the factors and the bytes each rank puts on the wire */
static void test_bus_n8(void)
{
    static const struct {
        pb_coll_t c;
        double factor;   /* by hand: 2*7/8, 7/8 or 1 */
        uint64_t wire;   /* factor * 1 MiB = factor * 1048576 */
        const char *txt; /* what a table head prints */
    } want[] = {
        {PB_ALLREDUCE, 1.75, 1835008, "2(n-1)/n"},   /* 1.75 * 1048576 */
        {PB_ALLGATHER, 0.875, 917504, "(n-1)/n"},    /* 0.875 * 1048576 */
        {PB_REDUCESCATTER, 0.875, 917504, "(n-1)/n"},
        {PB_ALLTOALL, 0.875, 917504, "(n-1)/n"},
        {PB_ALLTOALLV, 0.875, 917504, "(n-1)/n"},
        {PB_BROADCAST, 1.0, 1048576, "1"},
        {PB_REDUCE, 1.0, 1048576, "1"},
        {PB_SENDRECV, 1.0, 1048576, "1"},
    };
    CHECK(sizeof want / sizeof want[0] == PB_COLL_COUNT);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        pb_coll_t c = want[i].c;
        /* 1.75 and 0.875 are exact in binary: equality, not nearness */
        CHECK(pb_busbw_factor(c, 8) == want[i].factor);
        CHECK(pb_coll_wire_bytes(c, 8, MiB) == want[i].wire);
        CHECK(strcmp(pb_busbw_factor_text(c), want[i].txt) == 0);
    }
}

/* Wire bytes round each (n-1)/n pass down to whole bytes: all-reduce of
 * 10 B on 3 ranks is 2 x floor(10 * 2/3) = 2 x 6 = 12, not floor(13.3). */
static void test_wire_rounding(void)
{
    CHECK(pb_coll_wire_bytes(PB_ALLGATHER, 3, 10) == 6);
    CHECK(pb_coll_wire_bytes(PB_ALLREDUCE, 3, 10) == 12);
    CHECK(pb_coll_wire_bytes(PB_REDUCE, 3, 10) == 10);
    /* one rank: nothing crosses a link for the ring collectives */
    CHECK(pb_coll_wire_bytes(PB_ALLTOALL, 1, 4096) == 0);
    /* 2^63 B on 3 ranks must not overflow: (2^63 / 3) * 2 + (2^63 % 3) * 2 / 3
     * = 3074457345618258602 * 2 + 2 * 2 / 3 = 6148914691236517204 + 1 */
    CHECK(pb_coll_wire_bytes(PB_ALLGATHER, 3, UINT64_C(1) << 63) ==
          UINT64_C(6148914691236517205));
}

/* Geometry for count C elements (the measured size / element size) on n
 * ranks: all-gather receives n times what it sends, reduce-scatter sends
 * n times what it receives. */
static void test_geometry(void)
{
    /* 8 ranks, float, 1 MiB: C = 262144, block C/8 = 32768 */
    pb_coll_geom_t ag = pb_coll_geom(PB_ALLGATHER, 8, PB_F32, MiB);
    CHECK(ag.count == 262144 && ag.block == 32768);
    CHECK(ag.send_count == 32768 && ag.recv_count == 8 * ag.send_count);
    pb_coll_geom_t rs = pb_coll_geom(PB_REDUCESCATTER, 8, PB_F32, MiB);
    CHECK(rs.recv_count == 32768 && rs.send_count == 8 * rs.recv_count);
    /* the others send and receive the whole count */
    static const pb_coll_t whole[] = {PB_ALLREDUCE, PB_ALLTOALL, PB_ALLTOALLV, PB_BROADCAST,
                                      PB_REDUCE, PB_SENDRECV};
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++) {
        pb_coll_geom_t g = pb_coll_geom(whole[i], 8, PB_F32, MiB);
        CHECK(g.send_count == 262144 && g.recv_count == 262144);
    }
}

/* In-place offsets, rank 5 of 8, block 32768 (1 MiB of float, above):
 * all-gather sends from buffer + 5 * 32768 = 163840 and receives at 0;
 * reduce-scatter sends from 0 and receives at 163840; the rest at 0, 0. */
static void test_in_place(void)
{
    for (int c = 0; c < PB_COLL_COUNT; c++) {
        pb_coll_geom_t g = pb_coll_geom((pb_coll_t)c, 8, PB_F32, MiB);
        pb_coll_offsets_t o = pb_coll_in_place_offsets((pb_coll_t)c, 5, &g);
        uint64_t send = c == PB_ALLGATHER ? 163840 : 0;
        uint64_t recv = c == PB_REDUCESCATTER ? 163840 : 0;
        CHECK(o.send == send && o.recv == recv);
    }
    /* rank 0 keeps its block at the start */
    pb_coll_geom_t g = pb_coll_geom(PB_ALLGATHER, 8, PB_F32, MiB);
    CHECK(pb_coll_in_place_offsets(PB_ALLGATHER, 0, &g).send == 0);
    /* which have an in-place variant: NCCL defines it for all but the
     * point-to-point ones (all-to-all-v, send/recv); broadcast has one
     * buffer, so only in place */
    CHECK(pb_coll_has_in_place(PB_ALLREDUCE) && pb_coll_has_in_place(PB_ALLGATHER) &&
          pb_coll_has_in_place(PB_REDUCESCATTER) && pb_coll_has_in_place(PB_ALLTOALL) &&
          pb_coll_has_in_place(PB_BROADCAST) && pb_coll_has_in_place(PB_REDUCE));
    CHECK(!pb_coll_has_in_place(PB_ALLTOALLV) && !pb_coll_has_in_place(PB_SENDRECV));
    CHECK(!pb_coll_has_out_of_place(PB_BROADCAST));
}

/* The table itself: every row filled, names parse back to their row,
 * one-block sides only on blocked collectives. */
static void test_table(void)
{
    for (int i = 0; i < PB_COLL_COUNT; i++) {
        const pb_coll_desc_t *d = pb_coll_desc((pb_coll_t)i);
        pb_coll_t back = PB_COLL_COUNT;
        CHECK(d->name && d->alias && d->size_is && d->size_is[0]);
        CHECK(pb_coll_parse(d->name, &back) == 0 && back == (pb_coll_t)i);
        CHECK(pb_coll_parse(d->alias, &back) == 0 && back == (pb_coll_t)i);
        CHECK(d->flags & (PB_CF_IN_PLACE | PB_CF_OUT_OF_PLACE));
        if (d->flags & (PB_CF_SEND_BLOCK | PB_CF_RECV_BLOCK))
            CHECK(d->flags & PB_CF_BLOCKED);
        CHECK(d->bus_passes >= 0 && d->bus_passes <= 2);
    }
    CHECK(strcmp(pb_coll_desc(PB_ALLGATHER)->size_is, "the gathered output (n blocks)") == 0);
}

/* One data-type enum: sizes, and the training types a model may be in. */
static void test_dtypes(void)
{
    static const size_t size[PB_DTYPE_COUNT] = {
        [PB_F32] = 4, [PB_F64] = 8, [PB_F16] = 2,    [PB_BF16] = 2,
        [PB_I32] = 4, [PB_I8] = 1,  [PB_F8E4M3] = 1, [PB_F8E5M2] = 1,
        [PB_I64] = 8};
    for (int t = 0; t < PB_DTYPE_COUNT; t++)
        CHECK(pb_dtype_size((pb_dtype_t)t) == size[t]);
    pb_dtype_t t = PB_I8;
    CHECK(pb_pat_dtype_parse("bf16", &t) == 0 && t == PB_BF16);
    CHECK(pb_pat_dtype_parse("fp32", &t) == 0 && t == PB_F32);
    CHECK(pb_pat_dtype_parse("half", &t) == 0 && t == PB_F16);
    /* a type the backends measure, but no model trains in */
    t = PB_I8;
    CHECK(pb_pat_dtype_parse("int32", &t) == -1 && t == PB_I8);
    CHECK(pb_pat_dtype_parse("double", &t) == -1);
}

/* Calibrations hold what the strategies issue: not broadcast, not reduce. */
static void test_calib_colls(void)
{
    pb_coll_t c = PB_COLL_COUNT;
    CHECK(pb_calib_coll_parse("alltoallv", &c) == 0 && c == PB_ALLTOALLV);
    CHECK(pb_calib_coll_parse("sendrecv", &c) == 0 && c == PB_SENDRECV);
    CHECK(pb_calib_coll_parse("broadcast", &c) == -1);
    CHECK(pb_calib_coll_parse("reduce", &c) == -1);
    CHECK(pb_calib_coll_parse("allsum", &c) == -1);
}

/* Link classes: the network is "NET" as pb_link_format writes it. */
static void test_links(void)
{
    char buf[16];
    pb_link_t net = {PB_LINK_NET, 0}, nv = {PB_LINK_NV, 18};
    pb_link_format(net, buf, sizeof buf);
    CHECK(strcmp(buf, "NET") == 0 && pb_link_is_net(buf));
    pb_link_format(nv, buf, sizeof buf);
    CHECK(strcmp(buf, "NV18") == 0 && !pb_link_is_net(buf));
    CHECK(!pb_link_is_net("SYS") && !pb_link_is_net("LOCAL") && !pb_link_is_net(""));
}

int main(void)
{
    test_bus_n8();
    test_wire_rounding();
    test_geometry();
    test_in_place();
    test_table();
    test_dtypes();
    test_calib_colls();
    test_links();
    PB_TEST_END("coll_desc");
}
