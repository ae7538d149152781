/* test_cli.c - bench/cli/pb_cli: defaults, accepted forms and refusals of the
 * command line (pb_cli_parse).  Expected defaults are the ones the usage
 * text of `parbench coll --help` documents. */
#include "bench/cli/pb_options.h"

#include <stdint.h>
#include <string.h>

#include "pb_test.h"

/* argv is NULL-terminated; argv[0] is the program */
static int parse_v(char **argv, pb_options_t *o, pb_err_t *err)
{
    int argc = 0;
    while (argv[argc] != NULL)
        argc++;
    memset(o, 0x5A, sizeof *o); /* the parser must set every field itself */
    memset(err, 0, sizeof *err);
    err->code = 99; /* and clear a stale error */
    return pb_cli_parse(argc, argv, o, err);
}

#define PARSE(o, err, ...) parse_v((char *[]){"parbench", __VA_ARGS__, NULL}, o, err)

/* Refused with PB_EINPUT and a message containing `needle`. */
static void refused(int rc, const pb_err_t *err, const char *needle, int line)
{
    if (rc != PB_EINPUT || err->code != PB_EINPUT || strstr(err->msg, needle) == NULL) {
        fprintf(stderr, "line %d: want PB_EINPUT naming '%s', got rc=%d code=%d msg='%s'\n",
                line, needle, rc, err->code, err->msg);
        pb_test_failures++;
    }
}
#define REFUSED(needle, ...)                                                           \
    do {                                                                               \
        pb_options_t o_;                                                               \
        pb_err_t e_;                                                                   \
        int rc_ = PARSE(&o_, &e_, __VA_ARGS__);                                        \
        refused(rc_, &e_, needle, __LINE__);                                           \
    } while (0)

static void test_coll_defaults(void)
{
    pb_options_t o;
    pb_err_t err;
    CHECK(PARSE(&o, &err, "coll") == PB_OK);
    CHECK(err.code == PB_OK);
    CHECK(o.cmd == PB_CMD_COLL);
    CHECK(o.help == 0);
    CHECK(o.meas.ncolls == 1 && o.meas.colls[0] == PB_ALLREDUCE); /* "(default allreduce)" */
    CHECK(o.meas.ndtypes == 1 && o.meas.dtypes[0] == PB_F32);     /* "(default float)" */
    CHECK(o.meas.nredops == 1 && o.meas.redops[0] == PB_SUM);     /* "(default sum)" */
    CHECK(o.meas.nmodes == 1 && o.meas.modes[0] == PB_MODE_LATENCY); /* "(default latency)" */
    CHECK(o.meas.out_of_place == 1 && o.meas.in_place == 1);      /* "--place ... (default both)" */
    CHECK(o.meas.root == 0);                                 /* "(default 0)" */
    CHECK(o.meas.size_min == 8);                             /* "-b ... (default 8)" */
    CHECK(o.meas.size_max == UINT64_C(67108864));            /* 64M = 64 * 2^20 with -b absent */
    CHECK(o.meas.size_factor == 2.0);                        /* "-f ... (default 2)" */
    CHECK(o.meas.size_step == 0);
    CHECK(o.meas.size_list == NULL && o.meas.sizes_given == 0);
    CHECK(o.meas.iters == 0);                                /* adaptive */
    CHECK(o.meas.warmup == 5);                               /* "-w ... (default 5)" */
    CHECK(o.meas.min_iters == 10 && o.meas.max_iters == 1000);    /* "(default 10, 1000)" */
    CHECK_NEAR(o.meas.precision, 0.02, 1e-15);               /* "(default 2)" percent */
    CHECK(o.meas.time_budget == 1.0);                        /* "(default 1)" second */
    CHECK(o.meas.batch == 0);                                /* auto */
    CHECK(o.meas.check == 0);                                /* off unless --check */
    CHECK(o.run.csv_path == NULL && o.run.label == NULL);
    CHECK(o.run.quiet == 0);
    CHECK(strcmp(o.run.backend, "auto") == 0);              /* "auto (default: nccl when a GPU answers, else mpi)" */
    CHECK(o.run.timeout_s == 300.0);                        /* "(default 300; 0 = never)" */
    CHECK(o.run.memory_device == 0);
    CHECK(o.run.np == 0 && o.run.no_launch == 0 && o.meas.group_size == 0);
    CHECK(o.run.chunk_bytes == 0);
    CHECK(o.run.fault == PB_FAULT_NONE && o.run.fault_rank == -1);
}

