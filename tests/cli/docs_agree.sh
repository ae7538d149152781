#!/usr/bin/env bash
# docs_agree.sh SRC PARBENCH [PB_DOCGEN]: help, man page and bash
# completion come from one table (bench/pb_commands.c), so they cannot
# drift:
# - doc/parbench.bash-completion is exactly what pb_docgen writes from the
#   table, and so is the OPTIONS part of doc/parbench.1 (after a change to
#   the table: `cmake --build build --target docs`);
# - every command `parbench --help` lists is in the completion's command
#   list and has a SYNOPSIS line in the man page;
# - every --option the man page or the completion names is one that some
#   command's --help (written from the same table at build time) shows;
# - no help text prints a doubled percent sign (a printf escape shown raw).
set -u
src=$1 pb=$2 gen=${3:-$(dirname "$pb")/pb_docgen}
comp=$src/doc/parbench.bash-completion man=$src/doc/parbench.1
fail=0
if [ -x "$gen" ]; then
  "$gen" completion | diff -u "$comp" - >/dev/null ||
    { echo "FAIL: $comp differs from the table (cmake --build build --target docs)"; fail=1; }
  "$gen" man "$man" | diff -u "$man" - >/dev/null ||
    { echo "FAIL: $man OPTIONS differ from the table (cmake --build build --target docs)"; fail=1; }
else
  echo "FAIL: no pb_docgen at $gen"; fail=1
fi
cmds=$("$pb" --help | awk '/^commands:/ { f = 1; next } f && /^  [a-z]+ / { print $1 } /^$/ { f = 0 }')
[ -n "$cmds" ] || { echo "FAIL: no commands found in --help"; exit 1; }
for c in $cmds; do
  grep -q "local cmds=.*\\b$c\\b" "$comp" || { echo "FAIL: completion lacks command $c"; fail=1; }
  grep -q "^\\.B parbench $c\$" "$man" || { echo "FAIL: man page SYNOPSIS lacks parbench $c"; fail=1; }
done
shown=$(for c in "" $cmds; do "$pb" $c --help; done | grep -o -- '--[a-z][a-z0-9-]*' | sed 's/^--//' | sort -u)
offered=$( (grep -o -- '--[a-z][a-z0-9-]*' "$comp"; sed 's/\\-/-/g' "$man" | grep -v srun | grep -o -- '--[a-z][a-z0-9-]*') |
          sed 's/^--//' | sort -u)
for o in $offered; do
  grep -qx -- "$o" <<<"$shown" || { echo "FAIL: --$o is offered but no --help shows it"; fail=1; }
done
for c in "" $cmds; do
  # shellcheck disable=SC2086
  "$pb" $c --help 2>&1 | grep -q '%%' && { echo "FAIL: 'parbench $c --help' prints %%"; fail=1; }
done
[ $fail -eq 0 ] && echo "ok: $(wc -w <<<"$cmds") commands, $(wc -w <<<"$offered") offered options"
exit $fail
