#!/bin/bash
# model_constants_self.sh LINT - model_constants.sh (LINT) on a made-up
# source tree, so that each rule is seen to bite and each allowed use to
# pass (issue 49): a bare number in code is named with its file and line,
# also in a function-like macro's body and after a comment that spans
# lines; numbers in comments, strings, character constants, array sizes,
# shifts, unit conversions, strtol's base, a buffer's first capacity and
# a listed table are not; a numeric #define missing from the doc is named.
set -u
lint=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { printf 'FAIL: %s\n' "$1"; exit 1; }
mkdir -p "$tmp/doc" "$tmp/model" "$tmp/patterns"
cat >"$tmp/doc/MODEL.md" <<'EOF'
<!-- presets:begin -->
| 312 | 80 |
<!-- presets:end -->
`PB_NAMED` 0.75
EOF
cat >"$tmp/model/pb_hw.c" <<'EOF'
static const pb_hw_t presets[] = {
    {"a100", 312.0, 80.0},
};
EOF
cat >"$tmp/model/pb_x.c" <<'EOF'
#define PB_NAMED 0.75 /* a numeric define named in the doc */
/* a comment with 3.14 and a number
   over two lines, 2.71 */
static double f(double y, const char *s, char **e, size_t cap)
{
    char buf[64]; /* 64: an array's size */
    const char *t = "v1.5 and 42";
    int c = '7';
    unsigned long long big = 1ULL << 20;
    double us = y * 1e-6 + 100.0 * y + 1024.0 * y;
    long n = strtol(s, e, 10);
    size_t grow = cap ? 2 * cap : 8;
    double bad = 0.9 * y;
    return bad + us + (double)(n + grow + big + c) + buf[0] + t[0] + PB_NAMED;
}
#define SCALE(x) ((x) * 2.5)
EOF
cat >"$tmp/patterns/pb_y.c" <<'EOF'
static const int table[] = {
    17, 19,
};
#define PB_MISSING 0.33
int g(int z)
{
    return z * 34 + table[0];
}
EOF
out=$("$lint" "$tmp")
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 1 ] || fail "exit $rc, expected 1"
# each expected line by file and line number: the numbers of the lines
# above, counted by hand
for want in 'model/pb_x.c:13: the number 0.9 ' 'model/pb_x.c:16: the number 2.5 ' \
            'patterns/pb_y.c:4: #define PB_MISSING is not in doc/MODEL.md' \
            'patterns/pb_y.c:7: the number 34 ' 'patterns/pb_y.c:2: the number 17 ' \
            'patterns/pb_y.c:2: the number 19 '; do
  grep -qF -- "$want" <<<"$out" || fail "no line '$want'"
done
[ "$(wc -l <<<"$out")" -eq 6 ] || fail "other lines than the six expected"
# the table listed in the lint (as pb_model.c's presets are) is allowed;
# its numbers leave, the rest stay
sed -i 's/^static const int table\[\] = {$/static const pb_model_t presets[] = {/' "$tmp/patterns/pb_y.c"
mv "$tmp/patterns/pb_y.c" "$tmp/patterns/pb_model.c"
out=$("$lint" "$tmp")
grep -q 'the number 1[79] ' <<<"$out" && fail "a listed table's row was reported"
grep -qF 'patterns/pb_model.c:7: the number 34 ' <<<"$out" || fail "the code after the table was not read"
# named and documented: clean
sed -i 's/0\.9 \* y/PB_NAMED * y/; s/(x) \* 2\.5/(x) * PB_NAMED/' "$tmp/model/pb_x.c"
sed -i 's/z \* 34/z * PB_MISSING/' "$tmp/patterns/pb_model.c"
echo '`PB_MISSING` 0.33' >>"$tmp/doc/MODEL.md"
out=$("$lint" "$tmp")
rc=$?
[ "$rc" -eq 0 ] || { printf '%s\n' "$out"; fail "exit $rc on a clean tree"; }
echo "model_constants_self: all rules as expected"
