#!/usr/bin/env python3
"""End-to-end checks of the CLI's habits for people and CI (issue 18):

    cli_checks.py --scatterproof BUILD/scatterproof CHECK

  progress   `run` with stdout a terminal (a pty) draws the progress line
             (cases done/total, rate, ETA, unexpected so far) and erases it;
             with stdout a pipe it draws nothing (CI logs stay clean)
  run-record a run writes DIR/run.json: tool version, commit, machine
  plan       `run` without --backend runs nothing and prints the backends,
             the cases and the exact command that runs them (exit 0)
  version    `--version` prints the version and the commit

Run as the CTest tests cli_progress, cli_run_record, cli_run_plan, cli_version.
"""
import argparse
import json
import os
import pty
import re
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Long enough (several seconds) for the line to be drawn: it shows from the first second on.
CASES = 40000
VERSION_LINE = re.compile(r"^scatterproof \d+\.\d+\.\d+ \((commit [0-9a-f]{4,}(-dirty)?|unknown commit)\)$")


def write_spec(path, n):
    case = {"op": "torch.gather", "args": {"dim": 0},
            "inputs": {"input": {"dtype": "float32", "data": [1.0, 2.0]}, "index": {"dtype": "int64", "data": [1]}},
            "expect": {"output": {"data": [2.0]}}}
    cases = [dict(case, id=f"p/{i}") for i in range(n)]
    path.write_text(json.dumps({"format": "scatterproof-spec/1", "source": {"document": "cli-checks"},
                                "cases": cases}))


def run_on_pty(argv, timeout=600):
    """argv with stdout a pseudo-terminal; (exit code, bytes it wrote there)."""
    controller, terminal = pty.openpty()
    proc = subprocess.Popen(argv, stdout=terminal, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    os.close(terminal)
    out = b""
    while True:
        ready, _, _ = select.select([controller], [], [], timeout)
        if not ready:
            proc.kill()
            raise AssertionError(f"no output from {argv} in {timeout} s")
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # EIO: the process closed its side
            break
        if not chunk:
            break
        out += chunk
    os.close(controller)
    proc.wait(timeout=timeout)
    return proc.returncode, out


def check_progress(exe, tmp):
    spec = tmp / "many.json"
    write_spec(spec, CASES)
    argv = [exe, "run", "--backend", "reference", "--report-dir", str(tmp / "tty"), str(spec)]
    start = time.monotonic()
    code, out = run_on_pty(argv)
    seconds = time.monotonic() - start
    text = out.decode(errors="replace")
    assert code == 0, f"exit {code}: {text[-2000:]}"
    line = r"\r\x1b\[K(\d+)(?:/(\d+))? cases, [\d.]+/s(?:, ETA \d+:\d\d(?::\d\d)?)?, (\d+) unexpected"
    drawn = re.findall(line, text)
    assert drawn, f"no progress line on a terminal: {text[-2000:]!r}"
    assert any(total == str(CASES) for _, total, _ in drawn), f"the total never shown: {drawn[-3:]}"
    assert "ETA" in text, f"no ETA: {text[-2000:]!r}"
    # Erased before the summary line: the summary starts a clean line.
    assert re.search(r"\r\x1b\[K\d+ results: ", text), f"progress line not erased at the end: {text[-300:]!r}"
    # At most 4 redraws a second.
    assert len(drawn) <= 4 * seconds + 1, f"{len(drawn)} redraws in {seconds:.1f} s"
    print(f"      terminal: {len(drawn)} redraws in {seconds:.1f} s, last {drawn[-1]}")

    piped = subprocess.run([exe, "run", "--backend", "reference", "--report-dir", str(tmp / "pipe"), str(spec)],
                           capture_output=True, timeout=600)
    assert piped.returncode == 0, piped.stderr[-2000:]
    assert b"\r" not in piped.stdout and b"\x1b" not in piped.stdout, f"progress in a pipe: {piped.stdout[:300]!r}"
    summary = f"{2 * CASES} results: {2 * CASES} pass (reports in {tmp / 'pipe'})"
    assert piped.stdout.decode().splitlines() == [summary], piped.stdout[-500:]


def check_run_record(exe, tmp):
    spec = tmp / "one.json"
    write_spec(spec, 1)
    out = tmp / "out"
    r = subprocess.run([exe, "run", "--backend", "reference", "--report-dir", str(out), str(spec)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    record = json.loads((out / "run.json").read_text())
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    assert version == f"scatterproof {record['tool_version']} (" + (
        record["commit"] if record["commit"] == "unknown commit" else f"commit {record['commit']}") + ")", \
        (version, record)
    machine = record["machine"]
    assert machine["hostname"] == os.uname().nodename, machine
    assert machine["os"].startswith(os.uname().sysname), machine
    assert machine["cpu_count"] == os.cpu_count(), machine
    assert record["format"] == "scatterproof-run/1" and re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$",
                                                                 record["started_at"]), record
    # `report DIR` rebuilds the reports and keeps the record.
    again = subprocess.run([exe, "report", str(out)], capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and json.loads((out / "run.json").read_text()) == record, again.stderr


def check_plan(exe, tmp):
    spec_dir = tmp / "specs"
    spec_dir.mkdir()
    write_spec(spec_dir / "a.json", 3)
    write_spec(spec_dir / "b.json", 2)
    (spec_dir / "b.json").write_text((spec_dir / "b.json").read_text().replace('"p/', '"q/'))
    out = tmp / "never"
    r = subprocess.run([exe, "run", "--filter", "q/*", "--report-dir", str(out), str(spec_dir)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"exit {r.returncode}: {r.stderr}"
    assert not out.exists(), "the plan ran something: the report directory exists"
    names = subprocess.run([exe, "backends", "--names"], capture_output=True, text=True, timeout=300).stdout.split()
    assert "reference" in names, names
    assert "nothing was run" in r.stdout, r.stdout
    assert f"(`scatterproof backends --names`): {', '.join(names)}\n" in r.stdout, r.stdout
    assert "5 case(s) in 2 file(s)" in r.stdout and "2 selected by --filter/--shard" in r.stdout, r.stdout
    command = f"{exe} run --backend {','.join(names)} --filter 'q/*' --report-dir {out} {spec_dir}"
    assert r.stdout.rstrip("\n").endswith("\n  " + command), (command, r.stdout)


def check_version(exe, tmp):
    r = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r
    assert VERSION_LINE.match(r.stdout.strip()), r.stdout


CHECKS = {"progress": check_progress, "run-record": check_run_record, "plan": check_plan, "version": check_version}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scatterproof", required=True)
    parser.add_argument("check", choices=sorted(CHECKS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sp-cli-") as tmp:
        CHECKS[args.check](os.path.abspath(args.scatterproof), Path(tmp))
    print(f"cli check {args.check}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
