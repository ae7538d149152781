#include "pb_libxml.h"

#include <dlfcn.h>
#include <string.h>

#include "pb_dl.h"

#ifndef PB_LIBXML2_SONAME /* CMake reads it from the library it found */
#define PB_LIBXML2_SONAME "libxml2.so.2"
#endif

int pb_libxml_open(pb_libxml_t *x, pb_err_t *err)
{
    memset(x, 0, sizeof *x);
    x->lib = dlopen(PB_LIBXML2_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (x->lib == NULL)
        return pb_err_set(err, PB_ERUNTIME, "reading NCCL topology files needs libxml2: %s",
                          dlerror());
    /* xmlFree is a variable holding libxml2's free function */
    xmlFreeFunc *free_var = NULL;
    if (!pb_dl_sym(x->lib, "xmlReadFile", &x->read_file) ||
        !pb_dl_sym(x->lib, "xmlGetLastError", &x->last_error) ||
        !pb_dl_sym(x->lib, "xmlDocGetRootElement", &x->root) ||
        !pb_dl_sym(x->lib, "xmlGetProp", &x->get_prop) ||
        !pb_dl_sym(x->lib, "xmlFreeDoc", &x->free_doc) ||
        !pb_dl_sym(x->lib, "xmlFree", &free_var) || *free_var == NULL) {
        pb_libxml_close(x);
        return pb_err_set(err, PB_ERUNTIME, "%s lacks an entry point parbench needs",
                          PB_LIBXML2_SONAME);
    }
    x->free = *free_var;
    return PB_OK;
}

void pb_libxml_close(pb_libxml_t *x)
{
    if (x->lib != NULL)
        dlclose(x->lib);
    memset(x, 0, sizeof *x);
}
