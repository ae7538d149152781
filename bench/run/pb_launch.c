/* Starting without a launcher: the world to launch and mpirun run over
 * this program's own arguments (pb_launch.h). */
#include "pb_launch.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/pb_kfd_node.h"
#include "../glue/pb_pattern_plan.h"
#include "../glue/pb_replay_plan.h"
#include "pb_launch_status.h"

int pb_launch_local_gpus(void)
{
    /* one directory per GPU the NVIDIA kernel driver manages, and one KFD
     * node with a nonzero gfx_target_version per AMD GPU (a GCD each on
     * MI250X, as ROCm counts devices): both are the kernel's own files,
     * so reading them needs neither CUDA nor ROCm and cannot hang on a
     * broken device */
    int n = pb_kfd_gpu_count(pb_kfd_sysfs_root());
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    if (d == NULL)
        return n;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

int pb_launch_world(const pb_options_t *o, int *np, pb_err_t *err)
{
    if (o->cmd == PB_CMD_REPLAY) /* one rank per recorded rank */
        return pb_rp_launch_world(o->replay.inputs, (size_t)o->replay.ninputs, o->run.np, np,
                                  err);
    int gpus = pb_launch_local_gpus();
    int base = o->run.np ? o->run.np : gpus > 0 ? gpus : 2;
    *np = base;
    if (o->cmd != PB_CMD_PATTERN && o->cmd != PB_CMD_STEP &&
        !(o->cmd == PB_CMD_TUNE && pb_model_opts_given(&o->model)))
        return PB_OK;
    int given = 0;
    for (int d = 0; d < PB_DIM_COUNT; d++)
        given |= o->model.layout[d] != 0;
    pb_pattern_plan_t p;
    if (!o->run.np && given) {
        /* world 0: the layout alone (dp as given, else 1) */
        int code = pb_pattern_plan(&o->model, o->main.pattern_mask, 0, o->run.np, &p, err);
        int prod = p.world;
        pb_pattern_plan_free(&p);
        if (code != PB_OK)
            return code;
        *np = o->model.layout[PB_DIM_DP] || base % prod != 0 ? prod : base;
    }
    /* the model and layout on that world, as every rank will build them:
     * a mistake is one line here, before mpirun starts anything */
    int code = pb_pattern_plan(&o->model, o->main.pattern_mask, *np, o->run.np, &p, err);
    pb_pattern_plan_free(&p);
    return code;
}

int pb_launch_threads(const pb_options_t *o, int *n, pb_err_t *err)
{
    if (pb_launch_under_launcher())
        return pb_err_set(err, PB_EINPUT,
                          "--gpus N runs the ranks as threads of one process; under an MPI "
                          "launcher start one rank per GPU instead (and leave --gpus out)");
    if (o->run.gpus && o->run.np && o->run.gpus != o->run.np)
        return pb_err_set(err, PB_EINPUT, "--gpus %d and --np %d: give one of them", o->run.gpus,
                          o->run.np);
    pb_options_t t = *o;
    t.run.np = o->run.gpus ? o->run.gpus : o->run.np;
    int code = pb_launch_world(&t, n, err);
    if (code != PB_OK)
        return code;
    /* a thread per GPU: more threads than GPUs would share one (the
     * backend refuses that too, but later and less plainly) */
    int local = pb_launch_local_gpus();
    if (local > 0 && *n > local)
        return pb_err_set(err, PB_EINPUT, "%d ranks as threads need %d GPUs; this host has %d "
                          "(NVIDIA driver and AMD KFD together)", *n, *n, local);
    return PB_OK;
}

/* Our own ranks below `top`: processes running this executable whose
 * parent chain reaches mpirun.  Launch daemons in between (Hydra's
 * proxies, orted) are other programs and are left alone. */
static int is_descendant(pid_t pid, pid_t top)
{
    for (int depth = 0; depth < 8 && pid > 1; depth++) {
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            return 0;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        /* "pid (comm) state ppid ...": comm may hold spaces and ')' */
        const char *close = strrchr(buf, ')');
        int ppid = 0;
        if (close == NULL || sscanf(close + 1, " %*c %d", &ppid) != 1)
            return 0;
        if (ppid == (int)top)
            return 1;
        pid = (pid_t)ppid;
    }
    return 0;
}

/* Sends sig to every rank of ours under mpirun (this host's), not to
 * mpirun: Open MPI's mpirun answers SIGINT/SIGTERM by killing the job
 * after a second and exiting 1, while the ranks themselves stop at the
 * next measurement boundary with whole rows and exit 128 + sig. */
static int signal_ranks(pid_t mpirun, const char *self, int sig)
{
    DIR *d = opendir("/proc");
    if (d == NULL)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 1 || pid == (long)mpirun)
            continue;
        char link[64], exe[PATH_MAX];
        snprintf(link, sizeof link, "/proc/%ld/exe", pid);
        ssize_t len = readlink(link, exe, sizeof exe - 1);
        if (len <= 0)
            continue;
        exe[len] = '\0';
        if (strcmp(exe, self) == 0 && is_descendant((pid_t)pid, mpirun) &&
            kill((pid_t)pid, sig) == 0)
            n++;
    }
    closedir(d);
    return n;
}

