#!/usr/bin/env bash
# import_model.sh PARBENCH FIXTURES WORKDIR: the two commands from an
# nccl-tests log to a calibrated prediction (README "From the files you
# already have").  The log's all-reduce of 8 ranks on 2 nodes must reach
# the model through the calibration: "N operation kinds from the
# calibration" with N >= 1, and the imported CSV must read back through
# calibrate, report and compare unchanged.
set -u
pb=$1 fix=$2 work=$3
mkdir -p "$work"
rm -f "$work/nccl.csv" "$work/calib.csv" "$work/report.html"
fail() { printf 'FAIL: %s\n' "$1"; exit 1; }
"$pb" import "$fix/nccl-allreduce-2n8g.log" --csv "$work/nccl.csv" -o "$work/calib.csv" \
    >"$work/import.out" || fail "import exited $?"
grep -q '8 rows from nccl-tests (allreduce), world 8 on 2 nodes' "$work/import.out" ||
    fail "import summary: $(cat "$work/import.out")"
out=$("$pb" model --preset llama3-8b --tp 8 --gpus 8 --gpus-per-node 4 --hw h100 \
      --calib "$work/calib.csv") || fail "model exited $?"
printf '%s\n' "$out" | grep -Eq 'collectives: [1-9][0-9]* operation kinds from the calibration' ||
    fail "the model did not use the imported calibration: $out"
"$pb" report "$work/nccl.csv" -o "$work/report.html" >/dev/null || fail "report exited $?"
"$pb" compare "$work/nccl.csv" "$work/nccl.csv" >/dev/null || fail "compare exited $?"
echo "ok: import -> model --calib"
