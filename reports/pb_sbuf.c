#include "pb_sbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pb_sbuf_init(pb_sbuf_t *b)
{
    b->s = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}

void pb_sbuf_free(pb_sbuf_t *b)
{
    free(b->s);
    pb_sbuf_init(b);
}

static int reserve(pb_sbuf_t *b, size_t n)
{
    if (b->oom)
        return -1;
    if (b->cap - b->len > n)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len <= n) {
        if (cap > ((size_t)-1) / 2) {
            b->oom = 1;
            return -1;
        }
        cap *= 2;
    }
    char *s = realloc(b->s, cap);
    if (s == NULL) {
        b->oom = 1;
        return -1;
    }
    b->s = s;
    b->cap = cap;
    return 0;
}

void pb_sbuf_add(pb_sbuf_t *b, const char *s, size_t n)
{
    if (reserve(b, n) != 0)
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void pb_sbuf_puts(pb_sbuf_t *b, const char *s)
{
    pb_sbuf_add(b, s, strlen(s));
}

void pb_sbuf_printf(pb_sbuf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve(b, (size_t)n) != 0) {
        b->oom = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void pb_sbuf_xml(pb_sbuf_t *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': pb_sbuf_puts(b, "&amp;"); break;
        case '<': pb_sbuf_puts(b, "&lt;"); break;
        case '>': pb_sbuf_puts(b, "&gt;"); break;
        case '"': pb_sbuf_puts(b, "&quot;"); break;
        default:
            /* control characters other than tab and newline are not XML */
            if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n')
                pb_sbuf_puts(b, "?");
            else
                pb_sbuf_add(b, s, 1);
        }
    }
}
