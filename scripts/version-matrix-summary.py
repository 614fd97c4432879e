#!/usr/bin/env python3
"""Merges the version matrix's reports (scripts/version-matrix) into one summary.

    python3 scripts/version-matrix-summary.py OUT     (OUT/NAME/report.json, ... -> OUT/summary.{md,json})
    python3 scripts/version-matrix-summary.py --self-test   (CTest: version_matrix_summary_self_test)

Reads every OUT/NAME/ run directory, NAME = FAMILY-VERSION with FAMILY one of
torch (torch-python-current), libtorch (libtorch-current on that wheel's
LibTorch), paddle, mindspore: its report.json (a `scatterproof run` report
directory) and, where the matrix wrote it, matrix.json (the backend, install,
build and run seconds, disk bytes, the run's exit status, or "unavailable"
with the reason where the run could not be made, e.g. a LibTorch that did not
build). Writes OUT/summary.json and OUT/summary.md: per family and release,
the framework version the backend reported, its counts (pass, fail, xfail,
xpass, unclassified, ...) and the cost; and per family the cases whose
verdict differs between releases (each release's verdict). Exits 1 when a
release has an unclassified, fail, xpass, crash, error or timeout result, or
when no report was found; 0 otherwise (a run that is unavailable is listed
with its reason, not counted as a failure). --self-test merges synthetic
releases and checks the counts, the changed cases and the exit status.
"""
import glob
import json
import os
import re
import sys
import tempfile

FAMILIES = {"torch": "torch-python-current", "libtorch": "libtorch-current", "paddle": "paddle",
            "mindspore": "mindspore"}
BAD = ("fail", "xpass", "unclassified", "crash", "error", "timeout")
COLUMNS = ("pass", "fail", "xfail", "xpass", "unclassified", "unsupported", "not_applicable")


def release_key(name):
    return tuple(int(p) for p in re.findall(r"\d+", name))


def split_name(directory):
    """OUT/torch-2.11 -> ("torch", "2.11"); None for a directory the matrix does not write."""
    family, _, version = os.path.basename(directory).partition("-")
    return (family, version) if family in FAMILIES and version else None


