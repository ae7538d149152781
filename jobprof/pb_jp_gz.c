/* pb_jp_gz.c - files read whole, gunzipped through zlib (pb_jp_gz.h). */
#include "pb_jp_gz.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int pb_jp_is_gzip(const void *data, size_t len)
{
    const unsigned char *b = data;
    return len >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

/* buf grown to hold more than n bytes (and the NUL); -1 out of memory. */
static int grow(char **buf, size_t *cap, size_t n)
{
    if (n < *cap)
        return 0;
    if (*cap > SIZE_MAX / 4)
        return -1;
    char *p = realloc(*buf, *cap * 2 + 1);
    if (p == NULL)
        return -1;
    *buf = p;
    *cap *= 2;
    return 0;
}

/* What follows a member's end: another member (1), nothing but the
 * zeros some tools pad with (0), anything else (-1). */
static int after_member(const unsigned char *p, size_t left)
{
    if (pb_jp_is_gzip(p, left))
        return 1;
    for (size_t i = 0; i < left; i++)
        if (p[i] != 0)
            return -1;
    return 0;
}

/* One inflate step: z fed from data (in chunks zlib's 32-bit counts
 * hold), the output after buf[*n]; Z_* as inflate says. */
static int step(z_stream *z, const unsigned char *data, size_t len, char *buf, size_t cap,
                size_t *n)
{
    size_t used = (size_t)(z->next_in - data);
    if (z->avail_in == 0 && used < len) {
        size_t chunk = len - used < UINT_MAX ? len - used : UINT_MAX;
        z->avail_in = (uInt)chunk;
    }
    size_t room = cap - *n < UINT_MAX ? cap - *n : UINT_MAX;
    z->next_out = (Bytef *)buf + *n;
    z->avail_out = (uInt)room;
    int zr = inflate(z, Z_NO_FLUSH);
    *n += room - z->avail_out;
    return zr;
}

/* The inflate loop: every member in turn until the data ends. */
static int inflate_all(const char *name, z_stream *z, const unsigned char *data, size_t len,
                       char **buf, size_t *cap, size_t *n, pb_err_t *err)
{
    for (;;) {
        if (grow(buf, cap, *n) != 0)
            return pb_err_set(err, PB_ERUNTIME, "out of memory gunzipping '%s'", name);
        int zr = step(z, data, len, *buf, *cap, n);
        size_t used = (size_t)(z->next_in - data);
        if (zr == Z_STREAM_END) {
            int next = after_member(data + used, len - used);
            if (next == 0)
                return PB_OK;
            if (next < 0)
                return pb_err_set(err, PB_EINPUT, "%s: bytes after the gzip data that are not "
                                  "gzip (a damaged file?)", name);
            if (inflateReset(z) != Z_OK)
                return pb_err_set(err, PB_ERUNTIME, "%s: zlib could not start the next member",
                                  name);
        } else if (zr == Z_BUF_ERROR && z->avail_out > 0 && used == len) {
            return pb_err_set(err, PB_EINPUT, "%s: gzip data cut short (the file ends inside "
                              "it: copied or written only in part?)", name);
        } else if (zr != Z_OK && zr != Z_BUF_ERROR) {
            return pb_err_set(err, zr == Z_MEM_ERROR ? PB_ERUNTIME : PB_EINPUT,
                              "%s: not valid gzip data (zlib: %s)", name,
                              z->msg ? z->msg : zError(zr));
        }
    }
}

int pb_jp_gunzip(const char *name, const void *data, size_t len, char **out, size_t *outlen,
                 pb_err_t *err)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    z.next_in = (Bytef *)data; /* zlib's API is not const; it only reads */
    /* 16 + MAX_WBITS: a gzip header and trailer (RFC 1952) around deflate */
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return pb_err_set(err, PB_ERUNTIME, "zlib could not start reading '%s'", name);
    size_t cap = len < SIZE_MAX / 16 ? len * 4 + 4096 : len, n = 0;
    char *buf = malloc(cap + 1);
    int code = buf ? inflate_all(name, &z, data, len, &buf, &cap, &n, err)
                   : pb_err_set(err, PB_ERUNTIME, "out of memory gunzipping '%s'", name);
    inflateEnd(&z);
    if (code != PB_OK) {
        free(buf);
        return code;
    }
    buf[n] = '\0';
    *out = buf;
    *outlen = n;
    return PB_OK;
}

/* The file's bytes as they are, NUL-terminated. */
static int slurp(const char *path, char **out, size_t *len, pb_err_t *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot read '%s': %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        if (grow(&buf, &cap, n) != 0) {
            free(buf);
            buf = NULL;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (buf == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory reading '%s'", path);
    if (bad) {
        free(buf);
        return pb_err_set(err, PB_EINPUT, "cannot read '%s'", path);
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return PB_OK;
}

int pb_jp_read_file(const char *path, char **out, size_t *len, pb_err_t *err)
{
    char *raw = NULL;
    size_t n = 0;
    int code = slurp(path, &raw, &n, err);
    if (code != PB_OK || !pb_jp_is_gzip(raw, n)) {
        *out = raw;
        *len = n;
        return code;
    }
    code = pb_jp_gunzip(path, raw, n, out, len, err);
    free(raw);
    return code;
}

int pb_jp_first_char(const char *path)
{
    /* gzread passes a file that is not gzip through as it is */
    gzFile g = gzopen(path, "rb");
    int c = -1;
    while (g && (c = gzgetc(g)) != -1 && isspace(c))
        ;
    if (g)
        gzclose(g);
    return c;
}

int pb_jp_path_is_gzip(const char *path)
{
    unsigned char b[2];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(b, 1, sizeof b, f) : 0;
    if (f)
        fclose(f);
    return pb_jp_is_gzip(b, n);
}
