#include "pb_wd_signals.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

struct pb_wd_signals {
    int fd;             /* SIGINT and SIGTERM of the whole process */
    atomic_int signo;   /* the first one taken, 0 before */
    atomic_int speaker; /* 1: this process holds rank 0 */
};

int pb_wd_signals_open(pb_wd_signals_t **out, pb_err_t *err)
{
    *out = NULL;
    pb_wd_signals_t *s = calloc(1, sizeof *s);
    if (s == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for the signal record");
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    s->fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (s->fd < 0) {
        int e = errno;
        free(s);
        return pb_err_set(err, PB_ERUNTIME, "cannot open a signalfd for SIGINT and SIGTERM: %s",
                          strerror(e));
    }
    atomic_init(&s->signo, 0);
    atomic_init(&s->speaker, 0);
    *out = s;
    return PB_OK;
}

void pb_wd_signals_close(pb_wd_signals_t *s)
{
    if (s == NULL)
        return;
    close(s->fd);
    free(s);
}

int pb_wd_signals_fd(const pb_wd_signals_t *s)
{
    return s->fd;
}

void pb_wd_signals_speak(pb_wd_signals_t *s)
{
    atomic_store(&s->speaker, 1);
}

int pb_wd_signals_got(const pb_wd_signals_t *s)
{
    return atomic_load((atomic_int *)&s->signo);
}

static const char *sig_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : "SIGTERM";
}

/* The count is the process's, whichever watchdog thread reads: the
 * compare-and-swap lets exactly one signal be the first. */
static void on_signal(pb_wd_signals_t *s, int rank, int sig)
{
    int expected = 0;
    if (atomic_compare_exchange_strong(&s->signo, &expected, sig)) {
        if (atomic_load(&s->speaker))
            fprintf(stderr,
                    "parbench: %s: stopping after the current measurement (again to stop now)\n",
                    sig_name(sig));
        return;
    }
    /* the second signal: rows already written are whole (one write each) */
    fprintf(stderr, "parbench: rank %d: %s again: stopping now\n", rank, sig_name(sig));
    _exit(128 + sig);
}

void pb_wd_signals_read(pb_wd_signals_t *s, int rank)
{
    struct signalfd_siginfo si;
    /* non-blocking: another watchdog woken by the same signal may have
     * taken it already, and this read then finds nothing */
    while (read(s->fd, &si, sizeof si) == (ssize_t)sizeof si)
        if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM)
            on_signal(s, rank, (int)si.ssi_signo);
}
