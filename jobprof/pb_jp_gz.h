/* pb_jp_gz.h - a recording's file read whole, gunzipped when it is gzip.
 *
 * torch.profiler's tensorboard_trace_handler(use_gzip=True) writes
 * <worker>.<time>.pt.trace.json.gz, a common way traces are kept; any
 * recording may have been compressed since.  Gzip is told by its magic
 * bytes (RFC 1952: 0x1f 0x8b), never by the name, and read through zlib
 * (Debian zlib1g-dev), every member of a multi-member file in turn, as
 * gzip(1) reads it. */
#ifndef PB_JP_GZ_H
#define PB_JP_GZ_H

#include <stddef.h>

#include "../util/pb_err.h"

/* 1 when data starts with gzip's magic. */
int pb_jp_is_gzip(const void *data, size_t len);

/* data[0, len), gzip, inflated into *out (malloc'd, NUL-terminated: the
 * readers take it as text) of *outlen bytes.  Data that is not valid
 * gzip, or ends before its last member does: PB_EINPUT "name: why";
 * PB_ERUNTIME out of memory. */
int pb_jp_gunzip(const char *name, const void *data, size_t len, char **out, size_t *outlen,
                 pb_err_t *err);

/* The whole file at path into *out (malloc'd, NUL-terminated) of *len
 * bytes, gunzipped when it is gzip.  PB_EINPUT naming the file when it
 * cannot be read or its gzip is bad. */
int pb_jp_read_file(const char *path, char **out, size_t *len, pb_err_t *err);

/* The first character of the file's text that is not blank (gunzipped
 * when it is gzip), or -1 when it has none or cannot be read: what a
 * command looks at to tell a trace ('{') from a benchmark log. */
int pb_jp_first_char(const char *path);
/* 1 when the file at path starts with gzip's magic. */
int pb_jp_path_is_gzip(const char *path);

#endif
