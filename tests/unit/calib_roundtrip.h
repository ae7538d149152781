/* calib_roundtrip.h - the calibration tests' one helper: a calibration
 * written to a fresh temporary calib.csv and read back, as `calibrate -o`
 * and `model --calib` do. */
#ifndef PB_TEST_CALIB_ROUNDTRIP_H
#define PB_TEST_CALIB_ROUNDTRIP_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench/glue/pb_calib_csv.h"
#include "pb_test.h"

/* k through the file into back (initialised here); the file is removed. */
static void calib_roundtrip(const pb_calib_t *k, pb_calib_t *back)
{
    pb_err_t err;
    pb_err_clear(&err);
    pb_calib_init(back);
    char out[] = "/tmp/pb_calib_rtXXXXXX";
    int fd = mkstemp(out);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    CHECK(pb_calib_csv_write(out, k, &err) == PB_OK);
    CHECK(pb_calib_csv_read(out, back, &err) == PB_OK);
    remove(out);
}

#endif
