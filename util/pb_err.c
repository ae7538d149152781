#include "pb_err.h"

#include <stdarg.h>
#include <stdio.h>

int pb_err_set(pb_err_t *err, int code, const char *fmt, ...)
{
    if (err == NULL || err->code != PB_OK)
        return code;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    /* messages quote the user's input (an argument, a CSV field, a model
     * file line), which may hold a newline or a terminal escape: the
     * message stays one printable line (found by tests/fuzz/fuzz_cli) */
    for (char *c = err->msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return code;
}

void pb_err_clear(pb_err_t *err)
{
    err->code = PB_OK;
    err->msg[0] = '\0';
}
