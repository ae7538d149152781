#!/bin/bash
# include_circles.sh SRC [circles|size] - issue 29's two checks on the
# product sources: every .c, .h and .cu under SRC's folders, tests/,
# doc/, cmake/ and build trees aside.  Without a check named, both run.
#
# circles: fail when modules include one another in a circle.  A module
# is a .c and its .h (and .cu: one base name, one folder).  Module A
# depends on B when a file of A includes a file of B with #include "...",
# resolved the way tests/cli/layering.sh resolves it: beside the includer
# first ("pb_x.h", "../model/pb_x.h"), then from the root ("model/pb_x.h"),
# then by name among the product files (a bare name found through a
# library's include path).  An included file that is no .c/.h/.cu (a .def
# table) is a module of its own, so a circle through it is seen too, as is
# one through a second header of the same part (pb_x.c -> pb_x_priv.h ->
# pb_x.h).  A circle means neither side can be read, tested or moved
# alone: give the part both need a header of its own, or move the
# function to the module it belongs to.  Output: each strongly connected
# component of more than one module, as one circle through it,
# `a -> b -> a`.
#
# size: fail when a file passes 500 lines or a function 80: past those a
# file does more than one job and a function more than one step.  A
# function runs from the line at column 0 that opens it (the first line
# of its signature) to the `}` at column 0 that closes it; a `{` at column
# 0, or a signature line ending in `) {`, opens the body.  Structs, enums
# and initialisers close with `};` or `} name;` and are not functions.
# Output: one line per offender, file:line.
#
# Exit 1 when a check fails, 2 when there is nothing to check.
set -u
src=${1:?usage: include_circles.sh SOURCE_DIR [circles|size]}
what=${2:-all}
case "$what" in circles | size | all) ;; *) echo "usage: include_circles.sh SOURCE_DIR [circles|size]"; exit 2 ;; esac
cd "$src" || exit 2

dirs=()
for d in */; do
    d=${d%/}
    case "$d" in tests | doc | cmake | build*) continue ;; esac
    [ -L "$d" ] && continue
    [ -f "$d/CMakeCache.txt" ] && continue
    dirs+=("$d")
