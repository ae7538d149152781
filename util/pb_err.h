/* pb_err.h - one error value passed down every call that can fail.
 *
 * parbench never prints from deep inside a library function: the function
 * fills a pb_err_t and returns its code, and the caller (ultimately bench/)
 * decides which rank prints it and with which exit code.  The codes are the
 * program's exit codes, so no table has to map one onto the other. */
#ifndef PB_ERR_H
#define PB_ERR_H

#include <stddef.h>

enum {
    PB_OK = 0,
    PB_EVERIFY = 1,  /* a result was wrong (or a regression gate failed) */
    PB_EINPUT = 2,   /* bad flags, sizes, layouts, files */
    PB_ERUNTIME = 3  /* the machine or a library failed */
};

typedef struct pb_err {
    int code;
    char msg[480];
} pb_err_t;

/* Records the first error only: the earliest failure is the cause, later
 * ones are usually its consequences.  Returns code, so callers can write
 * `return pb_err_set(err, PB_EINPUT, "...")`. */
int pb_err_set(pb_err_t *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

void pb_err_clear(pb_err_t *err);

#endif
