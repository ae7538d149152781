#!/usr/bin/env bash
# include_guards.sh SRC: every header of the project has an include guard
# (`#ifndef X` with `#define X` on the next line) and no two headers share
# one.  Two headers with one guard compile until a file includes both: the
# second is then silently empty (model/pb_calib.h and reports/pb_calib.h
# once both used PB_CALIB_H).
set -u
src=$1
# every top-level folder (build trees aside), so a new layer is checked
# without being named here
dirs=()
for d in "$src"/*/; do
  d=${d%/}
  case ${d##*/} in build*|doc|cmake) continue ;; esac
  [ -L "$d" ] || [ -f "$d/CMakeCache.txt" ] || dirs+=("$d")
done
[ ${#dirs[@]} -gt 0 ] || { echo "FAIL: no project folders under $src"; exit 1; }
fail=0 n=0
declare -A owner
while IFS= read -r -d '' h; do
  n=$((n + 1))
  rel=${h#"$src"/}
  # the first #ifndef, and the #define right after it
  guard=$(awk '/^#ifndef / { g = $2; getline; if ($1 == "#define" && $2 == g) print g; exit }' "$h")
  if [ -z "$guard" ]; then
    echo "FAIL: $rel has no include guard (#ifndef X / #define X)"
    fail=1
  elif [ -n "${owner[$guard]:-}" ]; then
    echo "FAIL: $rel and ${owner[$guard]} share the include guard $guard"
    fail=1
  else
    owner[$guard]=$rel
  fi
done < <(find "${dirs[@]}" -name '*.h' -print0 | sort -z)
[ $n -gt 0 ] || { echo "FAIL: no headers found under $src"; exit 1; }
[ $fail -eq 0 ] && echo "ok: $n headers, $n distinct include guards"
exit $fail