done
[ ${#dirs[@]} -gt 0 ] || { echo "include_circles: no folders under $src"; exit 2; }

# every file of a product folder (an include may name a .def or .inc)
list=$(mktemp) || exit 2
trap 'rm -f "$list"' EXIT
find "${dirs[@]}" -type f -print | LC_ALL=C sort > "$list"
files=()
while IFS= read -r f; do
    files+=("$f")
done < <(grep -E '\.(c|h|cu)$' "$list")
[ ${#files[@]} -gt 0 ] || { echo "include_circles: no sources under $src"; exit 2; }

circles() {
    # The graph and its strongly connected components in one awk program
    # (Tarjan's algorithm with an explicit call stack, so a deep include
    # chain cannot exhaust awk's own).
    awk -v list="$list" '
        function norm(p,    n, parts, out, i, k, r) {
            n = split(p, parts, "/"); k = 0
            for (i = 1; i <= n; i++) {
                if (parts[i] == "" || parts[i] == ".") continue
                if (parts[i] == "..") { if (k > 0) k--; else return ""; continue }
                out[++k] = parts[i]
            }
            r = ""
            for (i = 1; i <= k; i++) r = r (i > 1 ? "/" : "") out[i]
            return r
        }
        function module(p) { sub(/\.(c|h|cu|def|inc)$/, "", p); return p }
        function resolve(from, h,    dir, p, base, n, i, c, top) {
            dir = from; sub(/\/[^\/]*$/, "", dir)
            p = norm(dir "/" h); if (p in exists) return p
            p = norm(h); if (p in exists) return p
            base = h; sub(/.*\//, "", base)
            n = split(byname[base], c, " ")
            if (n == 1) return c[1]
            # several: the one in the includer'"'"'s own folder tree
            top = from; sub(/\/.*/, "", top)
            for (i = 1; i <= n; i++) if (index(c[i], top "/") == 1) return c[i]
            return ""
        }
        BEGIN {
            while ((getline f < list) > 0) {
                exists[f] = 1
                b = f; sub(/.*\//, "", b)
                byname[b] = byname[b] (byname[b] == "" ? "" : " ") f
            }
            close(list)
            # files reached only through an include (a .def) are read too
            for (f in exists) if (f !~ /\.(c|h|cu)$/) extra[f] = 1
        }
        function scan_line(file, line,    h, to, a, b) {
            if (line !~ /^[ \t]*#[ \t]*include[ \t]*"/) return
            h = line; sub(/^[^"]*"/, "", h); sub(/".*/, "", h)
            to = resolve(file, h); if (to == "") return
            a = module(file); b = module(to)
            node[a] = 1; node[b] = 1
            if (a != b && !((a, b) in edge)) {
                edge[a, b] = 1; nout[a]++; out[a, nout[a]] = b
            }
            if (to in extra && !(to in read)) { read[to] = 1; pending[++npend] = to }
        }
        { node[module(FILENAME)] = 1; scan_line(FILENAME, $0) }
        END {
            for (i = 1; i <= npend; i++) {
                f = pending[i]
                while ((getline l < f) > 0) scan_line(f, l)
                close(f)
            }
            # sorted node list, so the output is stable
            n = 0
            for (v in node) names[++n] = v
            for (i = 2; i <= n; i++) {
                v = names[i]
                for (j = i - 1; j >= 1 && names[j] > v; j--) names[j + 1] = names[j]
                names[j + 1] = v
            }
            # Tarjan, with an explicit call stack of (node, next edge)
            idx = 0; sp = 0; nscc = 0
            for (r = 1; r <= n; r++) {
                root = names[r]
                if (root in index_of) continue
                cs = 1; call[1] = root; nexte[1] = 1
                index_of[root] = low[root] = idx++; stk[++sp] = root; on[root] = 1
                while (cs > 0) {
                    v = call[cs]
                    if (nexte[cs] <= nout[v]) {
                        w = out[v, nexte[cs]++]
                        if (!(w in index_of)) {
                            index_of[w] = low[w] = idx++; stk[++sp] = w; on[w] = 1
                            call[++cs] = w; nexte[cs] = 1
                        } else if (on[w] && index_of[w] < low[v]) {
                            low[v] = index_of[w]
                        }
                        continue
                    }
                    if (low[v] == index_of[v]) {
                        size = 0; delete member
                        do { w = stk[sp--]; on[w] = 0; member[w] = 1; size++ } while (w != v)
                        if (size > 1) report(member, size)
                    }
                    cs--
                    if (cs > 0 && low[v] < low[call[cs]]) low[call[cs]] = low[v]
                }
            }
            if (nscc) {
                printf "include_circles: %d circle(s) between modules (issue 29: give the shared part a header of its own, or move the function where it belongs)\n", nscc
                exit 1
            }
            printf "include_circles: %d modules, no circles\n", n
        }
        # one shortest circle through the component'"'"'s first module (BFS)
        function report(m, size,    first, q, qh, qt, prev, u, k, w, path, s, extra_s, v) {
            first = ""
            for (v in m) if (first == "" || v < first) first = v
            delete prev; qh = 1; qt = 0
            for (k = 1; k <= nout[first]; k++) {
                w = out[first, k]
                if ((w in m) && !(w in prev)) { prev[w] = first; q[++qt] = w }
            }
            while (qh <= qt && !(first in prev)) {
                u = q[qh++]
                for (k = 1; k <= nout[u]; k++) {
                    w = out[u, k]
                    if ((w in m) && !(w in prev)) { prev[w] = u; q[++qt] = w }
                }
            }
            path = first; s = prev[first]; k = 1
            while (s != first) { path = s " -> " path; s = prev[s]; k++ }
            path = first " -> " path
            extra_s = ""
            if (size > k) extra_s = sprintf("   (one of %d modules tied together)", size)
            print path extra_s
            nscc++
        }
    ' "${files[@]}"
}

sizes() {
    local max_file=500 max_fn=80
    awk -v max_file=$max_file -v max_fn=$max_fn '
        FNR == 1 {
            if (prev != "" && plines > max_file) {
                printf "%s:%d: %d lines (a file holds at most %d: split it by job)\n",
                    prev, plines, plines, max_file
                bad = 1
            }
            cand = 0; infn = 0; sig = ""; files++
        }
        { prev = FILENAME; plines = FNR }
        # inside a body: wait for the } at column 0
        infn {
            if ($0 ~ /^}[ \t]*(\/[*\/].*)?$/) {
                len = FNR - start + 1
                if (len > max_fn) {
                    printf "%s:%d: function %s is %d lines (at most %d: split it into steps)\n",
                        FILENAME, start, name, len, max_fn
                    bad = 1
                }
                fns++; infn = 0
            } else if ($0 ~ /^}/) {
                infn = 0 # a struct or an initialiser, not a function
            }
            next
        }
        # a signature starts at column 0 with a name; a blank line, a
        # preprocessor line or a declaration ending in ; ends the candidate
        /^[A-Za-z_]/ && !cand { cand = FNR; sig = "" }
        cand { sig = sig " " $0 }
        cand && (/^{/ || /\)[ \t]*{[ \t]*$/) {
            if (sig ~ /\(/ && sig !~ /=[^(]*\(/ ) {
                name = sig; sub(/\(.*/, "", name); sub(/.*[ \t*]/, "", name)
                infn = 1; start = cand
            }
            cand = 0
            next
        }
        /^[ \t]*$/ || /^#/ || /;[ \t]*(\/[*\/].*)?$/ { cand = 0 }
        END {
            if (prev != "" && plines > max_file) {
                printf "%s:%d: %d lines (a file holds at most %d: split it by job)\n",
                    prev, plines, plines, max_file
                bad = 1
            }
            if (bad) {
                print "include_circles: files over " max_file " lines or functions over " max_fn " (issue 29)"
                exit 1
            }
            printf "include_circles: %d files, %d functions, none too long\n", files, fns
        }' "${files[@]}"
}

rc=0
if [ "$what" != size ]; then
    circles || rc=1
fi
if [ "$what" != circles ]; then
    sizes || rc=1
fi
exit $rc
