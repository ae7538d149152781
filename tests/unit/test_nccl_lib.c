/* Where libnccl is looked for (collectives/pb_nccl_lib.h), without
 * loading a real library: the candidate list for given values of
 * --nccl-lib, PARBENCH_NCCL_LIB, VIRTUAL_ENV and CONDA_PREFIX, and the
 * refusal of a named file that does not exist (no dlopen is reached). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>
#include <string.h>

#include "collectives/pb_nccl_lib.h"
#include "pb_test.h"

/* NCCL's search (the RCCL cases below pass their vendor) */
#define NV (&pb_nccl_vendor_nvidia)
#define SITE "/lib/python3.*/site-packages/nvidia/nccl/lib/libnccl.so.2"

static void order(void)
{
    pb_nccl_candidate_t c[PB_NCCL_MAX_CANDIDATES];
    /* nothing set: the loader's libnccl.so.2 alone */
    CHECK(pb_nccl_lib_candidates(NV, NULL, NULL, NULL, NULL, NULL, c) == 1);
    CHECK(c[0].from == PB_NCCL_FROM_LOADER && strcmp(c[0].name, "libnccl.so.2") == 0);
    /* empty values count as unset */
    CHECK(pb_nccl_lib_candidates(NV, "", "", "", "", NULL, c) == 1);
    CHECK(c[0].from == PB_NCCL_FROM_LOADER);
    /* the option is the only candidate, whatever else is set */
    CHECK(pb_nccl_lib_candidates(NV, "/opt/a.so", "/opt/b.so", "/venv", "/conda", NULL, c) == 1);
    CHECK(c[0].from == PB_NCCL_FROM_OPTION && strcmp(c[0].name, "/opt/a.so") == 0);
    /* then the environment variable, also the only one */
    CHECK(pb_nccl_lib_candidates(NV, NULL, "/opt/b.so", "/venv", "/conda", NULL, c) == 1);
    CHECK(c[0].from == PB_NCCL_FROM_ENV && strcmp(c[0].name, "/opt/b.so") == 0);
    /* else the loader, then the virtualenv's wheel, then conda's */
    CHECK(pb_nccl_lib_candidates(NV, NULL, NULL, "/venv", "/conda", NULL, c) == 3);
    CHECK(c[0].from == PB_NCCL_FROM_LOADER && strcmp(c[0].name, "libnccl.so.2") == 0);
    CHECK(c[1].from == PB_NCCL_FROM_VENV && strcmp(c[1].name, "/venv" SITE) == 0);
    CHECK(c[2].from == PB_NCCL_FROM_CONDA && strcmp(c[2].name, "/conda" SITE) == 0);
    /* conda alone */
    CHECK(pb_nccl_lib_candidates(NV, NULL, NULL, NULL, "/conda", NULL, c) == 2);
    CHECK(c[1].from == PB_NCCL_FROM_CONDA && strcmp(c[1].name, "/conda" SITE) == 0);
    /* a path that does not fit is refused, not cut */
    char longp[700];
    memset(longp, 'x', sizeof longp - 1);
    longp[0] = '/';
    longp[sizeof longp - 1] = '\0';
    CHECK(pb_nccl_lib_candidates(NV, longp, NULL, NULL, NULL, NULL, c) == -1);
    CHECK(pb_nccl_lib_candidates(NV, NULL, NULL, longp, NULL, NULL, c) == -1);

    CHECK(strcmp(pb_nccl_from_name(PB_NCCL_FROM_OPTION), "--nccl-lib") == 0);
    CHECK(strcmp(pb_nccl_from_name(PB_NCCL_FROM_ENV), "PARBENCH_NCCL_LIB") == 0);
    CHECK(strcmp(pb_nccl_from_name(PB_NCCL_FROM_VENV), "VIRTUAL_ENV") == 0);
    CHECK(strcmp(pb_nccl_from_name(PB_NCCL_FROM_CONDA), "CONDA_PREFIX") == 0);
}

/* A named file that is not there: one line naming it as given, nothing
 * left open; the option wins over the variable. */