def read_json(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def verdicts_from_results(directory, backend):
    """report.json lists only the results worth reading; results.jsonl has every verdict."""
    verdicts = {}
    path = os.path.join(directory, "results.jsonl")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                if r.get("backend") == backend:
                    verdicts[r["case_id"]] = r["verdict"]
    return verdicts


def load_release(directory, family):
    cost = read_json(os.path.join(directory, "matrix.json")) or {}
    backend = cost.get("backend") or FAMILIES[family]
    report = read_json(os.path.join(directory, "report.json"))
    if report is None:
        if "unavailable" not in cost:
            return None
        return {"backend": backend, "framework": "", "counts": {}, "cost": cost, "verdicts": {},
                "unavailable": cost["unavailable"]}
    summary = report["summary"]
    verdicts = verdicts_from_results(directory, backend) or {
        r["case_id"]: r["verdict"] for r in report.get("results", []) if r.get("backend") == backend}
    return {"backend": backend, "framework": summary.get("backend_frameworks", {}).get(backend, ""),
            "counts": summary.get("backends", {}).get(backend, {}), "cost": cost, "verdicts": verdicts}


def collect(out):
    """{family: {version: release}} in family order, releases in release order."""
    found = {}
    for directory in glob.glob(os.path.join(out, "*")):
        name = split_name(directory)
        if name and os.path.isdir(directory):
            release = load_release(directory, name[0])
            if release is not None:
                found.setdefault(name[0], {})[name[1]] = release
    return {f: dict(sorted(found[f].items(), key=lambda kv: release_key(kv[0]))) for f in FAMILIES if f in found}


def family_lines(family, releases, changes):
    cell = lambda v, fmt="%s": "-" if v is None else fmt % v  # noqa: E731
    lines = ["## %s (%s)" % (family, FAMILIES[family]), "",
             "| release | framework | " + " | ".join(c.replace("_", " ") for c in COLUMNS) +
             " | install s | build s | run s | disk GB |", "|---" * (len(COLUMNS) + 6) + "|"]
    for n, r in releases.items():
        c, cost = r["counts"], r["cost"]
        if "unavailable" in r:
            lines.append("| %s | not built: %s |" % (n, " ".join(r["unavailable"].split())))
            continue
        disk = cost.get("disk_bytes")
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            n, r["framework"], " | ".join(str(c.get(k, 0)) for k in COLUMNS), cell(cost.get("install_seconds")),
            cell(cost.get("build_seconds")), cell(cost.get("run_seconds")),
            cell(disk / 1e9 if isinstance(disk, int) else None, "%.1f")))
    names = [n for n, r in releases.items() if "unavailable" not in r]
    if len(names) < 2:
        return lines + [""]
    lines += ["", "### Cases whose verdict differs between %s releases (%d)" % (family, len(changes)), "",
              "| case | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    lines += ["| `%s` | %s |" % (c, " | ".join(v[n] for n in names)) for c, v in changes]
    return lines + [""]


def changed_cases(releases):
    measured = {n: r for n, r in releases.items() if "unavailable" not in r}
    cases = sorted({c for r in measured.values() for c in r["verdicts"]})
    changes = [(c, {n: r["verdicts"].get(c, "-") for n, r in measured.items()}) for c in cases]
    return [(c, v) for c, v in changes if len(set(v.values())) > 1]


def main(out):
    families = collect(out)
    if not families:
        print("version-matrix-summary: no OUT/FAMILY-VERSION/report.json under %s" % out, file=sys.stderr)
        return 1
    doc, lines, bad = {"families": {}}, ["# Version matrix", ""], []
    for family, releases in families.items():
        changes = changed_cases(releases)
        doc["families"][family] = {
            "backend": FAMILIES[family],
            "releases": {n: {k: r.get(k) for k in ("framework", "counts", "cost", "unavailable") if k in r}
                         for n, r in releases.items()},
            "changes": [{"case": c, "verdicts": v} for c, v in changes]}
        lines += family_lines(family, releases, changes)
        bad += ["%s-%s" % (family, n) for n, r in releases.items() if any(r["counts"].get(k, 0) for k in BAD)]
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
    with open(os.path.join(out, "summary.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(l for l in lines if l.startswith(("#", "| ", "|-")) and not l.startswith("| `")))
    print("version-matrix-summary: %s/summary.md, %s/summary.json" % (out, out))
    if bad:
        print("version-matrix-summary: releases with unexpected results: %s" % ", ".join(bad), file=sys.stderr)
    return 1 if bad else 0


def write_release(out, name, verdicts, cost=None):
    """A synthetic `scatterproof run` report directory for the self-test."""
    directory = os.path.join(out, name)
    os.makedirs(directory)
    family, version = split_name(directory)
    backend = FAMILIES[family]
    counts = {}
    for v in verdicts.values():
        counts[v] = counts.get(v, 0) + 1
    summary = {"backend_frameworks": {backend: "%s %s.0" % (family, version)}, "backends": {backend: counts}}
    with open(os.path.join(directory, "report.json"), "w", encoding="utf-8") as f:
        json.dump({"summary": summary, "results": []}, f)
    with open(os.path.join(directory, "results.jsonl"), "w", encoding="utf-8") as f:
        for case, verdict in verdicts.items():
            f.write(json.dumps({"backend": "reference", "case_id": case, "verdict": "pass"}) + "\n")
            f.write(json.dumps({"backend": backend, "case_id": case, "verdict": verdict}) + "\n")
    if cost:
        with open(os.path.join(directory, "matrix.json"), "w", encoding="utf-8") as f:
            json.dump(cost, f)


def self_test():
    with tempfile.TemporaryDirectory() as out:
        write_release(out, "torch-2.11", {"a": "pass", "b": "xfail", "c": "pass"})
        write_release(out, "torch-2.4", {"a": "pass", "b": "pass", "c": "pass"},
                      {"install_seconds": 124, "run_seconds": 9, "disk_bytes": 5300000000})
        write_release(out, "paddle-3.0", {"p": "pass", "q": "xfail"})
        write_release(out, "paddle-2.6", {"p": "pass", "q": "pass"})
        os.makedirs(os.path.join(out, "libtorch-2.0"))
        with open(os.path.join(out, "libtorch-2.0", "matrix.json"), "w", encoding="utf-8") as f:
            json.dump({"backend": "libtorch-current", "unavailable": "it did not build"}, f)
        os.makedirs(os.path.join(out, "notes"))  # not a run: ignored
        status = main(out)
        with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
            doc = json.load(f)["families"]
        with open(os.path.join(out, "summary.md"), encoding="utf-8") as f:
            md = f.read()
        assert status == 0, status
        assert list(doc) == ["torch", "libtorch", "paddle"], list(doc)  # family order
        assert list(doc["torch"]["releases"]) == ["2.4", "2.11"], doc["torch"]  # release order, not text order
        assert doc["torch"]["releases"]["2.11"]["counts"] == {"pass": 2, "xfail": 1}, doc["torch"]["releases"]
        assert doc["torch"]["changes"] == [{"case": "b", "verdicts": {"2.4": "pass", "2.11": "xfail"}}], doc
        assert doc["paddle"]["changes"] == [{"case": "q", "verdicts": {"2.6": "pass", "3.0": "xfail"}}], doc
        assert doc["libtorch"]["releases"]["2.0"]["unavailable"] == "it did not build", doc["libtorch"]
        assert "| 2.4 | torch 2.4.0 | 3 | 0 | 0 | 0 | 0 | 0 | 0 | 124 | - | 9 | 5.3 |" in md, md
        assert "| `b` | pass | xfail |" in md and "| `q` | pass | xfail |" in md, md
        assert "| 2.0 | not built: it did not build |" in md, md
        write_release(out, "mindspore-2.7", {"m": "unclassified"})
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
