/* libFuzzer target: --megatron-args, the launch-script reader (its own
 * small shell: quotes, variables, arrays, continuations). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "patterns/pb_megatron.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    pb_megatron_t *m = malloc(sizeof *m);
    pb_err_t err;
    pb_err_clear(&err);
    if (m && pb_megatron_parse("fuzz.sh", text, m, &err) != PB_OK && err.code == PB_OK)
        abort();
    free(m);
    free(text);
    return 0;
}
