#include "pb_list.h"

#include <stdio.h>
#include <string.h>

int pb_list_has(const char *list, const char *item, const char *sep)
{
    size_t n = strlen(item), s = strlen(sep);
    if (n == 0)
        return 0;
    /* an item starts the list or follows a separator, and ends the list
     * or precedes one: "bf16" is not found in "bf16x" nor "xbf16" */
    for (const char *p = list; (p = strstr(p, item)) != NULL; p++) {
        int starts = p == list || ((size_t)(p - list) >= s && strncmp(p - s, sep, s) == 0);
        int ends = p[n] == '\0' || strncmp(p + n, sep, s) == 0;
        if (starts && ends)
            return 1;
    }
    return 0;
}

int pb_list_add(char *list, size_t cap, const char *item, const char *sep)
{
    if (cap == 0 || pb_list_has(list, item, sep))
        return 0;
    size_t len = strlen(list);
    if (len + 1 >= cap)
        return 0;
    snprintf(list + len, cap - len, "%s%s", len ? sep : "", item);
    return 1;
}
