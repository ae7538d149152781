#!/usr/bin/env bash
# import_model.sh PARBENCH FIXTURES WORKDIR: the two commands from an
# nccl-tests log to a calibrated prediction (doc/import.md "From the files you
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
# README's example (Step model, calibration): the curve of 8 ranks on 2
# nodes x 4 GPUs answers the DP all-reduce of 32 ranks, one per node,
# moved there by the algorithm model ("transferred from n=8, 4/node"),
# never by rescaling the curve; with NICs of 100 Gb/s (--hw-set) the
# measured rate per NIC (35.6 GB/s at 256 MiB, the unit test
# test_calib_transfer.c) is above the 11.5 GB/s a NIC then gives: "capped
# at NIC".  (llama3-70b at tp 8 pp 4 mbs 1 does not fit in 80 GB: the
# model says so and exits 1, after its breakdown.)
big=$("$pb" model --preset llama3-70b --tp 8 --pp 4 --gpus 1024 --hw h100 \
      --calib "$work/calib.csv" 2>&1)
printf '%s\n' "$big" | grep -q 'transferred from n=8, 4/node to n=32, 1/node' ||
    fail "the DP all-reduce was not transferred: $big"
printf '%s\n' "$big" | grep -q 'capped at' && fail "capped with the h100 NICs: $big"
slow=$("$pb" model --preset llama3-70b --tp 8 --pp 4 --gpus 1024 --hw h100 \
       --hw-set nic_gbitps=100 --calib "$work/calib.csv" 2>&1)
printf '%s\n' "$slow" | grep -q 'capped at NIC' || fail "--hw-set nic_gbitps=100 not applied: $slow"
"$pb" report "$work/nccl.csv" -o "$work/report.html" >/dev/null || fail "report exited $?"
"$pb" compare "$work/nccl.csv" "$work/nccl.csv" >/dev/null || fail "compare exited $?"
echo "ok: import -> model --calib"
