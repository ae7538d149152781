#define _GNU_SOURCE /* RTLD_NODELETE */
#include "pb_rocblas.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/pb_dl.h"

int pb_rocblas_dtype(pb_dtype_t t)
{
    switch (t) {
    case PB_BF16:
        return PB_ROCBLAS_BF16_R;
    case PB_F16:
        return PB_ROCBLAS_F16_R;
    case PB_F32:
        return PB_ROCBLAS_F32_R;
    default:
        return -1;
    }
}

/* ROCm 6 first: a machine with both has ROCm 6 as its current one */
static const char *const pb_rocblas_sonames[] = {"librocblas.so.4", "librocblas.so.0"};

int pb_rocblas_candidates(const char *env, const char *rocm_path, char out[][256], int max)
{
    int n = 0;
    if (env != NULL && env[0] != '\0') {
        if (max > 0)
            snprintf(out[n++], 256, "%s", env);
        return n;
    }
    const char *dirs[] = {NULL, rocm_path != NULL && rocm_path[0] ? rocm_path : NULL,
                          "/opt/rocm"};
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        if (d > 0 && dirs[d] == NULL)
            continue;
        for (size_t s = 0; s < 2 && n < max; s++) {
            if (d == 0)
                snprintf(out[n++], 256, "%s", pb_rocblas_sonames[s]);
            else
                snprintf(out[n++], 256, "%.200s/lib/%s", dirs[d], pb_rocblas_sonames[s]);
        }
    }
    return n;
}

static int resolve(pb_rocblas_t *r)
{
    if (!pb_dl_sym(r->lib, "rocblas_create_handle", &r->create_handle) ||
        !pb_dl_sym(r->lib, "rocblas_destroy_handle", &r->destroy_handle) ||
        !pb_dl_sym(r->lib, "rocblas_set_stream", &r->set_stream) ||
        !pb_dl_sym(r->lib, "rocblas_gemm_ex", &r->gemm_ex))
        return 0;
    /* a name for a failure's status only: a rocBLAS without it still runs */
    (void)pb_dl_sym(r->lib, "rocblas_status_to_string", &r->status_to_string);
    return 1;
}

int pb_rocblas_open(pb_rocblas_t *r, pb_err_t *err)
{
    memset(r, 0, sizeof *r);
    char cand[PB_ROCBLAS_MAX_CANDIDATES][256];
    int n = pb_rocblas_candidates(getenv("PARBENCH_ROCBLAS_LIB"), getenv("ROCM_PATH"), cand,
                                  PB_ROCBLAS_MAX_CANDIDATES);
    char tried[400] = "", last[160] = "";
    for (int i = 0; i < n && r->lib == NULL; i++) {
        /* kept loaded once opened, as cuBLAS is (pb_cublas.h): the
         * library's per-thread state outlives any one handle */
        r->lib = dlopen(cand[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (r->lib != NULL) {
            memcpy(r->path, cand[i], sizeof r->path); /* both 256 bytes */
            break;
        }
        const char *e = dlerror();
        snprintf(last, sizeof last, "%.159s", e != NULL ? e : "dlopen failed");
        size_t used = strlen(tried);
        snprintf(tried + used, sizeof tried - used, "%s%.120s", i ? ", " : "", cand[i]);
    }
    if (r->lib == NULL)
        return pb_err_set(err, PB_EINPUT,
                          "no rocBLAS: none of %s loads (last: %s); install rocBLAS or set "
                          "PARBENCH_ROCBLAS_LIB",
                          tried, last);
    if (!resolve(r)) {
        char path[256];
        memcpy(path, r->path, sizeof path);
        pb_rocblas_close(r);
        return pb_err_set(err, PB_EINPUT, "no rocBLAS: %s lacks an entry point parbench gemm calls",
                          path);
    }
    return PB_OK;
}

void pb_rocblas_close(pb_rocblas_t *r)
{
    if (r->lib != NULL && dlclose(r->lib) != 0)
        (void)dlerror(); /* RTLD_NODELETE keeps it mapped either way */
    memset(r, 0, sizeof *r);
}

const char *pb_rocblas_status(const pb_rocblas_t *r, int status, char *buf, size_t len)
{
    const char *s = r->status_to_string != NULL ? r->status_to_string(status) : NULL;
    if (s != NULL)
        snprintf(buf, len, "%s", s);
    else
        snprintf(buf, len, "rocBLAS status %d", status);
    return buf;
}
