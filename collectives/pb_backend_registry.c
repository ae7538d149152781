/* Every communication side built into this binary (pb_backend_list.def). */
#include <string.h>

#include "pb_backend.h"

#define PB_BACKEND(ops) extern const pb_comm_ops_t ops;
#include "pb_backend_list.def"
#undef PB_BACKEND

/* NULL-terminated: a build without MPI and CUDA has no backend at all,
 * and C has no empty array */
static const pb_comm_ops_t *const registry[] = {
#define PB_BACKEND(ops) &ops,
#include "pb_backend_list.def"
#undef PB_BACKEND
    NULL};

int pb_backend_count(void) { return (int)(sizeof registry / sizeof registry[0]) - 1; }

const pb_comm_ops_t *pb_backend_at(int i)
{
    return i >= 0 && i < pb_backend_count() ? registry[i] : NULL;
}

const pb_comm_ops_t *pb_backend_find(const char *name)
{
    for (int i = 0; i < pb_backend_count(); i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

