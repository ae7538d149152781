/* test_gemm_cli.c - the command line of `parbench gemm` (pb_cli_parse):
 * its defaults (as `parbench gemm --help` documents them), its flags, and
 * its refusals, all before any GPU is asked. */
#include "bench/cli/pb_options.h"

#include <stdint.h>
#include <string.h>

#include "pb_test.h"

static int parse_v(char **argv, pb_options_t *o, pb_err_t *err)
{
    int argc = 0;
    while (argv[argc] != NULL)
        argc++;
    memset(o, 0x5A, sizeof *o); /* the parser must set every field itself */
    pb_err_clear(err);
    return pb_cli_parse(argc, argv, o, err);
}

#define PARSE(o, err, ...) parse_v((char *[]){"parbench", __VA_ARGS__, NULL}, o, err)

#define REFUSED(needle, ...)                                                           \
    do {                                                                               \
        pb_options_t o_;                                                               \
        pb_err_t e_;                                                                   \
        int rc_ = PARSE(&o_, &e_, __VA_ARGS__);                                        \
        if (rc_ != PB_EINPUT || strstr(e_.msg, needle) == NULL) {                      \
            fprintf(stderr, "line %d: want PB_EINPUT naming '%s', got %d '%s'\n",      \
                    __LINE__, needle, rc_, e_.msg);                                    \
            pb_test_failures++;                                                        \
        }                                                                              \
    } while (0)

static void test_defaults(void)
{
    pb_options_t o;
    pb_err_t err;
    CHECK(PARSE(&o, &err, "gemm") == PB_OK);
    CHECK(o.cmd == PB_CMD_GEMM);
    /* "bf16 (default)", "-n ... (default 50)", "-w ... (default 5)" */
    CHECK(o.gemm.ndtypes == 1 && o.gemm.dtypes[0] == PB_BF16);
    CHECK(o.gemm.iters == 50 && o.gemm.warmup == 5);
    /* "h 4096, 32 heads, MHA, f = 4h, seq 4096, mbs 1, tp 1", resolved */
    CHECK(o.gemm.layer.hidden == 4096 && o.gemm.layer.heads == 32 && o.gemm.layer.kv_heads == 32);
    CHECK(o.gemm.layer.ffn == 16384 && o.gemm.layer.seq == 4096 && o.gemm.layer.mbs == 1 && o.gemm.layer.tp == 1);
    CHECK(o.gemm.layer.gated == 0 && o.gemm.backward == 0);
    CHECK(o.run.csv_path == NULL); /* rows only when asked for */
}

static void test_values(void)
{
    pb_options_t o;
    pb_err_t err;
    CHECK(PARSE(&o, &err, "gemm", "--hidden", "8192", "--seq=4096", "--mbs", "2", "--tp", "8",
                "--heads", "64", "--kv-heads", "8", "--ffn", "28672", "--gated", "--backward",
                "-d", "fp16,fp32", "-n", "7", "-w", "0", "--csv", "g.csv") == PB_OK);
    CHECK(o.gemm.layer.hidden == 8192 && o.gemm.layer.seq == 4096 && o.gemm.layer.mbs == 2 && o.gemm.layer.tp == 8);
    CHECK(o.gemm.layer.heads == 64 && o.gemm.layer.kv_heads == 8 && o.gemm.layer.ffn == 28672);
    CHECK(o.gemm.layer.gated == 1 && o.gemm.backward == 1);
    CHECK(o.gemm.ndtypes == 2 && o.gemm.dtypes[0] == PB_F16 && o.gemm.dtypes[1] == PB_F32);
    CHECK(o.gemm.iters == 7 && o.gemm.warmup == 0);
    CHECK(o.run.csv_path != NULL && strcmp(o.run.csv_path, "g.csv") == 0);

    /* --size is --hidden; ffn follows the hidden size when not given */
    CHECK(PARSE(&o, &err, "gemm", "--size", "1024", "--heads", "8") == PB_OK);
    CHECK(o.gemm.layer.hidden == 1024 && o.gemm.layer.ffn == 4096 && o.gemm.layer.kv_heads == 8);

    /* help for gemm is its own text */
    CHECK(PARSE(&o, &err, "gemm", "--help") == PB_OK);
    CHECK(o.cmd == PB_CMD_HELP && o.help_for == PB_CMD_GEMM);
    CHECK(strstr(pb_cli_usage(PB_CMD_GEMM), "parbench gemm") != NULL);
}

static void test_refusals(void)
{
    REFUSED("gemm multiplies bf16, fp16 or fp32, not int8", "gemm", "-d", "int8");
    REFUSED("gemm multiplies bf16, fp16 or fp32, not double", "gemm", "-d", "bf16,f64");
    REFUSED("--tp 3 does not divide --heads 32", "gemm", "--tp", "3");
    REFUSED("--heads 32 does not divide --hidden 1000", "gemm", "--hidden", "1000");
    REFUSED("--hidden must be at least 1", "gemm", "--hidden", "0");
    REFUSED("--seq needs a whole number", "gemm", "--seq", "4k");
    REFUSED("at most 1000000", "gemm", "-n", "1000001");
    REFUSED("belong to --pattern and parbench gemm", "coll", "--hidden", "4096");
    REFUSED("belong to --pattern and parbench gemm", "coll", "--gated");
    REFUSED("--backward is an option of parbench gemm", "--pattern", "tp", "--backward");
}

int main(void)
{
    test_defaults();
    test_values();
    test_refusals();
    PB_TEST_END("test_gemm_cli");
}
