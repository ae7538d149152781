#!/usr/bin/env bash
# tune_reproduce.sh BUILD_DIR TUNE_DIR PAIRS COLL_ARGS... - does what
# `parbench tune` found hold in a job that sources its tune.env?
#
# Runs `parbench coll COLL_ARGS` (one collective at one size: the case to
# check, e.g. --np 4 --op allreduce -b 64M -d bfloat16 --group-size 2)
# as alternating pairs of launches: one in the plain environment (the
# job without tune.env), one with TUNE_DIR/tune.env sourced, the plain
# one first in even pairs and the tuned one first in odd ones (this
# machine changes speed from one launch to the next; a pair sees both
# sides in the same state).  Each pair gives a ratio tuned / plain of the
# row's median time; the median over the pairs, with the distribution-free
# 95 % interval of the median (the order statistics tune's verdict uses,
# tune/pb_tverdict.h), is printed beside the ratio and interval that tune
# recorded for the same setting and case in TUNE_DIR/tune.csv.  The gain
# is reproduced when the intervals overlap.
#
# A benchmark, not a test: it prints numbers (README "Tuning").  Needs
# python3 for the CSV files (the csv module; parbench's own CSV is read by
# nothing here but that).
set -euo pipefail
build=$1 dir=$2 pairs=$3
shift 3
command -v python3 >/dev/null || { echo "tune_reproduce.sh: needs python3" >&2; exit 2; }
[ -r "$dir/tune.env" ] && [ -r "$dir/tune.csv" ] || {
  echo "tune_reproduce.sh: no tune.env and tune.csv in $dir (run parbench tune there)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pb=$(cd "$build" && pwd)/parbench
# one launch: the median time (us) of the row it writes
one() { # plain|tuned COLL_ARGS...
  local mode=$1
  shift
  rm -f "$tmp/r.csv"
  if [ "$mode" = tuned ]; then
    (. "$dir/tune.env"; "$pb" coll "$@" --csv "$tmp/r.csv" -q >/dev/null 2>&1) || true
  else
    "$pb" coll "$@" --csv "$tmp/r.csv" -q >/dev/null 2>&1 || true
  fi
  python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(r[-1]["time_us_median"])' "$tmp/r.csv"
}
args=("$@")
for ((i = 0; i < pairs; i++)); do
  if ((i % 2 == 0)); then p=$(one plain "${args[@]}"); t=$(one tuned "${args[@]}")
  else t=$(one tuned "${args[@]}"); p=$(one plain "${args[@]}"); fi
  echo "$p $t" >> "$tmp/pairs"
done
python3 - "$tmp/pairs" "$dir/tune.csv" "$(dirname "$0")/median_ci.awk" "${args[@]}" <<'EOF'
import csv, subprocess, sys
pairs = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
r = sorted(t / p for p, t in pairs)
n = len(r)
med = r[n // 2] if n % 2 else (r[n // 2 - 1] + r[n // 2]) / 2
# the interval's rank: util/pb_stats.c's rule, from median_ci.awk (one copy)
k = int(subprocess.check_output(["awk", "-v", "n=%d" % n,
          open(sys.argv[3]).read() + " BEGIN { print ci_rank(n) }"]))
lo, hi = r[k - 1], r[n - k]
env = [l.split()[1] for l in open(sys.argv[2].replace("tune.csv", "tune.env")) if l.startswith("export ")]
print("# %d alternating pairs of parbench coll %s, plain / with tune.env (%s)" %
      (n, " ".join(sys.argv[4:]), " ".join(env) or "sets nothing"))
print("# per pair, plain and tuned median (us): " +
      " ".join("%.1f/%.1f" % p for p in pairs))
print("reproduced: ratio %.3f, 95%% interval %.3f-%.3f" % (med, lo, hi))
rows = [row for row in csv.DictReader(open(sys.argv[2]))
        if row["verdict"] in ("faster", "slower", "no change")]
chosen = [e.split("=", 1) for e in env]
# Open MPI settings reach the job through tune.rules (tune/pb_trules.h):
# numbers only once comments are cut, NCOLL, then per collective COLL
# NCOMM, per communicator size SIZE NMSG, per rule BYTES ALG FANINOUT SEG.
# A rule with ALG > 0 is a measured case: (communicator size, bytes, alg).
ruled = set()
rules = dict(chosen).get("OMPI_MCA_coll_tuned_dynamic_rules_filename")
if rules:
    nums = [int(t, 0) for l in open(rules) for t in l.split("#", 1)[0].split()]
    it = iter(nums)
    for _ in range(next(it)):
        next(it)
        for _ in range(next(it)):
            size, nmsg = next(it), next(it)
            for _ in range(nmsg):
                b, alg, _f, _s = next(it), next(it), next(it), next(it)
                if alg > 0:
                    ruled.add((size, b, alg))
def applied(row, sets):
    knob = [(k, v) for k, v in sets.items() if k.startswith("coll_tuned_") and
            k.endswith("_algorithm")]
    if ruled and len(knob) == 1 and len(sets) == 1:
        return (int(row["group_size"]), int(row["bytes"]), int(knob[0][1])) in ruled
    return chosen and all(("OMPI_MCA_" + k if not k.startswith(("NCCL_", "CUDA_")) else k, v) in
                          [(c[0], c[1]) for c in chosen] for k, v in sets.items())
for row in rows:
    sets = dict(s.split("=", 1) for s in row["setting"].split())
    if applied(row, sets):
        print("tune said:  ratio %s, 95%% interval %s-%s (%s %s(%s) %s B %s)" %
              (row["ratio"], row["ratio_lo"], row["ratio_hi"], row["collective"], row["group"],
               row["group_size"], row["bytes"], row["dtype"]))
EOF
