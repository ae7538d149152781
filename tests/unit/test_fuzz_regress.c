/* Inputs the fuzz targets (tests/fuzz) found, kept as regression tests.
 *
 * fuzz_cli, first minutes: an unknown command whose text holds a newline
 * ("top!\xfe\xff\xff-R\xff*\n", then empty arguments) was quoted into the
 * error message, so "one line from rank 0" became two lines.  Every
 * message now has its control characters replaced by '?'. */
#include <string.h>

#include "bench/cli/pb_options.h"
#include "pb_test.h"

static int one_printable_line(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

static void test_cli_newline(void)
{
    /* the crashing input, split at its NUL bytes as fuzz_cli splits it */
    char a1[] = "top!\xfe\xff\xff-R\xff*\n", e[] = "", a5[] = "\xff" "co";
    char *argv[] = {(char *)"parbench", a1, e, e, e, a5, NULL};
    pb_options_t opt;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_cli_parse(6, argv, &opt, &err) == PB_EINPUT);
    CHECK(err.msg[0] != '\0');
    CHECK(one_printable_line(err.msg));
}

static void test_err_set_escapes(void)
{
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_err_set(&err, PB_EINPUT, "bad '%s'", "a\nb\r\x1b[31mc\x7f") == PB_EINPUT);
    /* newline, CR, ESC and DEL become "?" */
    CHECK(strcmp(err.msg, "bad 'a?b??[31mc?'") == 0);
}

int main(void)
{
    test_cli_newline();
    test_err_set_escapes();
    PB_TEST_END("unit_fuzz_regress");
}
