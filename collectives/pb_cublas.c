#define _GNU_SOURCE /* RTLD_NODELETE */
#include "pb_cublas.h"

#include <dlfcn.h>
#include <string.h>

#include "pb_dl.h"

#ifndef PB_CUBLAS_SONAME /* CMake reads it from the library it found */
#define PB_CUBLAS_SONAME "libcublas.so"
#endif

/* Each member has cublas_v2.h's type: the assignment is type-checked
 * but, inside sizeof, never evaluated, so nothing of cuBLAS is linked. */
#define PB_CUBLAS_SAME_TYPE(member, sym)                                                           \
    _Static_assert(sizeof(((pb_cublas_t *)0)->member = sym) == sizeof(void *),                     \
                   #sym ": pb_cublas_t's member differs from cublas_v2.h");
PB_CUBLAS_SAME_TYPE(create, cublasCreate_v2)
PB_CUBLAS_SAME_TYPE(destroy, cublasDestroy_v2)
PB_CUBLAS_SAME_TYPE(set_stream, cublasSetStream_v2)
PB_CUBLAS_SAME_TYPE(gemm_ex_64, cublasGemmEx_64)
PB_CUBLAS_SAME_TYPE(status_string, cublasGetStatusString)
PB_CUBLAS_SAME_TYPE(status_name, cublasGetStatusName)

int pb_cublas_open(pb_cublas_t *c, pb_err_t *err)
{
    memset(c, 0, sizeof *c);
    c->lib = dlopen(PB_CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (c->lib == NULL) {
        const char *e = dlerror();
        return pb_err_set(err, PB_ERUNTIME, "parbench gemm needs cuBLAS: %s",
                          e != NULL ? e : "dlopen " PB_CUBLAS_SONAME " failed");
    }
    if (!pb_dl_sym(c->lib, "cublasCreate_v2", &c->create) ||
        !pb_dl_sym(c->lib, "cublasDestroy_v2", &c->destroy) ||
        !pb_dl_sym(c->lib, "cublasSetStream_v2", &c->set_stream) ||
        !pb_dl_sym(c->lib, "cublasGemmEx_64", &c->gemm_ex_64) ||
        !pb_dl_sym(c->lib, "cublasGetStatusString", &c->status_string) ||
        !pb_dl_sym(c->lib, "cublasGetStatusName", &c->status_name)) {
        pb_cublas_close(c);
        return pb_err_set(err, PB_ERUNTIME, "%s lacks an entry point parbench gemm calls",
                          PB_CUBLAS_SONAME);
    }
    return PB_OK;
}

void pb_cublas_close(pb_cublas_t *c)
{
    if (c->lib != NULL && dlclose(c->lib) != 0)
        (void)dlerror(); /* RTLD_NODELETE keeps it mapped either way */
    memset(c, 0, sizeof *c);
}
