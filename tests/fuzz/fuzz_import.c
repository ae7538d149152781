/* libFuzzer target: the log importers (nccl-tests, OSU, IMB).  The first
 * byte picks the tool (auto or one forced) and --partial, so every parser
 * sees every input, strict and lenient; a refusal must come with a
 * message, never a crash. */
#include <stdint.h>
#include <stdlib.h>

#include "reports/pb_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    /* bits 0-1 the tool, 2 --partial, 3-5 --np, 6-7 --nodes */
    pb_import_opts_t o = {(pb_import_tool_t)(data[0] & 3), (data[0] >> 2) & 1, (data[0] >> 3) & 7,
                          (data[0] >> 6) & 3, 0, NULL};
    pb_import_out_t out = {0};
    pb_err_t err;
    pb_err_clear(&err);
    if (pb_import_buffer("fuzz.log", (const char *)data + 1, size - 1, &o, &out, &err) != PB_OK &&
        err.code == PB_OK)
        abort();
    for (size_t i = 0; i < out.n; i++) /* every kept row is a usable measurement */
        if (!(out.rows[i].time_us_median > 0) || out.rows[i].bytes == 0)
            abort();
    pb_import_out_free(&out);
    return 0;
}
