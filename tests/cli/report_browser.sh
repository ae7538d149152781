#!/usr/bin/env bash
# report_browser.sh PARBENCH SRCDIR OUTDIR: the reports as a browser
# draws them (issue 50).  Headless Chromium screenshots two reports into
# OUTDIR, the build's test artefacts, for a person to look at: the one of
# imported logs (tests/fixtures/report/imported.csv: twelve lines in one
# latency plot, the calibration table) and the main fixture's
# (results.csv).  What can be checked without eyes is checked by
# report_imported.sh and report_check.sh; this test checks that the
# browser rendered each page to a PNG of the window's size.  Skipped (77)
# where no Chromium is installed (Debian 12: apt-get install chromium).
set -u
pb=$1 src=$2 out=$3
fx=$src/tests/fixtures/report
browser=
for b in chromium chromium-browser google-chrome; do
    command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }
done
if [ -z "$browser" ]; then
    echo "skipped: no Chromium to render the report (apt-get install chromium)"
    exit 77
fi
mkdir -p "$out"
"$pb" report "$fx/imported.csv" "$fx/imported_calib.csv" --all-runs -q -o "$out/imported.html" ||
    exit 1
"$pb" report "$fx/results.csv" "$fx/calib.csv" --pairs "$fx/pairs.csv" -q -o "$out/results.html" ||
    exit 1
fails=0
# shoot NAME HEIGHT: OUTDIR/NAME.html to OUTDIR/NAME.png, 1400 px wide
shoot() {
    local png=$out/$1.png
    rm -f "$png"
    # its own profile folder, so that no other Chromium's lock is met;
    # a headless run prints D-Bus complaints: kept out of the log
    local prof
    prof=$(mktemp -d)
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --user-data-dir="$prof" --screenshot="$png" --window-size="1400,$2" \
        "file://$out/$1.html" >/dev/null 2>&1
    rm -rf "$prof"
    # a PNG's signature, then its IHDR: width and height, 4 bytes each
    local head
    head=$(od -An -tx1 -N24 "$png" 2>/dev/null | tr -d ' \n')
    local size
    size=$(printf '%d %d' "0x${head:32:8}" "0x${head:40:8}" 2>/dev/null)
    if [ "${head:0:16}" != "89504e470d0a1a0a" ] || [ "$size" != "1400 $2" ]; then
        echo "FAIL: $png is not a 1400 x $2 PNG (signature ${head:0:16}, size '$size')"
        fails=$((fails + 1))
    else
        echo "ok: $png ($size)"
    fi
}
shoot imported 2200
shoot results 9000
[ "$fails" -eq 0 ]
