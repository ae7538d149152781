/* libFuzzer target: NCCL topology files (libxml2 underneath), which
 * parbench topo --nccl-topo reads; every pair's class is asked too. */
#include <stdint.h>
#include <stdlib.h>

#include "pb_fuzz_file.h"
#include "topo/pb_nccl_topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    if (pb_fuzz_file(data, size, path, sizeof path) == NULL)
        return 0;
    pb_ntopo_t t;
    pb_err_t err;
    pb_err_clear(&err);
    if (pb_ntopo_load(path, &t, &err) != PB_OK) {
        if (err.code == PB_OK)
            abort();
        return 0;
    }
    for (int a = 0; a < t.n; a++)
        for (int b = 0; b < t.n; b++)
            if (pb_ntopo_link(&t, a, b, 2).cls >= PB_LINK_COUNT)
                abort();
    pb_ntopo_free(&t);
    return 0;
}
