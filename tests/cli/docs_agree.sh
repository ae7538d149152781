#!/usr/bin/env bash
# docs_agree.sh SRC PARBENCH [PB_DOCGEN]: help, man page and bash
# completion come from one table (bench/cmd/: a file per command, listed
# in bench/cmd/pb_cmd_list.def), so they cannot drift:
# - doc/parbench.bash-completion is exactly what pb_docgen writes from the
#   table, and so is the OPTIONS part of doc/parbench.1 (after a change to
#   the table: `cmake --build build --target docs`);
# - every command `parbench --help` lists is in the completion's command
#   list and has a SYNOPSIS line in the man page;
# - every --option the man page or the completion names is one that some
#   command's --help (written from the same table at build time) shows;
# - no help text prints a doubled percent sign (a printf escape shown raw);
# - the documentation is one connected set: README.md's table of contents
#   links every doc/*.md page, and every relative link of README.md and of
#   doc/*.md reaches an existing file and, with #anchor, one of its
#   headings (GitHub's anchors: lower case, punctuation dropped, spaces to
#   hyphens).
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
# the pages: every doc/*.md reached from the README, every link resolving
anchors() { # FILE: the anchor of each of its headings, outside code blocks
  awk '/^[[:space:]]*```/ { c = !c; next } !c && /^#+ / {
         s = tolower($0); sub(/^#+ /, "", s); gsub(/[^a-z0-9 _-]/, "", s); gsub(/ /, "-", s); print s }' "$1"
}
for page in "$src"/doc/*.md; do
  name=${page#"$src"/}
  grep -q "](${name})" "$src/README.md" ||
    { echo "FAIL: README.md's table of contents does not link $name"; fail=1; }
done
nlinks=0
for f in "$src/README.md" "$src"/doc/*.md; do
  dir=$(dirname "$f")
  while IFS= read -r link; do
    case $link in http://*|https://*|mailto:*) continue ;; esac
    path=${link%%#*} anchor=
    [ "$path" != "$link" ] && anchor=${link#*#}
    target=$f
    [ -n "$path" ] && target=$dir/$path
    nlinks=$((nlinks + 1))
    if [ ! -e "$target" ]; then
      echo "FAIL: ${f#"$src"/} links $link: no such file"; fail=1
    elif [ -n "$anchor" ] && ! anchors "$target" | grep -qxF -- "$anchor"; then
      echo "FAIL: ${f#"$src"/} links $link: no such heading"; fail=1
    fi
  done < <(awk '/^[[:space:]]*```/ { c = !c; next } !c' "$f" | grep -o '\]([^) ]*)' | sed 's/^\](//; s/)$//')
done
[ $fail -eq 0 ] && echo "ok: $(wc -w <<<"$cmds") commands, $(wc -w <<<"$offered") offered options, $nlinks documentation links"
exit $fail