static void missing(void)
{
    pb_nccl_lib_t lib;
    char why[480] = "";
    CHECK(setenv("PARBENCH_NCCL_LIB", "/nonexistent/env/libnccl.so.2", 1) == 0);
    CHECK(pb_nccl_lib_open(NV, "/nonexistent/opt/libnccl.so.2", &lib, why, sizeof why) == -1);
    CHECK(strcmp(why, "--nccl-lib /nonexistent/opt/libnccl.so.2: no such file") == 0);
    CHECK(lib.handle == NULL);
    CHECK(pb_nccl_lib_open(NV, NULL, &lib, why, sizeof why) == -1);
    CHECK(strcmp(why, "PARBENCH_NCCL_LIB=/nonexistent/env/libnccl.so.2: no such file") == 0);
    CHECK(lib.handle == NULL);
    CHECK(unsetenv("PARBENCH_NCCL_LIB") == 0);
    pb_nccl_lib_close(&lib); /* a closed one: no-op */
    CHECK(lib.handle == NULL);
}

/* issue 51: RCCL's candidates (pb_nccl_lib.h): the same option, its own
 * variable, librccl.so.1 on the loader's path, then $ROCM_PATH/lib and
 * /opt/rocm/lib (ROCm's default prefix); no Python environment. */
static void rccl_order(void)
{
    const pb_nccl_vendor_t *v = &pb_nccl_vendor_amd;
    pb_nccl_candidate_t c[PB_NCCL_MAX_CANDIDATES];
    /* nothing set: the loader's, then /opt/rocm's; venv and conda unused */
    CHECK(pb_nccl_lib_candidates(v, NULL, NULL, "/venv", "/conda", NULL, c) == 2);
    CHECK(c[0].from == PB_NCCL_FROM_LOADER && strcmp(c[0].name, "librccl.so.1") == 0);
    CHECK(c[1].from == PB_NCCL_FROM_ROCM && strcmp(c[1].name, "/opt/rocm/lib/librccl.so.1") == 0);
    /* ROCM_PATH before /opt/rocm */
    CHECK(pb_nccl_lib_candidates(v, NULL, "", NULL, NULL, "/rocm-6.2", c) == 3);
    CHECK(c[1].from == PB_NCCL_FROM_ROCM && strcmp(c[1].name, "/rocm-6.2/lib/librccl.so.1") == 0);
    CHECK(strcmp(c[2].name, "/opt/rocm/lib/librccl.so.1") == 0);
    /* --nccl-lib names RCCL's file too, and is the only candidate */
    CHECK(pb_nccl_lib_candidates(v, "/x/librccl.so.1", "/y.so", NULL, NULL, "/r", c) == 1);
    CHECK(c[0].from == PB_NCCL_FROM_OPTION && strcmp(c[0].name, "/x/librccl.so.1") == 0);
    CHECK(pb_nccl_lib_candidates(v, NULL, "/y.so", NULL, NULL, "/r", c) == 1);
    CHECK(c[0].from == PB_NCCL_FROM_ENV && strcmp(c[0].name, "/y.so") == 0);
    /* NCCL's ignore ROCM_PATH: the loader's, then the virtualenv's */
    CHECK(pb_nccl_lib_candidates(NV, NULL, NULL, "/venv", NULL, "/r", c) == 2);
    CHECK(strcmp(c[1].name, "/venv" SITE) == 0);
}

/* RCCL's named file, through its own variable; and none found: the
 * sentence the rccl backend's refusal carries. */
static void rccl_missing(void)
{
    pb_nccl_lib_t lib;
    char why[480] = "";
    CHECK(setenv("PARBENCH_RCCL_LIB", "/nonexistent/librccl.so.1", 1) == 0);
    CHECK(pb_nccl_lib_open(&pb_nccl_vendor_amd, NULL, &lib, why, sizeof why) == -1);
    CHECK(strcmp(why, "PARBENCH_RCCL_LIB=/nonexistent/librccl.so.1: no such file") == 0);
    CHECK(unsetenv("PARBENCH_RCCL_LIB") == 0);
    CHECK(setenv("ROCM_PATH", "/nonexistent/rocm", 1) == 0);
    /* no librccl.so.1 on this machine's loader path nor in /opt/rocm */
    if (pb_nccl_lib_open(&pb_nccl_vendor_amd, NULL, &lib, why, sizeof why) == 0) {
        pb_nccl_lib_close(&lib); /* a machine with RCCL: nothing to check */
    } else {
        CHECK(strncmp(why, "no RCCL: librccl.so.1 not found (", 33) == 0);
        CHECK(strstr(why, "PARBENCH_RCCL_LIB") != NULL);
    }
    CHECK(unsetenv("ROCM_PATH") == 0);
}

int main(void)
{
    order();
    missing();
    rccl_order();
    rccl_missing();
    PB_TEST_END("unit_nccl_lib");
}
