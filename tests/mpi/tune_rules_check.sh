#!/usr/bin/env bash
# tune_rules_check.sh PROBE DIR MPIEXEC... - Open MPI itself reads the
# rules file `parbench tune` writes (tune/pb_trules.h) as meant (issue 49,
# item 15): the algorithm it names runs on exactly the communicator and
# message size of its rule, the library's own choice everywhere else.
#
# tune_rules_probe writes a file with ring (4) on 8 ranks at 65536 B and
# on 4 ranks at 1024 B, then prints the rounding of an all-reduce whose
# result depends on the order of its additions (the probe says why) at
# 1024, 65536 and 65544 B.  Each size is run three ways: ring forced for
# every all-reduce (what tune.env exported before: the knob reaches every
# size), nothing forced (the default), and the rules file.  The file must
# give ring's result at its size and the default's at the others.  Where
# ring and the default give the same result the run cannot tell them
# apart and the test skips (77), rather than pass on luck.
set -u
probe=$1 dir=$2
shift 2
mkdir -p "$dir" || exit 1
rules=$dir/probe.rules
"$probe" write "$rules" || { echo "FAIL: cannot write $rules"; exit 1; }
sizes="1024 65536 65544"
one() { # NP, then NAME=VALUE settings: the probe's lines
  local np=$1
  shift
  env OMPI_MCA_coll_tuned_use_dynamic_rules=1 "$@" "${launch[@]}" "$np" "$probe" $sizes
}
launch=("$@")
for np in 8 4; do
  ring=$(one "$np" OMPI_MCA_coll_tuned_allreduce_algorithm=4) || { echo "FAIL: ring run"; exit 1; }
  def=$(one "$np") || { echo "FAIL: default run"; exit 1; }
  got=$(one "$np" "OMPI_MCA_coll_tuned_dynamic_rules_filename=$rules") ||
    { echo "FAIL: rules run"; exit 1; }
  printf '%s ranks\nring forced:\n%s\ndefault:\n%s\nrules file:\n%s\n' "$np" "$ring" "$def" "$got"
  want=$([ "$np" = 8 ] && echo 65536 || echo 1024)
  for b in $sizes; do
    r=$(printf '%s\n' "$ring" | sed -n "s/^$b: //p")
    d=$(printf '%s\n' "$def" | sed -n "s/^$b: //p")
    g=$(printf '%s\n' "$got" | sed -n "s/^$b: //p")
    [ -n "$r" ] && [ -n "$d" ] && [ -n "$g" ] || { echo "FAIL: no result at $b B"; exit 1; }
    [ "$r" != "$d" ] || { echo "skipped: ring and the default sum alike at $b B on $np ranks"; exit 77; }
    if [ "$b" = "$want" ]; then
      [ "$g" = "$r" ] || { echo "FAIL: $np ranks, $b B: the rule's ring did not run ($g)"; exit 1; }
    else
      [ "$g" = "$d" ] || { echo "FAIL: $np ranks, $b B: ring reached a size it has no rule for"; exit 1; }
    fi
  done
done
echo "ok: ring ran on 8 ranks at 65536 B and on 4 ranks at 1024 B only"
