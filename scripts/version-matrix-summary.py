#!/usr/bin/env python3
"""Merges the version matrix's reports (scripts/version-matrix) into one summary.

    python3 scripts/version-matrix-summary.py OUT     (OUT/torch-X.Y/report.json, ... -> OUT/summary.{md,json})
    python3 scripts/version-matrix-summary.py --self-test   (CTest: version_matrix_summary_self_test)

Reads every OUT/torch-*/report.json (a `scatterproof run` report directory,
one per PyTorch release) and, where the matrix wrote it, OUT/torch-*/matrix.json
(install and run seconds, disk bytes, the run's exit status). Writes
OUT/summary.json and OUT/summary.md: per release, the torch version the
adapter imported, the counts of the torch-python-current backend (pass, fail,
xfail, xpass, unclassified, ...), the cost; and the cases whose verdict
differs between releases (the same case, each release's verdict). Exits 1
when a release has an unclassified, fail, xpass, crash, error or timeout
result, or when no report was found; 0 otherwise. --self-test merges two
synthetic releases and checks the counts, the changed cases and the exit
status.
"""
import glob
import json
import os
import re
import sys
import tempfile

BACKEND = "torch-python-current"
BAD = ("fail", "xpass", "unclassified", "crash", "error", "timeout")


def release_key(name):
    return tuple(int(p) for p in re.findall(r"\d+", name))


def load_release(directory):
    with open(os.path.join(directory, "report.json"), encoding="utf-8") as f:
        report = json.load(f)
    summary = report["summary"]
    entry = {
        "framework": summary.get("backend_frameworks", {}).get(BACKEND, ""),
        "counts": summary.get("backends", {}).get(BACKEND, {}),
        "verdicts": {r["case_id"]: r["verdict"] for r in report.get("results", []) if r.get("backend") == BACKEND},
    }
    cost = os.path.join(directory, "matrix.json")
    if os.path.exists(cost):
        with open(cost, encoding="utf-8") as f:
            entry["cost"] = json.load(f)
    return entry


def verdicts_from_results(directory):
    """report.json lists only the results worth reading; results.jsonl has every verdict."""
    path = os.path.join(directory, "results.jsonl")
    verdicts = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                if r.get("backend") == BACKEND:
                    verdicts[r["case_id"]] = r["verdict"]
    return verdicts


def main(out):
    releases = {}
    for directory in sorted(glob.glob(os.path.join(out, "torch-*")), key=release_key):
        if os.path.exists(os.path.join(directory, "report.json")):
            name = os.path.basename(directory)[len("torch-"):]
            releases[name] = load_release(directory)
            releases[name]["verdicts"] = verdicts_from_results(directory) or releases[name]["verdicts"]
    if not releases:
        print("version-matrix-summary: no OUT/torch-*/report.json under %s" % out, file=sys.stderr)
        return 1
    cases = sorted({c for r in releases.values() for c in r["verdicts"]})
    changes = [(c, {n: r["verdicts"].get(c, "-") for n, r in releases.items()}) for c in cases]
    changes = [(c, v) for c, v in changes if len(set(v.values())) > 1]
    doc = {"backend": BACKEND,
           "releases": {n: {k: r.get(k) for k in ("framework", "counts", "cost")} for n, r in releases.items()},
           "changes": [{"case": c, "verdicts": v} for c, v in changes]}
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)  # releases in release order
    names = list(releases)
    lines = ["# PyTorch version matrix (%s)" % BACKEND, "",
             "| release | torch | pass | fail | xfail | xpass | unclassified | unsupported | n/a | install s | "
             "run s | disk GB |", "|---" * 12 + "|"]
    for n, r in releases.items():
        c, cost = r["counts"], r.get("cost") or {}
        disk = cost.get("disk_bytes")
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            n, r["framework"], c.get("pass", 0), c.get("fail", 0), c.get("xfail", 0), c.get("xpass", 0),
            c.get("unclassified", 0), c.get("unsupported", 0), c.get("not_applicable", 0),
            cost.get("install_seconds") or "-", cost.get("run_seconds", "-"),
            "%.1f" % (disk / 1e9) if isinstance(disk, int) else "-"))
    lines += ["", "## Cases whose verdict differs between releases (%d)" % len(changes), "",
              "| case | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    lines += ["| `%s` | %s |" % (c, " | ".join(v[n] for n in names)) for c, v in changes]
    with open(os.path.join(out, "summary.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines[:4 + len(releases)]))
    print("version-matrix-summary: %s/summary.md, %s/summary.json" % (out, out))
    bad = [n for n, r in releases.items() if any(r["counts"].get(k, 0) for k in BAD)]
    if bad:
        print("version-matrix-summary: releases with unexpected results: %s" % ", ".join(bad), file=sys.stderr)
    return 1 if bad else 0


def write_release(out, name, verdicts, cost=None):
    """A synthetic `scatterproof run` report directory for the self-test."""
    directory = os.path.join(out, "torch-" + name)
    os.makedirs(directory)
    counts = {}
    for v in verdicts.values():
        counts[v] = counts.get(v, 0) + 1
    summary = {"backend_frameworks": {BACKEND: "torch %s.0" % name}, "backends": {BACKEND: counts}}
    with open(os.path.join(directory, "report.json"), "w", encoding="utf-8") as f:
        json.dump({"summary": summary, "results": []}, f)
    with open(os.path.join(directory, "results.jsonl"), "w", encoding="utf-8") as f:
        for case, verdict in verdicts.items():
            f.write(json.dumps({"backend": "reference", "case_id": case, "verdict": "pass"}) + "\n")
            f.write(json.dumps({"backend": BACKEND, "case_id": case, "verdict": verdict}) + "\n")
    if cost:
        with open(os.path.join(directory, "matrix.json"), "w", encoding="utf-8") as f:
            json.dump(cost, f)


def self_test():
    with tempfile.TemporaryDirectory() as out:
        write_release(out, "2.11", {"a": "pass", "b": "xfail", "c": "pass"})
        write_release(out, "2.4", {"a": "pass", "b": "pass", "c": "pass"},
                      {"install_seconds": 124, "run_seconds": 9, "disk_bytes": 5300000000})
        status = main(out)
        with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
            doc = json.load(f)
        with open(os.path.join(out, "summary.md"), encoding="utf-8") as f:
            md = f.read()
        assert status == 0, status
        assert list(doc["releases"]) == ["2.4", "2.11"], doc["releases"]  # release order, not text order
        assert doc["releases"]["2.11"]["counts"] == {"pass": 2, "xfail": 1}, doc["releases"]["2.11"]
        assert doc["changes"] == [{"case": "b", "verdicts": {"2.4": "pass", "2.11": "xfail"}}], doc["changes"]
        assert "| 2.4 | torch 2.4.0 | 3 | 0 | 0 | 0 | 0 | 0 | 0 | 124 | 9 | 5.3 |" in md, md
        assert "| `b` | pass | xfail |" in md, md
        write_release(out, "2.15", {"a": "unclassified", "b": "xfail", "c": "pass"})
        assert main(out) == 1, "an unclassified result must fail the matrix"
    with tempfile.TemporaryDirectory() as out:
        assert main(out) == 1, "no report must fail the matrix"
    print("version-matrix-summary: self-test passed")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
