#!/bin/bash
# layering.sh SRC - fail when a product file includes a header of a folder
# it may not include (doc/design.md, "Folders and who may include whom").
#
# Every #include "..." of every .c, .h and .cu under SRC's folders (tests/,
# doc/ and cmake/ aside) is resolved the way the compiler resolves it:
# first beside the including file ("pb_x.h", "../model/pb_x.h"), else by
# name among the project's folders, at their top or one folder down (a
# bare "pb_x.h" found through a library's include path; bench/'s rooms,
# bench/cli/ and the others, are bench/).  The folder it lands in must be in the
# including folder's row below.  A folder missing from the table fails
# too: a new folder gets its row here, and in doc/design.md, on purpose.
#
# Output: one line per offending include, file:line, then exit 1.
set -u
src=${1:?usage: layering.sh SOURCE_DIR}
cd "$src" || exit 2

# The table, written once.  Every folder may include util/ and the core
# vocabulary (core/, which may not exist yet); of the two, only core/ may
# include util/ (errors, sizes), never the other way: util/ is the floor
# and includes nothing of the project, so no circle can run through it.
declare -A allowed=(
    [util]="util"
    [core]="core util"
    [collectives]="collectives core util"
    [topo]="topo core util"
    [patterns]="patterns core util"
    [model]="model patterns core util"
    [validate]="validate core util"
    [tune]="tune core util"
    [reports]="reports core util"
    [profiler]="profiler"
    [jobprof]="jobprof model patterns reports core util profiler"
    [bench]="util core collectives topo patterns model validate tune reports profiler jobprof bench"
)
skip=" tests doc cmake "

bad=0
folders=()
for d in */; do
    d=${d%/}
    case "$skip" in *" $d "*) continue ;; esac
    [ -L "$d" ] && continue
    # build trees inside the source (build-*/, or any with a CMakeCache.txt)
    case "$d" in build*) continue ;; esac
    [ -f "$d/CMakeCache.txt" ] && continue
    # only folders holding sources are layers
    if ! find "$d" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | grep -q .; then
        continue
    fi
    if [ -z "${allowed[$d]+x}" ]; then
        echo "layering: folder $d/ has no row in tests/cli/layering.sh (and doc/design.md)"
        bad=1
        continue
    fi
    folders+=("$d")
done

# Where a bare header name lives when it is not beside its includer: the
# folders holding it at their top or in a subfolder (bench/run/pb_ctx.h
# is bench/'s), each folder once.
where_is() {
    local name=$1 hits=() d sub
    for d in "${folders[@]}"; do
        if [ -f "$d/$name" ]; then
            hits+=("$d")
            continue
        fi
        for sub in "$d"/*/"$name"; do
            if [ -f "$sub" ]; then
                hits+=("$d")
                break
            fi
        done
    done
    echo "${hits[*]}"
}

for d in "${folders[@]}"; do
    # file:line:header for every quoted include of the folder
    while IFS=: read -r file line hdr; do
        dir=$(dirname "$file")
        if [ -f "$dir/$hdr" ]; then
            resolved=$(realpath -m --relative-to=. "$dir/$hdr")
            target=${resolved%%/*}
            [ "$target" = "$resolved" ] && target=.
        else
            case "$hdr" in
            */*) target=${hdr%%/*} ;; # through the root: the root is on no path
            *)
                target=$(where_is "$hdr")
                if [ -z "$target" ]; then
                    continue # not a project header
                fi
                if [ "$target" != "${target% *}" ]; then
                    echo "$file:$line: \"$hdr\" exists in several folders ($target): write \"../FOLDER/$hdr\""
                    bad=1
                    continue
                fi
                ;;
            esac
        fi
        case " ${allowed[$d]} " in
        *" $target "*) ;;
        *)
            echo "$file:$line: $d/ may not include $target/ (\"$hdr\"; $d/ may include: ${allowed[$d]})"
            bad=1
            ;;
        esac
    done < <(find "$d" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) -print0 |
        xargs -0 awk '/^[ \t]*#[ \t]*include[ \t]*"/ {
                          h = $0; sub(/^[^"]*"/, "", h); sub(/".*/, "", h)
                          print FILENAME ":" FNR ":" h }')
done

if [ $bad -ne 0 ]; then
    echo "layering: includes cross a forbidden boundary (doc/design.md: fix the shape, do not add the arrow)"
    exit 1
fi
echo "layering: ${#folders[@]} folders, every include allowed"
