/* cuBLAS is opened by `parbench gemm`, not linked (collectives/pb_cublas.h):
 * this test program links pb_collectives as parbench does, so cuBLAS is
 * not in the process until pb_cublas_open, and is after it, with every
 * entry point gemm calls.  No GPU is needed: loading cuBLAS and asking it
 * for a status's name touch no device.  The names are cuBLAS's own
 * (cublasGetStatusName returns the enumerator's name, cuBLAS API
 * reference, "cublasGetStatusName()"). */
#define _GNU_SOURCE /* RTLD_NOLOAD */
#include <dlfcn.h>
#include <string.h>

#include "collectives/pb_cublas.h"
#include "pb_test.h"

static int mapped(void)
{
    void *h = dlopen(PB_CUBLAS_SONAME, RTLD_NOW | RTLD_NOLOAD);
    if (h == NULL)
        return 0;
    dlclose(h); /* drops the reference RTLD_NOLOAD took */
    return 1;
}

int main(void)
{
    CHECK(!mapped()); /* not linked, so not loaded before it is asked for */
    pb_cublas_t c;
    pb_err_t err;
    pb_err_clear(&err);
    int rc = pb_cublas_open(&c, &err);
    if (rc != PB_OK) {
        /* a CUDA toolkit without cuBLAS at run time: the one line gemm
         * would print, naming the library */
        CHECK(rc == PB_ERUNTIME && strstr(err.msg, "parbench gemm needs cuBLAS") != NULL);
        fprintf(stderr, "skipped: %s\n", err.msg);
        return pb_test_failures ? 1 : PB_TEST_SKIP;
    }
    CHECK(mapped());
    CHECK(c.lib != NULL && c.create != NULL && c.destroy != NULL && c.set_stream != NULL &&
          c.gemm_ex_64 != NULL && c.status_string != NULL && c.status_name != NULL);
    CHECK(strcmp(c.status_name(CUBLAS_STATUS_SUCCESS), "CUBLAS_STATUS_SUCCESS") == 0);
    CHECK(strcmp(c.status_name(CUBLAS_STATUS_NOT_INITIALIZED),
                 "CUBLAS_STATUS_NOT_INITIALIZED") == 0);
    const char *s = c.status_string(CUBLAS_STATUS_ALLOC_FAILED);
    CHECK(s != NULL && s[0] != '\0');
    pb_cublas_close(&c);
    CHECK(c.lib == NULL && c.gemm_ex_64 == NULL);
    CHECK(mapped()); /* RTLD_NODELETE: kept for the state cuBLAS left behind */
    return pb_test_failures ? 1 : 0;
}
