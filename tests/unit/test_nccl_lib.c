/* Where libnccl is looked for (collectives/pb_nccl_lib.h), without
 * loading a real library: the candidate list for given values of
 * --nccl-lib, PARBENCH_NCCL_LIB, VIRTUAL_ENV and CONDA_PREFIX, and the
 * refusal of a named file that does not exist (no dlopen is reached). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>
#include <string.h>

#include "collectives/pb_nccl_lib.h"
#include "pb_test.h"

#define SITE "/lib/python3.*/site-packages/nvidia/nccl/lib/libnccl.so.2"

static void order(void)
{
    pb_nccl_candidate_t c[PB_NCCL_MAX_CANDIDATES];
    /* nothing set: the loader's libnccl.so.2 alone */
    CHECK(pb_nccl_lib_candidates(NULL, NULL, NULL, NULL, c) == 1);
    CHECK(c[0].from == PB_NCCL_FROM_LOADER && strcmp(c[0].name, "libnccl.so.2") == 0);
    /* empty values count as unset */
    CHECK(pb_nccl_lib_candidates("", "", "", "", c) == 1);
    CHECK(c[0].from == PB_NCCL_FROM_LOADER);
    /* the option is the only candidate, whatever else is set */
    CHECK(pb_nccl_lib_candidates("/opt/a.so", "/opt/b.so", "/venv", "/conda", c) == 1);
    CHECK(c[0].from == PB_NCCL_FROM_OPTION && strcmp(c[0].name, "/opt/a.so") == 0);
    /* then the environment variable, also the only one */
    CHECK(pb_nccl_lib_candidates(NULL, "/opt/b.so", "/venv", "/conda", c) == 1);
    CHECK(c[0].from == PB_NCCL_FROM_ENV && strcmp(c[0].name, "/opt/b.so") == 0);
    /* else the loader, then the virtualenv's wheel, then conda's */
    CHECK(pb_nccl_lib_candidates(NULL, NULL, "/venv", "/conda", c) == 3);
    CHECK(c[0].from == PB_NCCL_FROM_LOADER && strcmp(c[0].name, "libnccl.so.2") == 0);
    CHECK(c[1].from == PB_NCCL_FROM_VENV && strcmp(c[1].name, "/venv" SITE) == 0);
    CHECK(c[2].from == PB_NCCL_FROM_CONDA && strcmp(c[2].name, "/conda" SITE) == 0);
    /* conda alone */
    CHECK(pb_nccl_lib_candidates(NULL, NULL, NULL, "/conda", c) == 2);
    CHECK(c[1].from == PB_NCCL_FROM_CONDA && strcmp(c[1].name, "/conda" SITE) == 0);
    /* a path that does not fit is refused, not cut */
    char longp[700];
    memset(longp, 'x', sizeof longp - 1);
    longp[0] = '/';
    longp[sizeof longp - 1] = '\0';
    CHECK(pb_nccl_lib_candidates(longp, NULL, NULL, NULL, c) == -1);
    CHECK(pb_nccl_lib_candidates(NULL, NULL, longp, NULL, c) == -1);

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
    CHECK(pb_nccl_lib_open("/nonexistent/opt/libnccl.so.2", &lib, why, sizeof why) == -1);
    CHECK(strcmp(why, "--nccl-lib /nonexistent/opt/libnccl.so.2: no such file") == 0);
    CHECK(lib.handle == NULL);
    CHECK(pb_nccl_lib_open(NULL, &lib, why, sizeof why) == -1);
    CHECK(strcmp(why, "PARBENCH_NCCL_LIB=/nonexistent/env/libnccl.so.2: no such file") == 0);
    CHECK(lib.handle == NULL);
    CHECK(unsetenv("PARBENCH_NCCL_LIB") == 0);
    pb_nccl_lib_close(&lib); /* a closed one: no-op */
    CHECK(lib.handle == NULL);
}

int main(void)
{
    order();
    missing();
    PB_TEST_END("unit_nccl_lib");
}
