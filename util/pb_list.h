/* pb_list.h - a short list of names kept in one string, "a, b, c": what
 * the readers name once each (arguments not modelled, benchmarks left out
 * of an import, the collectives of a log).  The string is the list: it
 * goes straight into a message. */
#ifndef PB_LIST_H
#define PB_LIST_H

#include <stddef.h>

/* Is item one of the items of list (separated by sep)? */
int pb_list_has(const char *list, const char *item, const char *sep);

/* Appends item to list (cap bytes in all, NUL included) after sep unless
 * it is there already; an item that does not fit is cut (the list stays
 * a string).  Returns 1 when added. */
int pb_list_add(char *list, size_t cap, const char *item, const char *sep);

#endif
