/* A self-launch's exit code through a file (pb_launch_status.h). */
#include "pb_launch_status.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pb_launch_status_make(char *path, size_t len, pb_err_t *err)
{
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || *tmp == '\0')
        tmp = "/tmp";
    int n = snprintf(path, len, "%s/parbench-status-XXXXXX", tmp);
    if (n < 0 || (size_t)n >= len)
        return pb_err_set(err, PB_ERUNTIME, "TMPDIR %s: path too long", tmp);
    int fd = mkstemp(path);
    if (fd < 0)
        return pb_err_set(err, PB_ERUNTIME, "cannot create a status file in %s: %s", tmp,
                          strerror(errno));
    close(fd);
    if (setenv(PB_LAUNCH_STATUS_ENV, path, 1) != 0) {
        int e = errno;
        unlink(path);
        return pb_err_set(err, PB_ERUNTIME, "setenv(%s) failed: %s", PB_LAUNCH_STATUS_ENV,
                          strerror(e));
    }
    return PB_OK;
}

int pb_launch_status_take(const char *path, int mpirun_rc)
{
    int code = 0;
    FILE *f = mpirun_rc == 0 ? fopen(path, "r") : NULL;
    if (f != NULL) {
        int v;
        /* only what rank 0 writes: one exit status, 0..255 */
        if (fscanf(f, "%d", &v) == 1 && v >= 0 && v <= 255)
            code = v;
        fclose(f);
    }
    unlink(path);
    return mpirun_rc != 0 ? mpirun_rc : code;
}

int pb_launch_status_report(int rank, int code)
{
    const char *path = getenv(PB_LAUNCH_STATUS_ENV);
    if (path == NULL || *path == '\0' || getenv("PARBENCH_LAUNCHED") == NULL)
        return code;
    if (rank != 0)
        return PB_OK; /* rank 0 carries the code every rank agreed on */
    /* no O_CREAT: the launching process made the file; a rank 0 on
     * another host finds none and exits with the code instead */
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        return code;
    char buf[16];
    int n = snprintf(buf, sizeof buf, "%d\n", code);
    int ok = n > 0 && write(fd, buf, (size_t)n) == (ssize_t)n;
    if (close(fd) != 0)
        ok = 0;
    return ok ? PB_OK : code;
}
