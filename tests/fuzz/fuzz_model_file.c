/* libFuzzer target: model files ("key = value" lines, # comments) over
 * the tiny preset, then the model's own consistency check. */
#include <stdint.h>
#include <stdlib.h>

#include "patterns/pb_model.h"
#include "pb_fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    if (pb_fuzz_file(data, size, path, sizeof path) == NULL)
        return 0;
    pb_model_t m;
    pb_err_t err;
    pb_err_clear(&err); /* the first error set is kept: start clear */
    if (pb_model_preset("tiny", &m, &err) != PB_OK)
        abort();
    if (pb_model_load(path, &m, &err) == PB_OK && pb_model_check(&m, &err) == PB_OK)
        (void)pb_model_params(&m);
    else if (err.code != PB_EINPUT)
        abort();
    return 0;
}
