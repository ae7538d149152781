/* test_cli_topo.c - the command line of `parbench topo` and `validate`:
 * defaults (as their --help documents them), accepted values, refusals. */
#include "bench/cli/pb_options.h"

#include <string.h>

#include "pb_test.h"

static int parse_v(char **argv, pb_options_t *o, pb_err_t *err)
{
    int argc = 0;
    while (argv[argc] != NULL)
        argc++;
    memset(o, 0x5A, sizeof *o); /* the parser must set every field itself */
    return pb_cli_parse(argc, argv, o, err);
}

#define PARSE(o, err, ...) parse_v((char *[]){"parbench", __VA_ARGS__, NULL}, o, err)

static void refused(const char *needle, int rc, const pb_err_t *err, int line)
{
    if (rc != PB_EINPUT || strstr(err->msg, needle) == NULL) {
        fprintf(stderr, "line %d: want refusal naming '%s', got rc=%d '%s'\n", line, needle,
                rc, err->msg);
        pb_test_failures++;
    }
}

int main(void)
{
    pb_options_t o;
    pb_err_t err;

    /* topo defaults: live, no layout, one node */
    CHECK(PARSE(&o, &err, "topo") == PB_OK);
    CHECK(o.cmd == PB_CMD_TOPO && o.topo.xml == NULL && o.topo.nodes == 0 && !o.model.layout_given);
    for (int k = 0; k < PB_LAYOUT_DIMS; k++)
        CHECK(o.model.layout[k] == 0);

    CHECK(PARSE(&o, &err, "topo", "--topo-xml", "x.xml", "--nodes", "128", "--tp", "8", "--pp",
                "4", "--cp=2", "--ep", "2", "--dp", "4") == PB_OK);
    CHECK(strcmp(o.topo.xml, "x.xml") == 0 && o.topo.nodes == 128);
    CHECK(o.model.layout[PB_LAYOUT_TP] == 8 && o.model.layout[PB_LAYOUT_PP] == 4 &&
          o.model.layout[PB_LAYOUT_CP] == 2 && o.model.layout[PB_LAYOUT_EP] == 2 &&
          o.model.layout[PB_LAYOUT_DP] == 4 && o.model.layout_given);

    /* validate defaults: 256 pairs, ratio 0.8, no fault */
    CHECK(PARSE(&o, &err, "validate") == PB_OK);
    CHECK(o.cmd == PB_CMD_VALIDATE && o.validate.max_pairs == 256 && o.validate.min_ratio == 0.8 &&
          o.run.fault == PB_FAULT_NONE);
    CHECK(PARSE(&o, &err, "validate", "--fault", "slow:3-1", "--max-pairs", "5", "--min-ratio",
                "0.5") == PB_OK);
    CHECK(o.run.fault == PB_FAULT_SLOW && o.run.fault_rank == 3 && o.run.fault_peer == 1);
    CHECK(o.validate.max_pairs == 5 && o.validate.min_ratio == 0.5);

    int rc;
    rc = PARSE(&o, &err, "topo", "--nodes", "2");
    refused("--nodes needs --topo-xml", rc, &err, __LINE__);
    rc = PARSE(&o, &err, "topo", "--topo-xml", "x", "--nodes", "0");
    refused("--nodes must be at least 1", rc, &err, __LINE__);
    rc = PARSE(&o, &err, "topo", "--tp", "0");
    refused("--tp must be at least 1", rc, &err, __LINE__);
    rc = PARSE(&o, &err, "coll", "--tp", "2");
    refused("belongs to --pattern and parbench topo", rc, &err, __LINE__);
    rc = PARSE(&o, &err, "coll", "--fault", "slow:0-1");
    refused("is an option of parbench validate", rc, &err, __LINE__);
    rc = PARSE(&o, &err, "validate", "--fault", "slow:0");
    refused("expected slow:A-B", rc, &err, __LINE__);
    rc = PARSE(&o, &err, "validate", "--fault", "slow:a-1");
    refused("needs a whole number", rc, &err, __LINE__);
    rc = PARSE(&o, &err, "validate", "--max-pairs", "0");
    refused("--max-pairs must be at least 1", rc, &err, __LINE__);
    rc = PARSE(&o, &err, "validate", "--min-ratio", "1.5");
    refused("--min-ratio must be at most 1", rc, &err, __LINE__);
    rc = PARSE(&o, &err, "topo", "--topo-xml=");
    refused("--topo-xml needs a file name", rc, &err, __LINE__);
    PB_TEST_END("cli_topo");
}
