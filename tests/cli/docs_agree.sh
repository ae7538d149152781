#!/usr/bin/env bash
# docs_agree.sh SRC PARBENCH: the man page, bash completion and help name
# only what the program has, and every command it has.  Until help, man
# page and completion come from one table, this keeps them from drifting:
# - every command `parbench --help` lists is in the completion's command
#   list and has a SYNOPSIS line in the man page;
# - every --option the completion or the man page offers is accepted by
#   the program (it is in the option table of bench/pb_cli.c);
# - no help text prints a doubled percent sign (a printf escape shown raw).
set -u
src=$1 pb=$2
comp=$src/doc/parbench.bash-completion man=$src/doc/parbench.1
fail=0
cmds=$("$pb" --help | awk '/^commands:/ { f = 1; next } f && /^  [a-z]+ / { print $1 } /^$/ { f = 0 }')
[ -n "$cmds" ] || { echo "FAIL: no commands found in --help"; exit 1; }
for c in $cmds; do
  grep -q "local cmds=.*\\b$c\\b" "$comp" || { echo "FAIL: completion lacks command $c"; fail=1; }
  grep -q "^\\.B parbench $c\$" "$man" || { echo "FAIL: man page SYNOPSIS lacks parbench $c"; fail=1; }
done
table=$(grep -o '{"[a-z0-9-]*", ' "$src/bench/pb_cli.c" | sed 's/{"\(.*\)", /\1/' | sort -u)
offered=$( (grep -o -- '--[a-z][a-z0-9-]*' "$comp"; sed 's/\\-/-/g' "$man" | grep -v srun | grep -o -- '--[a-z][a-z0-9-]*') |
          sed 's/^--//' | sort -u)
for o in $offered; do
  grep -qx -- "$o" <<<"$table" || { echo "FAIL: --$o is offered but not an option"; fail=1; }
done
for c in "" $cmds; do
  # shellcheck disable=SC2086
  "$pb" $c --help 2>&1 | grep -q '%%' && { echo "FAIL: 'parbench $c --help' prints %%"; fail=1; }
done
[ $fail -eq 0 ] && echo "ok: $(wc -w <<<"$cmds") commands, $(wc -w <<<"$offered") offered options"
exit $fail
