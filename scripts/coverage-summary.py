#!/usr/bin/env python3
"""Summarises two gcovr JSON reports (scripts/coverage): per file, the lines
and branches the spec suite reached and those the fuzz campaign reached, and
every line a phase never ran, grouped into runs of consecutive lines with the
function they are in. Markdown on stdout.

  coverage-summary.py SPECS.json FUZZ.json [--fuzz-seconds N]
"""
import argparse
import json
import sys


def load(path):
    """{file: {line: (count, [branch counts], function)}} of one gcovr JSON report."""
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    files = {}
    for entry in report.get("files", []):
        lines = {}
        for line in entry.get("lines", []):
            if line.get("gcovr/noncode"):
                continue
            branches = [b.get("count", 0) for b in line.get("branches", []) if not b.get("throw")]
            lines[line["line_number"]] = (line.get("count", 0), branches, line.get("function_name", ""))
        files[entry["file"]] = lines
    return files


def totals(lines):
    """(lines reached, lines, branches taken, branches) of one file."""
    reached = sum(1 for count, _, _ in lines.values() if count > 0)
    taken = sum(sum(1 for c in branches if c > 0) for _, branches, _ in lines.values())
    branches = sum(len(branches) for _, branches, _ in lines.values())
    return reached, len(lines), taken, branches


def share(a, b):
    return f"{100.0 * a / b:5.1f}%" if b else "    -"


def missed_runs(lines):
    """Runs (first, last, function) of consecutive code lines never executed."""
    runs = []
    for number in sorted(lines):
        count, _, function = lines[number]
        if count > 0:
            continue
        if runs and runs[-1][2] == function and runs[-1][1] == number - 1:
            runs[-1][1] = number
        else:
            runs.append([number, number, function])
    return runs


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("specs")
    parser.add_argument("fuzz")
    parser.add_argument("--fuzz-seconds", default="60")
    args = parser.parse_args()
    phases = {"specs": load(args.specs), "fuzz": load(args.fuzz)}
    names = sorted(set(phases["specs"]) | set(phases["fuzz"]))
    out = sys.stdout
    out.write("# Coverage of our kernels: the spec suite and the fuzzer\n\n")
    out.write(f"specs: `scatterproof run --backend cpu,cuda-host --layouts all specs`; fuzz: "
              f"`scatterproof fuzz` {args.fuzz_seconds} s on cpu, then on cuda-host. "
              "gcc --coverage at -O1; branches are gcov's (exception paths left out).\n\n")
    out.write("| file | lines, specs | lines, fuzz | branches, specs | branches, fuzz |\n|---|---:|---:|---:|---:|\n")
    grand = {p: [0, 0, 0, 0] for p in phases}
    for name in names:
        cells = []
        for p in phases:
            t = totals(phases[p].get(name, {}))
            grand[p] = [g + x for g, x in zip(grand[p], t)]
            cells.append(t)
        out.write(f"| `{name}` | {share(cells[0][0], cells[0][1])} | {share(cells[1][0], cells[1][1])} | "
                  f"{share(cells[0][2], cells[0][3])} | {share(cells[1][2], cells[1][3])} |\n")
    s, f = grand["specs"], grand["fuzz"]
    out.write(f"| **all** ({s[1]} lines, {s[3]} branches) | **{share(s[0], s[1])}** | **{share(f[0], f[1])}** | "
              f"**{share(s[2], s[3])}** | **{share(f[2], f[3])}** |\n\n")
    for p in phases:
        out.write(f"## Lines the {p} phase never ran\n\n")
        for name in names:
            runs = missed_runs(phases[p].get(name, {}))
            if not runs:
                continue
            out.write(f"- `{name}`: " + "; ".join(
                (f"{a}" if a == b else f"{a}-{b}") + (f" ({fn})" if fn else "") for a, b, fn in runs) + "\n")
        out.write("\n")
    both = []
    for name in names:
        spec_lines, fuzz_lines = phases["specs"].get(name, {}), phases["fuzz"].get(name, {})
        missed = [n for n, (c, _, _) in spec_lines.items() if c == 0 and fuzz_lines.get(n, (0,))[0] == 0]
        if missed:
            both.append((name, len(missed)))
    out.write("## Lines neither phase ran\n\n")
    for name, n in both:
        out.write(f"- `{name}`: {n} lines\n")
    if not both:
        out.write("none\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
