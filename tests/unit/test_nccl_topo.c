/* --nccl-topo: the project's own small NCCL topology file, whose matrix
 * is worked out by hand in its header comment. */
#include <stdio.h>
#include <string.h>

#include "pb_test.h"
#include "ntopo_cls.h"


static void small(void)
{
    pb_ntopo_t t;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_ntopo_load(PB_SOURCE_DIR "/tests/fixtures/nccl-topo-small.xml", &t, &err) == PB_OK);
    CHECK(t.ngpus == 5 && t.nnics == 2 && t.ncpus == 3 && t.has_nvlink);
    CHECK(strcmp(t.dev[0].busid, "0000:1a:00.0") == 0); /* "1A" read as 1a */
    const int nic0 = 5, nic1 = 6;
    CHECK(strcmp(cls(&t, 0, 1, 0), "NV4") == 0);
    CHECK(strcmp(cls(&t, 1, 0, 0), "NV4") == 0); /* stated on GPU0's side only */
    CHECK(strcmp(cls(&t, 0, nic0, 0), "PXB") == 0);
    CHECK(strcmp(cls(&t, 1, 2, 0), "PHB") == 0);
    CHECK(strcmp(cls(&t, 0, 3, 0), "NODE") == 0);
    CHECK(strcmp(cls(&t, 0, 4, 0), "SYS") == 0);
    CHECK(strcmp(cls(&t, 4, nic1, 0), "PIX") == 0);
    CHECK(strcmp(cls(&t, 2, 2, 0), "X") == 0);
    /* the file states NVLink: --nvlink does not invent more */
    CHECK(strcmp(cls(&t, 1, 2, 12), "PHB") == 0);
    pb_ntopo_free(&t);
}

int main(void)
{
    small();
    PB_TEST_END("nccl_topo");
}