static void test_coll_values(void)
{
    pb_options_t o;
    pb_err_t err;

    CHECK(PARSE(&o, &err, "coll", "--op", "allreduce", "-b", "8", "-e", "16M", "-f", "4",
                "--check", "--csv", "r.csv") == PB_OK);
    CHECK(o.cmd == PB_CMD_COLL);
    CHECK(o.meas.ncolls == 1 && o.meas.colls[0] == PB_ALLREDUCE);
    CHECK(o.meas.size_min == 8);
    CHECK(o.meas.size_max == UINT64_C(16777216)); /* 16M = 16 * 2^20 */
    CHECK(o.meas.size_factor == 4.0);
    CHECK(o.meas.check == 1);
    CHECK(o.run.csv_path != NULL && strcmp(o.run.csv_path, "r.csv") == 0);

    CHECK(PARSE(&o, &err, "coll", "--op", "all") == PB_OK);
    CHECK(o.meas.ncolls == 8); /* every collective, in table order */
    for (int i = 0; i < 8 && i < o.meas.ncolls; i++)
        CHECK(o.meas.colls[i] == (pb_coll_t)i);

    CHECK(PARSE(&o, &err, "coll", "--op", "alltoall,allgather") == PB_OK);
    CHECK(o.meas.ncolls == 2 && o.meas.colls[0] == PB_ALLTOALL && o.meas.colls[1] == PB_ALLGATHER);

    CHECK(PARSE(&o, &err, "coll", "--op=reduce_scatter") == PB_OK); /* --name=value, alias */
    CHECK(o.meas.ncolls == 1 && o.meas.colls[0] == PB_REDUCESCATTER);

    CHECK(PARSE(&o, &err, "coll", "--dtype", "bf16,f32") == PB_OK); /* order kept */
    CHECK(o.meas.ndtypes == 2 && o.meas.dtypes[0] == PB_BF16 && o.meas.dtypes[1] == PB_F32);
    CHECK(PARSE(&o, &err, "coll", "-d", "all") == PB_OK);
    CHECK(o.meas.ndtypes == 9); /* float double half bfloat16 int32 int8 f8e4m3 f8e5m2 int64 */
    CHECK(PARSE(&o, &err, "coll", "-dhalf") == PB_OK); /* -xvalue */
    CHECK(o.meas.ndtypes == 1 && o.meas.dtypes[0] == PB_F16);

    CHECK(PARSE(&o, &err, "coll", "--redop", "all") == PB_OK); /* MPI's: no avg */
    CHECK(o.meas.nredops == 3 && o.meas.redops[0] == PB_SUM && o.meas.redops[1] == PB_MAX &&
          o.meas.redops[2] == PB_MIN);
    CHECK(PARSE(&o, &err, "coll", "--redop", "avg") == PB_OK);
    CHECK(o.meas.nredops == 1 && o.meas.redops[0] == PB_AVG);

    CHECK(PARSE(&o, &err, "coll", "--sizes", "8,1K") == PB_OK);
    CHECK(o.meas.size_list != NULL && strcmp(o.meas.size_list, "8,1K") == 0);
    CHECK(o.meas.sizes_given & 4);

    CHECK(PARSE(&o, &err, "coll", "-b", "1K") == PB_OK); /* -e defaults to -b */
    CHECK(o.meas.size_min == 1024 && o.meas.size_max == 1024);
    CHECK(PARSE(&o, &err, "coll", "-b8", "-e64K") == PB_OK); /* attached values */
    CHECK(o.meas.size_min == 8 && o.meas.size_max == 65536);           /* 64 * 1024 */
    CHECK(PARSE(&o, &err, "coll", "-e", "1M") == PB_OK);     /* -b stays 8 */
    CHECK(o.meas.size_min == 8 && o.meas.size_max == 1048576);
    CHECK(PARSE(&o, &err, "coll", "-i", "8", "-b", "8", "-e", "64") == PB_OK);
    CHECK(o.meas.size_step == 8 && o.meas.size_factor == 2.0);

    CHECK(PARSE(&o, &err, "coll", "--fault", "corrupt:2") == PB_OK);
    CHECK(o.run.fault == PB_FAULT_CORRUPT && o.run.fault_rank == 2);

    CHECK(PARSE(&o, &err, "coll", "--precision", "5%") == PB_OK);
    CHECK_NEAR(o.meas.precision, 0.05, 1e-15); /* 5 % = 0.05 */
    CHECK(PARSE(&o, &err, "coll", "--precision", "0.5") == PB_OK);
    CHECK_NEAR(o.meas.precision, 0.005, 1e-15); /* percent: 0.5 % */

    CHECK(PARSE(&o, &err, "coll", "--place", "in") == PB_OK);
    CHECK(o.meas.in_place == 1 && o.meas.out_of_place == 0);
    CHECK(PARSE(&o, &err, "coll", "--place", "out") == PB_OK);
    CHECK(o.meas.in_place == 0 && o.meas.out_of_place == 1);
    CHECK(PARSE(&o, &err, "coll", "--place", "both") == PB_OK);
    CHECK(o.meas.in_place == 1 && o.meas.out_of_place == 1);

    CHECK(PARSE(&o, &err, "coll", "-c", "1") == PB_OK);
    CHECK(o.meas.check == 1);
    CHECK(PARSE(&o, &err, "coll", "--check", "-c", "0") == PB_OK); /* last one wins */
    CHECK(o.meas.check == 0);

    CHECK(PARSE(&o, &err, "coll", "--mode", "both") == PB_OK);
    CHECK(o.meas.nmodes == 2 && o.meas.modes[0] == PB_MODE_LATENCY && o.meas.modes[1] == PB_MODE_THROUGHPUT);
    CHECK(PARSE(&o, &err, "coll", "--mode", "throughput") == PB_OK);
    CHECK(o.meas.nmodes == 1 && o.meas.modes[0] == PB_MODE_THROUGHPUT);

    CHECK(PARSE(&o, &err, "coll", "--np", "4") == PB_OK);
    CHECK(o.run.np == 4);
    CHECK(PARSE(&o, &err, "coll", "-n", "100", "-w", "0", "-r", "3", "--batch", "16") == PB_OK);
    CHECK(o.meas.iters == 100 && o.meas.warmup == 0 && o.meas.root == 3 && o.meas.batch == 16);
    CHECK(PARSE(&o, &err, "coll", "--min-iters", "3", "--max-iters", "7", "--time-budget",
                "0.5") == PB_OK);
    CHECK(o.meas.min_iters == 3 && o.meas.max_iters == 7 && o.meas.time_budget == 0.5);
    CHECK(PARSE(&o, &err, "coll", "--label", "a b", "-q", "--no-launch", "--group-size", "2",
                "--mpi-chunk", "1M", "--backend", "mpi") == PB_OK);
    CHECK(o.run.label != NULL && strcmp(o.run.label, "a b") == 0);
    CHECK(o.run.quiet == 1 && o.run.no_launch == 1 && o.meas.group_size == 2);
    CHECK(o.run.chunk_bytes == 1048576); /* 2^20 */
}

