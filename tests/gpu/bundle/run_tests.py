#!/usr/bin/env python3
"""run_tests.py - runs the bundle's CTest tests without ctest.

    run_tests.py TESTS_JSON [-L LABEL] [--budget SECONDS] [--logdir DIR] [--list]

TESTS_JSON is `ctest --show-only=json-v1` of the build's tests/gpu folder
with its paths made relative to @PB_BUNDLE@ (relocate_ctest.sh), which is
replaced by $PB_BUNDLE.  --list prints the names of the tests -L selects
and runs nothing (check_bundle.sh compares them with the build's).  CTest's rules as far as these tests use them: ENVIRONMENT,
TIMEOUT, SKIP_RETURN_CODE, PASS_REGULAR_EXPRESSION (then the exit code is
not looked at), FAIL_REGULAR_EXPRESSION, WILL_FAIL, WORKING_DIRECTORY.
The whole run stops starting tests once --budget seconds are spent.
Prints one line per test and 'N passed, N failed, N skipped'; exit 1 on any
failure or test not run for lack of time, else 0.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tests_json")
    ap.add_argument("-L", "--label", default="gpu")
    ap.add_argument("--budget", type=float, default=1e9)
    ap.add_argument("--logdir", default=None)
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    t0 = time.monotonic()
    bundle = os.environ.get("PB_BUNDLE")
    if not bundle and not a.list:
        sys.exit("run_tests.py: PB_BUNDLE is not set (source env.sh)")
    bundle = bundle or "@PB_BUNDLE@"
    text = open(a.tests_json).read().replace("@PB_BUNDLE@", bundle)
    tests = json.loads(text)["tests"]
    if a.logdir:
        os.makedirs(a.logdir, exist_ok=True)
    sel = []
    for t in tests:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        labels = props.get("LABELS", [])
        if isinstance(labels, str):
            labels = [labels]
        if re.search(a.label, ";".join(labels)):
            sel.append((t, props))
    if a.list:
        for t, _ in sel:
            print(t["name"])
        sys.exit(0 if sel else 1)
    counts = {"passed": 0, "failed": 0, "skipped": 0, "not run": 0}
    for i, (t, props) in enumerate(sel, 1):
        name = t["name"]
        left = a.budget - (time.monotonic() - t0)
        limit = float(props.get("TIMEOUT", 1500))
        if left < 10:
            res, rc, dt, out = "not run", None, 0.0, "no time left in the budget\n"
        else:
            limit = min(limit, left)
            env = dict(os.environ)
            for kv in props.get("ENVIRONMENT", []):
                k, _, v = kv.partition("=")
                env[k] = v
            cwd = props.get("WORKING_DIRECTORY") or os.getcwd()
            os.makedirs(cwd, exist_ok=True)
            start = time.monotonic()
            p = subprocess.Popen(t["command"], cwd=cwd, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, start_new_session=True)
            try:
                out_b, _ = p.communicate(timeout=limit)
                rc = p.returncode
                timed_out = False
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGTERM)
                try:
                    out_b, _ = p.communicate(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    out_b, _ = p.communicate()
                rc, timed_out = None, True
            dt = time.monotonic() - start
            out = out_b.decode("utf-8", "replace")
            skip = props.get("SKIP_RETURN_CODE")
            passre = props.get("PASS_REGULAR_EXPRESSION")
            failre = props.get("FAIL_REGULAR_EXPRESSION")
            if isinstance(passre, str):
                passre = [passre]
            if isinstance(failre, str):
                failre = [failre]
            if timed_out:
                res = "failed"
                out += "\n*** timeout after %.0f s\n" % limit
            elif skip is not None and rc == int(skip):
                res = "skipped"
            else:
                if passre:
                    ok = any(re.search(r, out) for r in passre)
                else:
                    ok = rc == 0
                if failre and any(re.search(r, out) for r in failre):
                    ok = False
                if props.get("WILL_FAIL"):
                    ok = not ok
                res = "passed" if ok else "failed"
        counts[res] += 1
        print("%3d/%d %-32s %-8s rc=%-4s %6.1f s" % (i, len(sel), name, res, rc, dt), flush=True)
        if a.logdir:
            with open(os.path.join(a.logdir, name + ".log"), "w") as f:
                f.write("$ %s\n%s" % (" ".join(t["command"]), out))
        if res == "failed":
            sys.stdout.write("".join("    | " + l + "\n" for l in out.splitlines()[-15:]))
    print("%d passed, %d failed, %d skipped" % (counts["passed"], counts["failed"], counts["skipped"])
          + (", %d not run (time)" % counts["not run"] if counts["not run"] else ""))
    sys.exit(1 if counts["failed"] or counts["not run"] else 0)


if __name__ == "__main__":
    main()
