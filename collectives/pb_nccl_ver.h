/* pb_nccl_ver.h - the NCCL library version met at run time, as pure
 * functions of ncclGetVersion()'s code (tested without NCCL or a GPU).
 *
 * parbench may be built against a newer nccl.h than the libnccl.so.2 it
 * runs with; the header's version says nothing about the library.  So the
 * library's own code is checked when it is opened (pb_nccl_lib.h: the
 * library is opened at run time, never linked), and entry points newer
 * than the oldest supported library are optional there. */
#ifndef PB_NCCL_VER_H
#define PB_NCCL_VER_H

#include <stddef.h>

typedef struct {
    int major, minor, patch;
} pb_nccl_ver_t;

/* The oldest library parbench drives: ncclCommSplit came with 2.18. */
#define PB_NCCL_MIN_MAJOR 2
#define PB_NCCL_MIN_MINOR 18

/* Decodes ncclGetVersion()'s code: major*1000 + minor*100 + patch up to
 * 2.8, major*10000 + minor*100 + patch since 2.9 (nccl.h NCCL_VERSION). */
pb_nccl_ver_t pb_nccl_version_decode(int code);

/* Whether the library of `code` is major.minor or newer. */
int pb_nccl_version_at_least(int code, int major, int minor);

/* 0 when the library of `code` is new enough, else 1 with one line in
 * `why` naming it as `lib` ("NCCL", "RCCL": RCCL reports NCCL's version
 * it is based on, in NCCL's code) and the `backend` that needs more. */
int pb_nccl_version_check(int code, const char *lib, const char *backend, char *why, size_t len);

#endif
