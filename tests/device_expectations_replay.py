#!/usr/bin/env python3
"""Re-judge a run's results.jsonl against expectation files, offline.

A GPU is lent rarely; its results are kept. This replays the verdicts of a
run (scatterproof run's results.jsonl) against the expectation files as they
are now, with the matching of harness/expectations.cc (find_expectation,
apply_expectation): the first entry whose backend, device, verdict,
framework + versions, case, clause (any of the record's space-separated
clauses) and op globs all hold decides. So an edit to specs/expectations/*.json
made after the run can be checked without the device.

    tests/device_expectations_replay.py RESULTS.jsonl --expectations A.json [--expectations B.json ...]
        [--reclassify adapters/torch_adapter.py]

Prints the replayed counts and every record still unexpected (fail, crash,
device_assert, timeout, error, unclassified, xpass); exit status 1 if any.
The record's verdict before expectations: an xfail's detail starts with
"expected <verdict>,", an xpass was a pass. The device and the framework
version come from the record's backend_version ("torch-python 2.11.0+cu130 on
cuda:0 (...)"); a backend_version without " on <device>" is the host (cpu).
--reclassify ADAPTER: an unclassified record's exception ("error (no
category): RuntimeError: ...") is classified again with ADAPTER's CATEGORIES
as they are now (for the record's framework version and device); a category
that is one of the record's expected ones makes it a pass, another a fail.
"""

import argparse
import collections
import fnmatch
import json
import re
import sys

UNEXPECTED = {"fail", "crash", "device_assert", "timeout", "error", "unclassified"}


def glob(pattern, text):
    return pattern == text or fnmatch.fnmatchcase(text, pattern)


def version(text):
    m = re.match(r"[rv]?(\d+(?:\.\d+)*)", text or "")
    return tuple(int(p) for p in m.group(1).split(".")) if m else None


def cmp(a, b):
    n = max(len(a), len(b))
    a, b = a + (0,) * (n - len(a)), b + (0,) * (n - len(b))
    return (a > b) - (a < b)


def in_range(v, text):
    """reference/versions.cc parse_version_range: >=V, <V, ==V (the series), comma-joined."""
    for part in text.split(","):
        part = part.strip()
        op = next(o for o in (">=", "<", "==") if part.startswith(o))
        bound = version(part[len(op):].strip())
        if op == ">=" and cmp(v, bound) < 0:
            return False
        if op == "<" and cmp(v, bound) >= 0:
            return False
        if op == "==":
            nxt = list(bound) + [0] * (2 - len(bound)) if len(bound) < 3 else list(bound) + [1]
            if len(bound) < 3:
                nxt[1] += 1
            if cmp(v, bound) < 0 or cmp(v, tuple(nxt)) >= 0:
                return False
    return True


def load(paths):
    entries = []
    for path in paths:
        with open(path) as f:
            for e in json.load(f)["entries"]:
                entries.append(dict(e, file=path))
    return entries


def find(entries, rec, raw, device, framework):
    clauses = (rec.get("clause") or "").split()
    for e in entries:
        if not glob(e["backend"], rec["backend"]):
            continue
        if e.get("device") and not glob(e["device"], device or "cpu"):
            continue
        if e.get("verdict") and e["verdict"] != raw:
            continue
        if e.get("framework"):
            if not framework or framework[0] != e["framework"]:
                continue
            if e.get("versions") and (not framework[1] or not in_range(framework[1], e["versions"])):
                continue
        if e.get("case") and not glob(e["case"], rec["case_id"]):
            continue
        if e.get("clause") and not any(glob(e["clause"], c) for c in clauses):
            continue
        if e.get("op") and not glob(e["op"], rec.get("op") or ""):
            continue
        return e
    return None


def raw_verdict(rec):
    v = rec["verdict"]
    if v == "xpass":
        return "pass"
    if v == "xfail":
        m = re.match(r"expected (\w+),", rec.get("detail") or "")
        return m.group(1) if m else "fail"
    return v


def context(rec):
    """(device, (framework, version)) from backend_version."""
    text = rec.get("backend_version") or ""
    m = re.search(r" on (\S+?)(?: \(|$)", text)
    device = "" if not m or m.group(1) == "cpu" else m.group(1)
    words = text.split()
    name = words[0].split("-")[0].lower() if words else ""
    name = {"libtorch": "torch"}.get(name, name)
    return device, ((name, version(words[1])) if len(words) > 1 else None)


def reclassifier(adapter):
    """classify(rec) -> the category ADAPTER's table gives an unclassified record's exception now."""
    import builtins
    import importlib.util
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    tests = os.path.join(here, "..", "adapters", "test_classifiers.py")
    spec = importlib.util.spec_from_file_location("test_classifiers", tests)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    table = mod.load_table(os.path.basename(adapter))

    def classify(rec):
        m = re.match(r"error \(no category\): (\w+): (.*)", rec.get("outcome") or "", re.S)
        if not m:
            return None
        exc_type = getattr(builtins, m.group(1), RuntimeError)
        text = (rec.get("backend_version") or "").split()
        device = context(rec)[0] or None
        return mod.classifier(table, text[1] if len(text) > 1 else "", device=device)(exc_type(m.group(2)))

    return classify


def expected_categories(rec):
    """The categories of the record's expected error: "error a | b" -> {a, b}."""
    text = rec.get("expected") or ""
    return {w.strip().split()[-1] for w in text.split(" or ")[0].split("|")} if text.startswith("error") else set()


def replay(records, entries, classify=None):
    out = []
    for rec in records:
        raw = raw_verdict(rec)
        device, framework = context(rec)
        if raw == "unclassified" and classify:
            category = classify(rec)
            if category:
                raw = "pass" if category in expected_categories(rec) else "fail"
        e = find(entries, rec, raw, device, framework) if raw in UNEXPECTED | {"pass"} else None
        v = raw
        if e and raw in UNEXPECTED:
            v = "xfail"
        elif e and raw == "pass":
            v = "pass" if e.get("intermittent") else "xpass"
        out.append((rec, v, e))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("--expectations", action="append", default=[])
    ap.add_argument("--reclassify", help="an adapter of adapters/ whose CATEGORIES classify unclassified records again")
    args = ap.parse_args()
    with open(args.results) as f:
        records = [json.loads(line) for line in f if line.strip()]
    records = [r for r in records if r.get("backend") != "reference"]
    classify = reclassifier(args.reclassify) if args.reclassify else None
    replayed = replay(records, load(args.expectations), classify)
    counts = collections.Counter(v for _, v, _ in replayed)
    print("replayed:", ", ".join(f"{k} {counts[k]}" for k in sorted(counts)))
    bad = [(r, v) for r, v, _ in replayed if v in UNEXPECTED | {"xpass"}]
    for r, v in bad:
        print(f"  {v}: {r['case_id']} [{r.get('clause') or '-'}] {(r.get('detail') or '')[:160]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
