#!/bin/bash
# model_constants.sh SRC - issue 30: every constant of the step model has
# its source written down.  Two checks on SRC's model/ and patterns/:
#
#  - every numeric object-like `#define NAME value` in model/*.[ch] and
#    patterns/*.[ch] (a value made of number literals, operators and the
#    literal helpers UINT64_C / INT64_C / P2; not sizeof expressions, not
#    include guards) must have its NAME written in doc/MODEL.md;
#  - every number in a preset row of model/pb_hw.c (a line of the
#    presets[] initializer starting with `{"`, the GPU's name left out)
#    must appear in doc/MODEL.md's preset table, the lines between
#    `<!-- presets:begin -->` and `<!-- presets:end -->` (numbers compared
#    by value: 312.0 = 312).
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
exit $bad
