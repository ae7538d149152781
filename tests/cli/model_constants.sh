#!/bin/bash
# model_constants.sh SRC - issue 30: every constant of the step model has
# its source written down.  Three checks on SRC's model/ and patterns/:
#
#  - every numeric object-like `#define NAME value` in model/*.[ch] and
#    patterns/*.[ch] (a value made of number literals, operators and the
#    literal helpers UINT64_C / INT64_C / P2; not sizeof expressions, not
#    include guards) must have its NAME written in doc/MODEL.md;
#  - every number in a preset row of model/pb_hw.c (a line of the
#    presets[] initializer starting with `{"`, the GPU's name left out)
#    must appear in doc/MODEL.md's preset table, the lines between
#    `<!-- presets:begin -->` and `<!-- presets:end -->` (numbers compared
#    by value: 312.0 = 312);
#  - issue 49: no bare number in the code of model/*.c and patterns/*.c
#    (comments, strings and character constants read past; a numeric
#    #define is the first check's; the body of any other #define, a
#    function-like one included, is code): a number the model uses is a
#    named #define, so the first check holds its source.  Allowed, as
#    nothing in them is a model value to source (allowed() and scan()
#    below):
#      0, 1, 2 and 0.5, in any spelling (1.0, 2u, .5): identities, one of
#        a thing, halving and doubling;
#      unit conversions: 10^(3k) for k = +-1..4 (1e3, 1e-6, 1000000, ...),
#        100 (a percentage), 1024^k (KiB ... TiB);
#      anything inside [ ]: an array's size or an index;
#      the exponent after << and in P2(n): a limit written as a power of
#        two;
#      the base argument of strtol()/strtoul()/strtoull() (10);
#      the first capacity of a growing buffer, `cap ? 2 * cap : N` or
#        `cap ? cap * 2 : N`: an allocation size, as an array's;
#      the rows of the data tables listed in `tables` below, each with
#        why its numbers are sourced without a name.
#
# Output: one line per constant missing, file:line.  Exit 1 when any is,
# 0 when none, 2 when there is nothing to check.
set -u
src=${1:?usage: model_constants.sh SOURCE_DIR}
cd "$src" || exit 2
doc=doc/MODEL.md
[ -f "$doc" ] || { echo "model_constants: $doc not found"; exit 2; }
shopt -s nullglob
files=(model/*.[ch] patterns/*.[ch])
[ ${#files[@]} -gt 0 ] && [ -f model/pb_hw.c ] || { echo "model_constants: no sources"; exit 2; }

bad=0
# 1. numeric defines: file line name
defs=$(awk '
    /^[ \t]*#[ \t]*define[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]/ {
        line = $0
        sub(/^[ \t]*#[ \t]*define[ \t]+/, "", line)
        name = line; sub(/[ \t].*/, "", name)
        val = substr(line, length(name) + 1)
        gsub(/\/\*.*\*\//, "", val); sub(/\/\*.*/, "", val); sub(/\/\/.*/, "", val)
        if (val !~ /[0-9]/) next
        rest = val
        gsub(/(UINT64_C|INT64_C|UINT32_C|INT32_C|P2)[ \t]*\(/, "(", rest)
        gsub(/[0-9][0-9a-fA-FxX.]*([eE][-+]?[0-9]+)?[uUlLfF]*/, "", rest)
        if (rest ~ /[A-Za-z_]/) next
        print FILENAME, FNR, name
    }' "${files[@]}")
while read -r file line name; do
    [ -n "${name:-}" ] || continue
    if ! grep -qw -- "$name" "$doc"; then
        echo "$file:$line: #define $name is not in $doc"
        bad=1
    fi
done <<<"$defs"

# 2. preset rows against the preset table
table=$(awk '/<!-- presets:begin -->/ {on = 1; next} /<!-- presets:end -->/ {on = 0} on' "$doc" |
        grep -oE '[0-9]+(\.[0-9]+)?' | awk '{printf "%.10g\n", $1 + 0}' | sort -u)
[ -n "$table" ] || { echo "$doc: no preset table between <!-- presets:begin --> and <!-- presets:end -->"; bad=1; }
while IFS=: read -r line row; do
    name=$(sed -n 's/^[ \t]*{"\([^"]*\)".*/\1/p' <<<"$row")
    nums=$(sed 's/"[^"]*"//g' <<<"$row" | grep -oE '[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?' |
           awk '{printf "%.10g\n", $1 + 0}')
    for n in $nums; do
        if ! grep -qxF -- "$n" <<<"$table"; then
            echo "model/pb_hw.c:$line: preset $name: $n is not in $doc's preset table"
            bad=1
        fi
    done
done < <(awk '/presets\[\] = \{/ {on = 1; next} on && /^};/ {on = 0} on && /^[ \t]*\{"/ {print FNR ":" $0}' model/pb_hw.c)
# 3. bare numbers in the code.  A table: its file, an awk regex of the
# line that opens it (to its closing brace and semicolon, or to the end
# of its #define), and why its numbers need no name.
tables='model/pb_hw.c	presets\[\] = \{	GPU presets: check 2 holds every number against the preset table
model/pb_framework.c	fw_table\[PB_FW_COUNT\] = \{	per-stack bytes and switches, sourced above the table and in "Stacks and FP8"
model/pb_framework.c	define PB_FW_MEGATRON_KERNELS	Megatron-Core kernel bytes, sourced above the macro and in "Memory-bound kernels"
model/pb_framework.c	define PB_FW_COMPILED_KERNELS	compiled-graph kernel bytes, sourced above the macro and in "Stacks and FP8"
model/pb_framework.c	define PB_FW_MEGATRON_MEM	Megatron-Core memory row, sourced above the macro and in "Memory"
model/pb_calib.c	order\[PB_DTYPE_COUNT\] = \{	a ranking of data types (positions), not a quantity
patterns/pb_model.c	presets\[\] = \{	published model configurations, each row citing its paper above it
patterns/pb_model.c	real\[\] = \{	Llama 3 widths and depths (Dubey et al. 2024, Table 3), as in the presets'
lits=$(printf '%s\n' "$tables" | awk -F'\t' -v files="${files[*]}" -f /dev/fd/3 3<<'AWK'
# The C text without comments, strings and character constants (line
# breaks kept, so line numbers hold), then every number of the code that
# the allow-list above does not cover: "file line literal".
function strip(src,   out, st, i, n, c, d, q) {
    out = ""; st = 0; n = length(src)
    for (i = 1; i <= n; i++) {
        c = substr(src, i, 1)
        if (st == 0) {
            d = substr(src, i, 2)
            if (d == "/*") { st = 1; out = out "  "; i++ }
            else if (d == "//") { st = 2; out = out "  "; i++ }
            else if (c == "\"" || c == "\047") { st = c == "\"" ? 3 : 4; out = out " " }
            else out = out c
        } else if (st == 1) {
            if (substr(src, i, 2) == "*/") { st = 0; out = out "  "; i++ }
            else out = out (c == "\n" ? "\n" : " ")
        } else if (st == 2) {
            if (c == "\n") st = 0
            out = out (c == "\n" ? "\n" : " ")
        } else {
            q = st == 3 ? "\"" : "\047"
            if (c == "\\" && substr(src, i + 1, 1) != "\n") { out = out "  "; i++ }
            else {
                if (c == q) st = 0
                out = out (c == "\n" ? "\n" : " ")
            }
        }
    }
    return out
}
function allowed(lit,   v, k) {
    if (lit ~ /^0[xX]/) return 0
    v = lit + 0
    if (v == 0 || v == 1 || v == 2 || v == 0.5 || v == 100) return 1
    for (k = 1; k <= 4; k++)
        if (v == 10 ^ (3 * k) || v == 10 ^ (-3 * k) || v == 1024 ^ k) return 1
    return 0
}
function scan(f, ln, line,   t, pre, lit) {
    while (match(line, /\[[^][]*\]/))
        line = substr(line, 1, RSTART - 1) " " substr(line, RSTART + RLENGTH)
    gsub(/<<[ \t]*[0-9]+/, " ", line)
    gsub(/P2[ \t]*\([ \t]*[0-9]+[ \t]*\)/, " ", line)
    gsub(/,[ \t]*10[ \t]*\)/, ")", line) # strtol's base: checked below
    gsub(/cap[ \t]*\?[^:?]*:[ \t]*[0-9]+/, " ", line)
    t = line
    while (match(t, /(0[xX][0-9a-fA-F]+|[0-9]+\.?[0-9]*([eE][-+]?[0-9]+)?|\.[0-9]+([eE][-+]?[0-9]+)?)[uUlLfF]*/)) {
        pre = RSTART > 1 ? substr(t, RSTART - 1, 1) : " "
        lit = substr(t, RSTART, RLENGTH)
        t = substr(t, RSTART + RLENGTH)
        if (pre ~ /[A-Za-z0-9_.]/ || t ~ /^[A-Za-z0-9_.]/)
            continue # part of a name, or of a number the regex cut short
        sub(/[uUlLfF]+$/, "", lit)
        if (!allowed(lit))
            print f, ln, lit
    }
}
function numeric_define(body,   rest) {
    rest = body
    gsub(/(UINT64_C|INT64_C|UINT32_C|INT32_C|P2)[ \t]*\(/, "(", rest)
    gsub(/[0-9][0-9a-fA-FxX.]*([eE][-+]?[0-9]+)?[uUlLfF]*/, "", rest)
    return rest !~ /[A-Za-z_\\]/
}
function check(f,   src, text, lines, n, i, j, line, skip, depth, o, c, k, body) {
    src = ""
    while ((getline line < f) > 0) src = src line "\n"
    close(f)
    n = split(strip(src), lines, "\n")
    skip = 0
    for (i = 1; i <= n; i++) {
        line = lines[i]
        if (!skip)
            for (k = 1; k <= ntab; k++)
                if (f == tf[k] && line ~ tre[k]) { skip = 1; depth = 0 }
        if (line ~ /^[ \t]*#/) {
            # a directive and its continuation lines
            for (j = i; lines[j] ~ /\\[ \t]*$/ && j < n; j++) ;
            if (!skip && line ~ /^[ \t]*#[ \t]*define[ \t]/) {
                body = line
                sub(/^[ \t]*#[ \t]*define[ \t]+[A-Za-z_][A-Za-z0-9_]*/, "", body)
                if (body ~ /^\(/ || !numeric_define(body) || j > i) {
                    scan(f, i, body)
                    for (k = i + 1; k <= j; k++) scan(f, k, lines[k])
                }
            }
            skip = 0
            i = j
            continue
        }
        if (skip) {
            o = line; c = line
            depth += gsub(/\{/, "", o) - gsub(/\}/, "", c)
            if (depth <= 0 && line ~ /;/) skip = 0
            continue
        }
        scan(f, i, line)
    }
}
{ ntab++; tf[ntab] = $1; tre[ntab] = $2 }
END {
    nf = split(files, fl, " ")
    for (i = 1; i <= nf; i++)
        if (fl[i] ~ /\.c$/) check(fl[i])
}
AWK
)
while read -r file line lit; do
    [ -n "${lit:-}" ] || continue
    echo "$file:$line: the number $lit has no name: a #define in doc/MODEL.md with its source (or an allowed use, tests/cli/model_constants.sh)"
    bad=1
done <<<"$lits"
exit $bad