/* The parent stays: mpirun runs in a process group of its own, so a
 * Ctrl-C at the terminal reaches only this process, which hands the
 * signal to the ranks (see signal_ranks) and then waits for mpirun.
 * mpirun leaves a terminal's stdin alone while in the background. */
static int supervise(pid_t child, const char *self)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGCHLD);
    int got = 0;
    for (;;) {
        int status;
        pid_t w = waitpid(child, &status, WNOHANG);
        if (w == child) {
            int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            /* after our signal the ranks exit 128 + sig and mpirun passes
             * that on; its own generic 1 also means the stop we asked for */
            if (got && rc == 1)
                rc = 128 + got;
            return rc;
        }
        struct timespec ts = {0, 200000000L};
        int sig = sigtimedwait(&set, NULL, &ts);
        if (sig == SIGINT || sig == SIGTERM) {
            if (!got)
                got = sig;
            if (signal_ranks(child, self, sig) == 0)
                kill(-child, sig); /* no rank of ours found: the whole group */
        }
    }
}

/* mpirun's command line: the launcher, the ranks, the flags root and
 * oversubscription need, then this very executable with the user's
 * arguments.  Returns a calloc'd NULL-terminated vector (NULL: out of
 * memory) and its length in *k; npbuf holds the count's text. */
static char **mpirun_argv(const char *mpirun, const char *self, int argc, char **argv, int np,
                          char *npbuf, size_t nplen, int *k)
{
    snprintf(npbuf, nplen, "%d", np);
    char **av = calloc((size_t)argc + 8, sizeof *av);
    if (av == NULL)
        return NULL;
    *k = 0;
    av[(*k)++] = (char *)mpirun;
    av[(*k)++] = "-np";
    av[(*k)++] = npbuf;
    /* Open MPI refuses root without this, and more ranks than cores
     * without the other: the user asked for these ranks explicitly */
    if (geteuid() == 0)
        av[(*k)++] = "--allow-run-as-root";
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > 0 && np > cores) {
        av[(*k)++] = "--oversubscribe";
        fprintf(stderr, "parbench: warning: %d ranks on %ld cores: oversubscribed; timings "
                        "will measure the scheduler as much as the links\n", np, cores);
    }
    av[(*k)++] = (char *)self;
    for (int i = 1; i < argc; i++)
        av[(*k)++] = argv[i];
    av[*k] = NULL;
    return av;
}

