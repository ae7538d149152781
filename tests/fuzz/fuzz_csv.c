/* libFuzzer target: the result CSV reader (libcsv underneath), which
 * calibrate, compare and report read rows through. */
#include <stdint.h>
#include <stdlib.h>

#include "pb_fuzz_file.h"
#include "reports/pb_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    if (pb_fuzz_file(data, size, path, sizeof path) == NULL)
        return 0;
    pb_result_t *rows = NULL;
    size_t n = 0;
    pb_err_t err;
    pb_err_clear(&err); /* the first error set is kept: start clear */
    if (pb_csv_read(path, &rows, &n, &err) != PB_OK && err.code == PB_OK)
        abort();
    free(rows);
    return 0;
}