static void test_refusals(void)
{
    REFUSED("-n", "coll", "-n", "0");              /* at least 1 sample */
    REFUSED("bogus", "coll", "--op", "bogus");
    REFUSED("allreduce", "coll", "--op", "allreduce,allreduce"); /* given twice */
    REFUSED("all_reduce", "coll", "--op", "allreduce,all_reduce"); /* alias: still twice */
    REFUSED("1X", "coll", "-b", "1X");
    REFUSED("67108864", "coll", "-b", "64M", "-e", "8"); /* min 64M = 67108864 > max 8 */
    REFUSED("--frobnicate", "coll", "--frobnicate");
    REFUSED("-Z", "coll", "-Z");
    REFUSED("frob", "frob");                       /* unknown command */
    REFUSED("extra", "coll", "extra");             /* stray argument */
    REFUSED("--csv", "coll", "--csv");             /* value missing */
    REFUSED("--quiet", "coll", "--quiet=1");       /* takes no value */
    REFUSED("f16x", "coll", "--dtype", "f16x");
    REFUSED("prod", "coll", "--redop", "prod");
    REFUSED("sideways", "coll", "--place", "sideways");
    REFUSED("fast", "coll", "--mode", "fast");
    REFUSED("--np", "coll", "--np", "0");
    REFUSED("-f", "coll", "-f", "1");              /* a factor must grow */
    REFUSED("-f", "coll", "-f", "abc");
    REFUSED("-i", "coll", "-i", "0");              /* a step must move */
    REFUSED("-f", "coll", "-f", "4", "-i", "8");   /* factor or step, not both */
    REFUSED("--sizes", "coll", "--sizes", "8", "-b", "8"); /* list or range */
    REFUSED("--min-iters", "coll", "--min-iters", "20", "--max-iters", "10");
    REFUSED("-n", "coll", "-n", "-3");
    REFUSED("-n", "coll", "-n", "12x");
    REFUSED("--precision", "coll", "--precision", "0");
    REFUSED("--precision", "coll", "--precision", "-1");
    REFUSED("corrupt", "coll", "--fault", "flip:1");
    REFUSED("--fault", "coll", "--fault", "corrupt:");
    REFUSED("--mpi-chunk", "coll", "--mpi-chunk", "0");
    REFUSED("-f", "coll", "-f", "2", "-i", "8");   /* the default factor, typed: still both */
    REFUSED("-f", "coll", "-f", "2%");             /* percent belongs to --precision only */
    REFUSED("--time-budget", "coll", "--time-budget", "1%");
}

