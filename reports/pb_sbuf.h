/* pb_sbuf.h - a growing text buffer: the report is assembled in memory and
 * written in one go, so a failure half-way never leaves a broken page.
 * The first allocation failure sticks (oom) and every later append is a
 * no-op, so callers check once at the end. */
#ifndef PB_SBUF_H
#define PB_SBUF_H

#include <stddef.h>

typedef struct pb_sbuf {
    char *s;
    size_t len, cap;
    int oom;
} pb_sbuf_t;

void pb_sbuf_init(pb_sbuf_t *b);
void pb_sbuf_free(pb_sbuf_t *b);
void pb_sbuf_add(pb_sbuf_t *b, const char *s, size_t n);
void pb_sbuf_puts(pb_sbuf_t *b, const char *s);
void pb_sbuf_printf(pb_sbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text with &, <, >, " escaped for XML content and attribute values. */
void pb_sbuf_xml(pb_sbuf_t *b, const char *s);

#endif
