#include "pb_dl.h"

#include <dlfcn.h>
#include <string.h>

int pb_dl_sym(void *lib, const char *name, void *fp)
{
    void *p = dlsym(lib, name);
    memcpy(fp, &p, sizeof p);
    return p != NULL;
}