int pb_launch_setenv(const char *name_value, pb_err_t *err)
{
    if (name_value == NULL)
        return PB_OK;
    char name[128];
    size_t n = strcspn(name_value, "=");
    if (n == 0 || n >= sizeof name || name_value[n] != '=')
        return pb_err_set(err, PB_ERUNTIME, "launch setting '%s' is not NAME=VALUE", name_value);
    snprintf(name, sizeof name, "%.*s", (int)n, name_value);
    if (setenv(name, name_value + n + 1, 0) != 0)
        return pb_err_set(err, PB_ERUNTIME, "setenv(%s) failed: %s", name, strerror(errno));
    return PB_OK;
}

/* Forks and execs mpirun (av) in a process group of its own and
 * supervises it: its exit code, or PB_ERUNTIME with err filled when it
 * could not start. */
static int spawn(const char *mpirun, char **av, const char *self, pb_err_t *err)
{
    /* blocked here from before the fork, so none is lost before the
     * supervisor waits for it; the child unblocks them before exec */
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, &old);
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return pb_err_set(err, PB_ERUNTIME, "pipe: %s", strerror(errno));
    fcntl(pipefd[1], F_SETFD, FD_CLOEXEC);
    pid_t child = fork();
    if (child == 0) {
        setpgid(0, 0);
        sigprocmask(SIG_SETMASK, &old, NULL);
        close(pipefd[0]);
        execvp(mpirun, av);
        int e = errno; /* tell the parent why, through the pipe */
        if (write(pipefd[1], &e, sizeof e) < 0)
            _exit(127);
        _exit(127);
    }
    close(pipefd[1]);
    if (child < 0) {
        close(pipefd[0]);
        return pb_err_set(err, PB_ERUNTIME, "fork: %s", strerror(errno));
    }
    setpgid(child, child); /* both sides, so no race with a fast signal */
    int e = 0;
    ssize_t got = read(pipefd[0], &e, sizeof e);
    close(pipefd[0]);
    if (got == (ssize_t)sizeof e) {
        waitpid(child, NULL, 0);
        return pb_err_set(err, PB_ERUNTIME,
                          "cannot run '%s': %s (install Open MPI, set PARBENCH_MPIRUN, or use --no-launch)",
                          mpirun, strerror(e));
    }
    int rc = supervise(child, self);
    err->code = rc;
    err->msg[0] = '\0';
    return rc;
}

int pb_launch_exec(int argc, char **argv, int np, pb_err_t *err)
{
    const char *mpirun = getenv("PARBENCH_MPIRUN");
    if (mpirun == NULL || *mpirun == '\0')
        mpirun = "mpirun";
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return pb_err_set(err, PB_ERUNTIME, "cannot find my own executable: %s", strerror(errno));
    self[len] = '\0';

    char npbuf[16];
    int k = 0;
    char **av = mpirun_argv(mpirun, self, argc, argv, np, npbuf, sizeof npbuf, &k);
    if (av == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    /* the ranks' agreed exit code comes back through this file, so that
     * mpirun sees no non-zero exit to print its banner about
     * (pb_launch_status.h) */
    char status[PATH_MAX];
    if (pb_launch_status_make(status, sizeof status, err) != PB_OK) {
        free(av);
        return err->code;
    }
    printf("# parbench: not started by a launcher; running:");
    for (int i = 0; i < k; i++)
        printf(" %s", av[i]);
    printf("\n");
    fflush(stdout);
    fflush(stderr);
    setenv("PARBENCH_LAUNCHED", "1", 1);
    /* the ranks' stderr will be a pipe to mpirun: tell rank 0 whether the
     * person's terminal is at the other end (the progress line) */
    if (isatty(STDERR_FILENO) && getenv("PARBENCH_PROGRESS") == NULL)
        setenv("PARBENCH_PROGRESS", "1", 1);
    int rc = spawn(mpirun, av, self, err);
    free(av);
    if (err->msg[0] != '\0') { /* mpirun did not start */
        unlink(status);
        return rc;
    }
    rc = pb_launch_status_take(status, rc);
    err->code = rc;
    return rc;
}
