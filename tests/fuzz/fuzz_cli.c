/* libFuzzer target: the command line.  The input is argv, arguments
 * separated by NUL bytes (argv[0] is added); pb_cli_parse must answer
 * PB_OK or one line of PB_EINPUT, never crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/pb_options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum { MAXARGS = 64 };
    char *copy = malloc(size + 1);
    if (copy == NULL)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    char *argv[MAXARGS + 2];
    int argc = 0;
    argv[argc++] = (char *)"parbench";
    for (size_t i = 0; i <= size && argc < MAXARGS;) {
        argv[argc++] = copy + i;
        i += strlen(copy + i) + 1;
    }
    argv[argc] = NULL;
    pb_options_t opt;
    pb_err_t err;
    pb_err_clear(&err); /* the first error set is kept: start clear */
    int code = pb_cli_parse(argc, argv, &opt, &err);
    if (code != PB_OK && (code != PB_EINPUT || err.msg[0] == '\0' || strchr(err.msg, '\n')))
        abort(); /* bad input must be PB_EINPUT with one non-empty line */
    if (code == PB_OK && opt.cmd != PB_CMD_HELP)
        pb_cli_usage(opt.cmd);
    free(copy);
    return 0;
}