/* The main job's own defaults never override what the user typed. */
static void test_main_job_respects_flags(void)
{
    pb_options_t o;
    pb_err_t e;
    CHECK(PARSE(&o, &e, "--op", "allreduce", "--time-budget", "5") == PB_OK);
    CHECK(o.cmd == PB_CMD_MAIN && o.meas.ncolls == 1 && o.meas.colls[0] == PB_ALLREDUCE);
    CHECK(o.meas.time_budget == 5.0);
    CHECK(o.meas.check == 1); /* not typed: the main job's default, verified */
    CHECK(PARSE(&o, &e, "-c", "0") == PB_OK);
    CHECK(o.meas.check == 0);
    /* --max-iters 3 alone lowers the untyped minimum instead of clashing */
    CHECK(PARSE(&o, &e, "--max-iters", "3") == PB_OK);
    CHECK(o.meas.min_iters == 3 && o.meas.max_iters == 3);
    CHECK(PARSE(&o, &e, "coll", "--max-iters", "3") == PB_OK);
    CHECK(o.meas.min_iters == 3);
}

static void test_commands(void)
{
    pb_options_t o;
    pb_err_t err;

    CHECK(PARSE(&o, &err, "help") == PB_OK);
    CHECK(o.cmd == PB_CMD_HELP);
    CHECK(PARSE(&o, &err, "--help") == PB_OK);
    CHECK(o.cmd == PB_CMD_HELP && o.help_for == PB_CMD_MAIN);
    CHECK(PARSE(&o, &err, "-h") == PB_OK);
    CHECK(o.cmd == PB_CMD_HELP && o.help_for == PB_CMD_MAIN);
    CHECK(PARSE(&o, &err, "coll", "--help") == PB_OK);
    CHECK(o.cmd == PB_CMD_HELP && o.help_for == PB_CMD_COLL);
    CHECK(PARSE(&o, &err, "--version") == PB_OK);
    CHECK(o.cmd == PB_CMD_VERSION);
    CHECK(PARSE(&o, &err, "-V") == PB_OK);
    CHECK(o.cmd == PB_CMD_VERSION);
    CHECK(strcmp(PB_VERSION, "0.1.0") == 0); /* CMakeLists.txt: project(... VERSION 0.1.0) */

    /* usage texts exist and differ by command */
    CHECK(strstr(pb_cli_usage(PB_CMD_COLL), "--op") != NULL);
    CHECK(strstr(pb_cli_usage(PB_CMD_MAIN), "coll") != NULL);

    /* no arguments: the main job (usage: "a verified sweep of every
     * collective, 8 B to 64 MiB, written to the output folder") */
    CHECK(parse_v((char *[]){"parbench", NULL}, &o, &err) == PB_OK);
    CHECK(err.code == PB_OK);
    CHECK(o.cmd == PB_CMD_MAIN);
    CHECK(o.meas.ncolls == 8);
    for (int i = 0; i < 8 && i < o.meas.ncolls; i++)
        CHECK(o.meas.colls[i] == (pb_coll_t)i);
    CHECK(o.meas.check == 1);
    /* no --csv: results.csv in the output folder, chosen at run time */
    CHECK(o.run.csv_path == NULL && o.main.output == NULL);
    CHECK(o.meas.size_min == 8 && o.meas.size_max == UINT64_C(67108864)); /* 8 B .. 64 MiB */
    CHECK(o.meas.ndtypes == 1 && o.meas.dtypes[0] == PB_F32);

    /* main job options */
    CHECK(PARSE(&o, &err, "--np", "4") == PB_OK);
    CHECK(o.cmd == PB_CMD_MAIN && o.run.np == 4 && o.meas.ncolls == 8);
    CHECK(PARSE(&o, &err, "--csv", "mine.csv") == PB_OK);
    CHECK(o.run.csv_path != NULL && strcmp(o.run.csv_path, "mine.csv") == 0);
}

int main(void)
{
    test_coll_defaults();
    test_coll_values();
    test_refusals();
    test_main_job_respects_flags();
    test_commands();
    PB_TEST_END("unit_cli");
}
