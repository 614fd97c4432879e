#!/usr/bin/env python3
"""Device-side asserts, without a GPU (issue 30, parts 2 and 5):

    device_assert_check.py --scatterproof BUILD/scatterproof --python VENV/bin/python --work DIR

runs the torch adapter on its emulated device (`--device fakecuda`,
adapters/torch_device.py: the CPU, except that an index value the CPU
refuses as out of bounds is a CUDA device-side assert: the kernel's assert
text on stderr, then a dead context) over a generated spec in which two
cases assert, far apart, among valid ones, and requires of results.jsonl:
  - each asserting case is judged device_assert, with its kernel's file:line
    (ScatterGatherKernel.cu:163 for gather, Indexing.cu:1515 for
    index_select) and the clause of the error the document requires (T-B1,
    T-IS6);
  - every other case, the ones right after an assert included, passes: none
    is blamed for the assert, every later case runs;
  - in both modes of the emulation: the framework raises "device-side assert
    triggered" and refuses every later call (mode raise), or the process
    dies with the assert text on stderr (mode exit);
  - with a warm standby (SCATTERPROOF_STANDBY=1) the case after an assert,
    which pays the restart, takes under a second; without one it pays a
    whole start (the script prints both: the restart's cost);
  - an expectation entry keyed by the clause, the device and the verdict
    lists the asserts (xfail), and the same entry for another device does
    not.
Run as the CTest test device_assert_emulated.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Valid cases before each assert: enough work for a standby to finish its start (WARM_FACTOR times what a
# restart without one costs here, measured first), so that its handshake alone is what a restart pays.
WARM_FACTOR = 3
MAX_WARM = 3000
DELAY_MS = 10  # SCATTERPROOF_FAKECUDA_DELAY_MS: every emulated call takes this long at least
# The asserting cases: the kernel the emulation names, the clause of the error the document requires.
KERNELS = {"dev/assert-gather": ("ScatterGatherKernel.cu:163", "T-B1"),
           "dev/assert-index-select": ("Indexing.cu:1515", "T-IS6")}


def fail(message):
    print("device_assert_check: FAIL: " + message)
    sys.exit(1)


def gather(case_id, index):
    data = [[1, 2], [3, 4]]
    valid = all(0 <= v < 2 for row in index for v in row)
    expect = ({"output": {"data": [[data[i][v] for v in row] for i, row in enumerate(index)]}} if valid
              else {"error": "index_out_of_bounds"})
    return {"id": case_id, "op": "torch.gather", "args": {"dim": 1},
            "inputs": {"input": {"dtype": "float32", "data": data}, "index": {"dtype": "int64", "data": index}},
            "expect": expect}


def write_spec(path, warm):
    cases = [gather("dev/warm-a-%04d" % i, [[0, 1], [1, 0]]) for i in range(warm)]
    cases.append(gather("dev/assert-gather", [[0, 2], [1, 0]]))
    cases.append(gather("dev/after-gather", [[1, 1], [0, 0]]))
    cases += [gather("dev/warm-b-%04d" % i, [[1, 0], [0, 1]]) for i in range(warm)]
    cases.append({"id": "dev/assert-index-select", "op": "torch.index_select", "args": {"dim": 0},
                  "inputs": {"input": {"dtype": "float32", "data": [1, 2, 3]},
                             "index": {"dtype": "int64", "data": [0, 7]}},
                  "expect": {"error": "index_out_of_bounds"}})
    cases.append(gather("dev/after-index-select", [[0, 0], [1, 1]]))
    cases += [gather("dev/tail-%d" % i, [[1, 0], [1, 0]]) for i in range(3)]
    with open(path, "w") as f:
        json.dump({"format": "scatterproof-spec/1", "source": {"document": "device-assert-check"},
                   "cases": cases}, f)
    return len(cases)


def run(args, spec, name, mode, standby, expectations=None):
    report = os.path.join(args.work, name)
    backend = "process:%s %s --device fakecuda" % (args.python, os.path.join(ROOT, "adapters", "torch_adapter.py"))
    cmd = [args.scatterproof, "run", "--backend", backend, "--threads", "1", "--report-dir", report, spec]
    if expectations:
        cmd += ["--expectations", expectations]
    env = dict(os.environ, SCATTERPROOF_FAKECUDA_MODE=mode, SCATTERPROOF_STANDBY=standby,
               SCATTERPROOF_FAKECUDA_DELAY_MS=str(DELAY_MS))
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    results = {}
    with open(os.path.join(report, "results.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if r.get("check") == "differential":
                results[r["case_id"]] = r
    return proc, results


def check_blame(results, total, label):
    if len(results) != total:
        fail("%s: %d results for %d cases: a case after an assert did not run" % (label, len(results), total))
    for case_id, r in sorted(results.items()):
        if case_id in KERNELS:
            kernel, clause = KERNELS[case_id]
            if r["verdict"] != "device_assert" or \
                    not r["detail"].startswith("expected error index_out_of_bounds (%s)" % clause):
                fail("%s: %s: expected device_assert where the %s error is required, got %s: %s"
                     % (label, case_id, clause, r["verdict"], r["detail"][:300]))
            if kernel not in r["detail"] or clause not in r.get("clause", "").split():
                fail("%s: %s: the detail or clause does not name %s, %s: %s (clause %r)"
                     % (label, case_id, kernel, clause, r["detail"][:300], r.get("clause")))
        elif r["verdict"] != "pass":
            fail("%s: %s was blamed for something it did not do: %s: %s"
                 % (label, case_id, r["verdict"], r["detail"][:300]))
    if results["dev/assert-gather"].get("device") != "fakecuda":
        fail("%s: the result does not name the device: %r" % (label, results["dev/assert-gather"].get("device")))


def restart_ms(results):
    return [results[c]["duration_ms"] for c in ("dev/after-gather", "dev/after-index-select")]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scatterproof", required=True)
    parser.add_argument("--python", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    short_spec = os.path.join(args.work, "device-assert-short.json")
    short_total = write_spec(short_spec, 40)
    spec = os.path.join(args.work, "device-assert.json")

    costs = {}
    for mode, standby in (("raise", "0"), ("raise", "1"), ("exit", "1")):
        label = "mode %s, standby %s" % (mode, standby)
        if standby == "0":  # every restart pays a start, however long the cases before it took
            spec_now, total = short_spec, short_total
        elif (mode, standby) == ("raise", "1"):  # written anew: a file an earlier run left has another size
            # Enough valid cases before each assert for a standby to finish its start: WARM_FACTOR times
            # what a restart without one cost, each case taking at least DELAY_MS (the emulated kernel's).
            warm = min(MAX_WARM, int(WARM_FACTOR * statistics.median(costs[("raise", "0")]) / DELAY_MS) + 1)
            total = write_spec(spec, warm)
            print("device_assert_check: %d valid cases before each assert (%g ms each at least)" % (warm, DELAY_MS))
        spec_now = short_spec if standby == "0" else spec
        proc, results = run(args, spec_now, "%s-standby%s" % (mode, standby), mode, standby)
        if proc.returncode != 1:
            fail("%s: expected exit 1 (two device_assert results), got %d:\n%s"
                 % (label, proc.returncode, proc.stdout[-2000:]))
        check_blame(results, total, label)
        if mode == "exit" and "exited with status 134" not in results["dev/assert-gather"]["detail"]:
            fail("%s: the detail does not say the process died: %s" % (label, results["dev/assert-gather"]["detail"]))
        costs[(mode, standby)] = restart_ms(results)
        print("device_assert_check: %s: %d cases, 2 device_assert blamed right, the rest pass; the case after each "
              "assert took %s ms" % (label, total, ", ".join("%.0f" % c for c in costs[(mode, standby)])))
    with_standby = statistics.median(costs[("raise", "1")] + costs[("exit", "1")])
    without = statistics.median(costs[("raise", "0")])
    print("device_assert_check: restart after an assert: %.0f ms with a warm standby, %.0f ms without (median)"
          % (with_standby, without))
    if with_standby >= 1000:
        fail("with a warm standby a restart took %.0f ms (median), not under a second" % with_standby)

    # Expectation entries keyed by clause, device and verdict.
    for device, listed in (("fake*", True), ("cuda*", False)):
        path = os.path.join(args.work, "expect-%s.json" % device.strip("*"))
        with open(path, "w") as f:
            json.dump({"format": "scatterproof-expectations/1", "entries": [
                {"clause": clause, "backend": "*", "device": device, "verdict": "device_assert", "framework": "torch",
                 "reason": "the emulated device's kernels assert on an index value out of bounds"}
                for clause in ("T-B1", "T-IS6")]}, f)
        proc, results = run(args, short_spec, "expect-" + device.strip("*"), "raise", "1", path)
        verdicts = {results[c]["verdict"] for c in ("dev/assert-gather", "dev/assert-index-select")}
        want = {"xfail"} if listed else {"device_assert"}
        if verdicts != want or proc.returncode != (0 if listed else 1):
            fail("an entry for device %s: expected %s (exit %d), got %s (exit %d)"
                 % (device, want, 0 if listed else 1, verdicts, proc.returncode))
    print("device_assert_check: entries keyed by T-B1 / T-IS6, the device and device_assert list the asserts; "
          "one for another device does not")


if __name__ == "__main__":
    main()
