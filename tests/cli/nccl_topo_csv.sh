#!/usr/bin/env bash
# nccl_topo_csv.sh PARBENCH SRCDIR OUTDIR
# `topo --nccl-topo FILE --csv` writes the pairs file `--topo-xml` writes
# (issue 35): every GPU pair, then every GPU-NIC pair, as the matrix names
# and classes them.  The rows below are worked out by hand from
# tests/fixtures/nccl-topo-small.xml (its header comment lists each
# device's <cpu>, NUMA node and switches):
#   GPU0 1a  cpu0 switches 10 > 11     GPU1 1b  cpu0 switches 10 > 11
#   GPU2 20  cpu0, no switch           GPU3 31  cpu1 (numa 0), switch 30
#   GPU4 41  cpu2 (numa 1), switch 40
#   NIC0 1c  cpu0 switches 10 > 12     NIC1 42  cpu2, switch 40
# Rules (topo/pb_nccl_topo.h): <nvlink count=4> under GPU0 naming 1b: NV 4;
# another <cpu> of the same numaid: NODE; another numaid: SYS; the same
# <cpu> with no switch in common: PHB; one switch on the path: PIX;
# several (GPU0/1 to NIC0 cross 11, 10, 12): PXB.
set -u
pb=$1 src=$2 out=$3
mkdir -p "$out"
csv=$out/nccl-pairs.csv
rm -f "$csv"
log=$("$pb" topo --nccl-topo "$src/tests/fixtures/nccl-topo-small.xml" --csv "$csv" 2>&1) ||
    { echo "FAIL: exit $?"; echo "$log"; exit 1; }
printf '%s\n' "$log" | grep -q "^# pairs written to $csv\$" || { echo "FAIL: no 'pairs written'"; echo "$log"; exit 1; }
want=$(cat <<'ROWS'
a,b,class,links
"GPU0","GPU1","NV",4
"GPU0","GPU2","PHB",0
"GPU0","GPU3","NODE",0
"GPU0","GPU4","SYS",0
"GPU1","GPU2","PHB",0
"GPU1","GPU3","NODE",0
"GPU1","GPU4","SYS",0
"GPU2","GPU3","NODE",0
"GPU2","GPU4","SYS",0
"GPU3","GPU4","SYS",0
"GPU0","NIC0","PXB",0
"GPU0","NIC1","SYS",0
"GPU1","NIC0","PXB",0
"GPU1","NIC1","SYS",0
"GPU2","NIC0","PHB",0
"GPU2","NIC1","SYS",0
"GPU3","NIC0","NODE",0
"GPU3","NIC1","SYS",0
"GPU4","NIC0","SYS",0
"GPU4","NIC1","PIX",0
ROWS
)
got=$(cat "$csv")
[ "$got" = "$want" ] || { echo "FAIL: pairs differ (want, got):"; diff <(printf '%s\n' "$want") "$csv"; exit 1; }
# the report reads the file back as a topology matrix
"$pb" report "$src/tests/fixtures/report/results.csv" --pairs "$csv" -o "$out/nccl-pairs.html" -q ||
    { echo "FAIL: report --pairs"; exit 1; }
grep -q '<th class="l">GPU0</th><td>X</td><td>NV4</td><td>PHB</td>' "$out/nccl-pairs.html" ||
    { echo "FAIL: the report's GPU0 row is not X NV4 PHB ..."; exit 1; }
echo "ok: 20 pairs as worked out by hand"
