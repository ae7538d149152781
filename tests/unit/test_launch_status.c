/* issue 50: a self-launch's exit code handed back through a file
 * (bench/run/pb_launch_status.h) and the memory rule the launching
 * process shares with the ranks (bench/run/pb_mem_fits.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/run/pb_launch_status.h"
#include "bench/run/pb_mem_fits.h"
#include "pb_test.h"

/* the file's whole text ("" when empty, NULL when missing) */
static const char *slurp(const char *path)
{
    static char buf[64];
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* does the file hold exactly `text`? (NULL: is it missing?) */
static int holds(const char *path, const char *text)
{
    const char *got = slurp(path);
    return text == NULL ? got == NULL : got != NULL && strcmp(got, text) == 0;
}

static void test_status(void)
{
    char path[256];
    pb_err_t err;
    unsetenv(PB_LAUNCH_STATUS_ENV);
    unsetenv("PARBENCH_LAUNCHED");
    /* under a person's own launcher: the code itself, on every rank */
    CHECK(pb_launch_status_report(0, 2) == 2 && pb_launch_status_report(1, 2) == 2);

    CHECK(pb_launch_status_make(path, sizeof path, &err) == PB_OK);
    CHECK(strcmp(getenv(PB_LAUNCH_STATUS_ENV), path) == 0);
    CHECK(holds(path, ""));
    /* the file alone is not a self-launch (PARBENCH_LAUNCHED says so) */
    CHECK(pb_launch_status_report(0, 2) == 2 && holds(path, ""));
    setenv("PARBENCH_LAUNCHED", "1", 1);
    /* a rank other than 0 exits 0 and writes nothing: rank 0 carries it */
    CHECK(pb_launch_status_report(1, 2) == 0 && holds(path, ""));
    CHECK(pb_launch_status_report(0, 2) == 0 && holds(path, "2\n"));
    /* mpirun exited 0 (every rank did): the code is the file's, then gone */
    CHECK(pb_launch_status_take(path, 0) == 2 && holds(path, NULL));

    /* a rank killed by SIGSEGV: mpirun's 139 (128 + 11) stands, whatever
     * the file says */
    CHECK(pb_launch_status_make(path, sizeof path, &err) == PB_OK);
    CHECK(pb_launch_status_report(0, 0) == 0 && holds(path, "0\n"));
    CHECK(pb_launch_status_take(path, 139) == 139 && holds(path, NULL));

    /* rank 0 on a host without the file: it exits with the code itself */
    CHECK(pb_launch_status_make(path, sizeof path, &err) == PB_OK);
    CHECK(unlink(path) == 0);
    CHECK(pb_launch_status_report(0, 1) == 1 && holds(path, NULL));
    CHECK(pb_launch_status_take(path, 1) == 1);

    /* nothing written and mpirun 0: 0 */
    CHECK(pb_launch_status_make(path, sizeof path, &err) == PB_OK);
    CHECK(pb_launch_status_take(path, 0) == 0 && holds(path, NULL));
    unsetenv(PB_LAUNCH_STATUS_ENV);
    unsetenv("PARBENCH_LAUNCHED");
}

static void test_mem_fits(void)
{
    pb_err_t err;
    const uint64_t gib = UINT64_C(1) << 30, tib = UINT64_C(1) << 40;
    /* 2 ranks x 2 buffers of 1 GiB = 4 GiB: fits in exactly 4 GiB, not
     * in one byte less */
    pb_err_clear(&err);
    CHECK(pb_mem_fits(gib, 0, 2, 4 * gib, "host memory (MemAvailable)", &err) == PB_OK);
    pb_err_clear(&err);
    CHECK(pb_mem_fits(gib, 0, 2, 4 * gib - 1, "host memory (MemAvailable)", &err) ==
          PB_EINPUT);
    /* coll -b 1T on 2 ranks: (2 x 2^40 + 4 x 2 x 8 B) x 2 = 4 TiB + 128 B,
     * printed 4.0 TiB; 1 GiB available */
    pb_err_clear(&err);
    CHECK(pb_mem_fits(tib, 64, 2, gib, "host memory (MemAvailable)", &err) == PB_EINPUT);
    CHECK(strcmp(err.msg, "not enough memory: 2 buffers of 1.0 TiB per rank x 2 ranks on this "
                          "node need 4.0 TiB of host memory (MemAvailable); 1.0 GiB available") ==
          0);
    /* one rank: no "per rank" */
    pb_err_clear(&err);
    CHECK(pb_mem_fits(tib, 0, 1, gib, "device memory", &err) == PB_EINPUT);
    CHECK(strcmp(err.msg, "not enough memory: 2 buffers of 1.0 TiB need 2.0 TiB of device "
                          "memory; 1.0 GiB available") == 0);
    /* 2 x (2^64 - 1) does not wrap to something small that fits */
    pb_err_clear(&err);
    CHECK(pb_mem_fits(UINT64_MAX, 0, 1, gib, "host memory", &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "need over 16 EiB") != NULL);
}

int main(void)
{
    test_status();
    test_mem_fits();
    PB_TEST_END("test_launch_status");
}
