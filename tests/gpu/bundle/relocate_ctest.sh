#!/usr/bin/env bash
# relocate_ctest.sh BUILD_DIR SRC_DIR OUT_DIR - the build's gpu-labelled
# tests, with every path made relative to @PB_BUNDLE@, for a bundle that
# has no build tree and no source tree (pack.sh; run-on-gpu.sh substitutes
# @PB_BUNDLE@ at run time).  Writes into OUT_DIR:
#   CTestTestfile.cmake.in  the build's tests/gpu/CTestTestfile.cmake, its gpu
#                           tests only (for `ctest --test-dir`, CMake >= 3.20)
#   tests.json.in           `ctest --show-only=json-v1` of the same tests (for
#                           run_tests.py, where the GPU machine has no ctest)
#   tests.txt               their names, one a line
# Where the paths go (the bundle's layout, pack.sh):
#   BUILD/tests/gpu/<prog>, BUILD/parbench   -> @PB_BUNDLE@/libexec/
#   BUILD/tests/gpu (working folder), its *.csv outputs -> @PB_BUNDLE@/ctest
#   SRC/tests/gpu/<script>, SRC/tests/<script> -> @PB_BUNDLE@/tests/
#   the build's mpiexec                      -> @PB_BUNDLE@/bin/mpiexec
# Exit 1, naming what is left, when a build or source path survives: a new
# test that names a path these rules do not know must fail here, not on
# the GPU machine.  CTEST=path picks the ctest program (default: PATH's).
set -euo pipefail

[ $# -eq 3 ] || { echo "usage: $0 BUILD_DIR SRC_DIR OUT_DIR" >&2; exit 2; }
BUILD=$(cd "$1" && pwd) SRC=$(cd "$2" && pwd)
OUT=$3
CTEST=${CTEST:-ctest}
T=$BUILD/tests/gpu
die() { printf 'relocate_ctest: %s\n' "$*" >&2; exit 1; }
[ -f "$T/CTestTestfile.cmake" ] || die "no $T/CTestTestfile.cmake (a build with PARBENCH_CUDA=ON?)"
mkdir -p "$OUT"

# a path as a sed pattern: every character sed's regex would read specially
re() { printf '%s' "$1" | sed 's/[][\.*^$|/]/\\&/g'; }
MPIEXEC=$(sed -n 's/^MPIEXEC_EXECUTABLE:FILEPATH=//p' "$BUILD/CMakeCache.txt")
B=$(re "$BUILD") S=$(re "$SRC") M=$(re "${MPIEXEC:-/nonexistent/mpiexec}")

# The build's rules go first: the build folder may lie inside the source
# folder (build/ of a checkout), so SRC must not rewrite a BUILD path.
rewrite() {
    sed -e "s|$B/tests/gpu/\([^/\"]*\.csv\)|@PB_BUNDLE@/ctest/\1|g" \
        -e "s|$B/tests/gpu/|@PB_BUNDLE@/libexec/|g" \
        -e "s|$B/parbench|@PB_BUNDLE@/libexec/parbench|g" \
        -e "s|$B/tests/gpu|@PB_BUNDLE@/ctest|g" \
        -e "s|$S/tests/gpu\$|tests/gpu|" \
        -e "s|$S/tests/gpu/CMakeLists.txt|tests/gpu/CMakeLists.txt|g" \
        -e "s|$S/tests/gpu/|@PB_BUNDLE@/tests/|g" \
        -e "s|$S/tests/|@PB_BUNDLE@/tests/|g" \
        -e "s|\"$M\"|\"@PB_BUNDLE@/bin/mpiexec\"|g"
}

# The gpu-labelled tests by name (CTest's -L is a regular expression)
(cd "$T" && "$CTEST" -N -L '^gpu$') | awk '$1 == "Test" && $2 ~ /^#[0-9]+:$/ { print $3 }' \
    >"$OUT/tests.txt"
[ -s "$OUT/tests.txt" ] || die "no gpu-labelled test in $T"

# CTest writes one statement a line: add_test(NAME ...) or
# add_test([=[NAME]=] ...), then set_tests_properties(NAME ...).  Only those
# of the gpu tests are kept (the others name scripts the bundle lacks);
# CMake's own comment lines and any other statement stay as they are.
awk -v list="$OUT/tests.txt" '
    BEGIN { while ((getline n < list) > 0) keep[n] = 1 }
    /^(add_test|set_tests_properties)\(/ {
        name = $0; sub(/^[a-z_]+\(/, "", name); sub(/[ )].*$/, "", name)
        gsub(/^\[=*\[|\]=*\]$/, "", name); gsub(/^"|"$/, "", name)
        if (!(name in keep)) next
    }
    { print }' "$T/CTestTestfile.cmake" | rewrite >"$OUT/CTestTestfile.cmake.in"
(cd "$T" && "$CTEST" -L '^gpu$' --show-only=json-v1) | rewrite >"$OUT/tests.json.in"

# What must not survive: the build's and the source's folders (as given and
# as CMake recorded them: a symbolic link on the way makes two spellings),
# and the build's mpiexec
CB=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$BUILD/CMakeCache.txt")
CS=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt")
left=$(grep -n -F -e "$BUILD" -e "$SRC" -e "${CB:-$BUILD}" -e "${CS:-$SRC}" \
       "$OUT/CTestTestfile.cmake.in" "$OUT/tests.json.in" | head -5 || true)
[ -z "$left" ] || die "build or source paths left (teach rewrite() the new path):
$left"
if [ -n "$MPIEXEC" ] && grep -q -F "\"$MPIEXEC\"" "$OUT/CTestTestfile.cmake.in" "$OUT/tests.json.in"; then
    die "the build's mpiexec ($MPIEXEC) is left in the relocated files"
fi
n=$(grep -c '^add_test(' "$OUT/CTestTestfile.cmake.in" || true)
[ "$n" -eq "$(wc -l <"$OUT/tests.txt")" ] ||
    die "$n add_test lines kept for $(wc -l <"$OUT/tests.txt") gpu tests"
echo "relocate_ctest: $n gpu tests relocated into $OUT"
