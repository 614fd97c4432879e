"""End-to-end hostile checks of whole runs: memory bounded by the documented
limits whatever the number of cases and results, one run per report
directory, report paths that cannot be written, SIGINT/SIGTERM, and report
text that cannot carry raw control bytes. Run by scripts/hostile-check."""
import json
import os
import re
import signal
import subprocess
import time

# The goal of issue 15: peak memory of `validate` and `run` below this for
# any input inside the documented limits.
PEAK_LIMIT_MIB = 512


def limit(ctx, name):
    """A constant of harness/spec_loader.h (the documented limits)."""
    text = (ctx.source / "harness" / "spec_loader.h").read_text()
    m = re.search(rf"{name}\s*=\s*([^;]+);", text)
    assert m, f"{name} not found in spec_loader.h"
    expr = m.group(1).replace("ull", "").replace("int64_t{1}", "1").replace("uint64_t{1}", "1")
    return int(eval(expr, {"__builtins__": {}}))  # noqa: S307 - a constant expression of our own header


def small_case(i, **extra):
    case = {"id": f"h/{i}", "op": "torch.gather", "args": {"dim": 0},
            "inputs": {"input": {"dtype": "float32", "data": [1.0, 2.0]}, "index": {"dtype": "int64", "data": [1]}},
            "expect": {"output": {"data": [2.0]}}}
    case.update(extra)
    return case


def spec(cases, **extra):
    doc = {"format": "scatterproof-spec/1", "source": {"document": "hostile-check"}, "cases": cases}
    doc.update(extra)
    return json.dumps(doc)


def write_padded_to(path, text_before, filler, text_after, size):
    """A file of exactly `size` bytes: text_before, filler repeated, text_after."""
    n = (size - len(text_before) - len(text_after)) // len(filler)
    with open(path, "w") as f:
        f.write(text_before)
        f.write(filler * (n - 1))
        f.write(filler.rstrip(","))
        f.write(text_after)


def assert_bounded(ctx, result, what, allowed_exits=(0, 3)):
    assert result.returncode in allowed_exits, f"{what}: {result!r}"
    if ctx.sanitized:
        return  # ASan's shadow memory is not the tool's
    assert result.peak_mib < PEAK_LIMIT_MIB, f"{what}: peak {result.peak_mib:.0f} MiB >= {PEAK_LIMIT_MIB}: {result!r}"


def check_validate_one_huge_array_at_the_file_limit(ctx):
    size = limit(ctx, "kMaxSpecFileBytes")
    case = small_case(0)
    case["inputs"]["input"]["data"] = "@@"
    before, after = spec([case]).split('"@@"')
    path = ctx.tmp / "huge-array.json"
    write_padded_to(path, before + "[", "0,", "]" + after, size)
    r = ctx.run_measured(["validate", path])
    print(f"      validate, {size >> 20} MiB file of one array: {r.seconds:.1f} s, peak {r.peak_mib:.0f} MiB")
    assert_bounded(ctx, r, "a file at the size limit holding one array of zeros", allowed_exits=(3,))
    assert "h/0" in r.stderr, f"the error must name the case: {r!r}"


def check_validate_millions_of_ill_typed_tags(ctx):
    size = limit(ctx, "kMaxSpecFileBytes")
    text = spec([small_case(0, tags=["T"])])
    before, after = text.split('["T"]')
    path = ctx.tmp / "tags.json"
    write_padded_to(path, before + "[", "1,", "]" + after, size)
    r = ctx.run_measured(["validate", path])
    print(f"      validate, {size >> 20} MiB file of non-string tags: {r.seconds:.1f} s, peak {r.peak_mib:.0f} MiB")
    assert_bounded(ctx, r, "a case with millions of non-string tags", allowed_exits=(3,))
    assert "tags" in r.stderr and "h/0" in r.stderr, f"the error must name the case and the field: {r!r}"


def check_validate_and_run_the_most_cases_a_file_may_hold(ctx):
    n = limit(ctx, "kMaxCasesPerFile") // (10 if ctx.sanitized else 1)
    path = ctx.tmp / "many.json"
    path.write_text(spec([small_case(i) for i in range(n)]))
    r = ctx.run_measured(["validate", path])
    print(f"      validate, {n} cases in one file: {r.seconds:.1f} s, peak {r.peak_mib:.0f} MiB")
    assert_bounded(ctx, r, f"validate of {n} cases", allowed_exits=(0,))
    assert f"{n} valid case(s)" in r.stdout, r
    r = ctx.run_measured(["run", "--backend", "reference", "--report-dir", ctx.tmp / "out", path], timeout=900)
    assert_bounded(ctx, r, f"run of {n} cases", allowed_exits=(0,))
    lines = (ctx.tmp / "out" / "results.jsonl").read_text().count("\n")
    assert lines == 2 * n, f"expected {2 * n} results (document + reference), results.jsonl has {lines}"
    report = json.loads((ctx.tmp / "out" / "report.json").read_text())
    assert report["summary"]["total"] == 2 * n and len(report["results"]) == 2 * n, report["summary"]
    print(f"      {n} cases: run {r.seconds:.1f} s, peak {r.peak_mib:.0f} MiB")


def check_cases_spread_over_many_files_stream(ctx):
    # Memory must not grow with the number of files either.
    d = ctx.tmp / "specs"
    d.mkdir()
    for f in range(200):
        (d / f"f{f:03}.json").write_text(spec([small_case(f * 1000 + i) for i in range(1000)]))
    r = ctx.run_measured(["validate", d])
    assert_bounded(ctx, r, "200 files of 1000 cases", allowed_exits=(0,))
    assert "200000 valid case(s) in 200 file(s)" in r.stdout, r


def check_a_second_run_into_the_same_report_dir_fails_at_once(ctx):
    path = ctx.tmp / "many.json"
    path.write_text(spec([small_case(i) for i in range(20000)]))
    out = ctx.tmp / "out"
    first = subprocess.Popen([ctx.scatterproof, "run", "--backend", "reference", "--report-dir", str(out), str(path)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not (out / "results.jsonl").exists() or (out / "results.jsonl").stat().st_size == 0:
            assert time.monotonic() < deadline, "the first run wrote nothing in 30 s"
            time.sleep(0.05)
        second = ctx.run(["run", "--backend", "reference", "--report-dir", out, path], timeout=30)
        assert first.poll() is None, "the first run ended too early for the check to mean anything"
        assert second.returncode == 2, f"second run: exit {second.returncode}: {second.stderr}"
        assert "in use by another scatterproof run" in second.stderr and str(first.pid) in second.stderr, second.stderr
        rebuild = ctx.run(["report", out], timeout=30)
        assert rebuild.returncode == 2 and "in use" in rebuild.stderr, rebuild.stderr
    finally:
        stdout, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, f"first run: exit {first.returncode}: {stderr[-2000:]}"
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == 40000 and all(json.loads(line)["verdict"] == "pass" for line in lines), len(lines)
    again = ctx.run(["report", out], timeout=120)
    assert again.returncode == 0, again.stderr


def check_report_paths_that_cannot_be_written_are_usage_errors(ctx):
    path = ctx.tmp / "one.json"
    path.write_text(spec([small_case(0)]))
    as_file = ctx.tmp / "a-file"
    as_file.write_text("x")
    for report_dir, bad in [(as_file, str(as_file)), (as_file / "sub", str(as_file)),
                            ("/proc/self/no-such-dir", "/proc/self/no-such-dir")]:
        r = ctx.run(["run", "--backend", "reference", "--report-dir", report_dir, path])
        assert r.returncode == 2 and bad in r.stderr, f"--report-dir {report_dir}: exit {r.returncode}: {r.stderr}"
    for name in ["results.jsonl", "report.md", "junit.xml"]:
        out = ctx.tmp / f"out-{name}"
        (out / name).mkdir(parents=True)
        r = ctx.run(["run", "--backend", "reference", "--report-dir", out, path])
        assert r.returncode == 2 and str(out / name) in r.stderr and "directory" in r.stderr, \
            f"{name} a directory: exit {r.returncode}: {r.stderr}"


def interrupt(ctx, signum, expected_exit):
    path = ctx.tmp / "many.json"
    path.write_text(spec([small_case(i) for i in range(50000)]))
    out = ctx.tmp / "out"
    run = subprocess.Popen([ctx.scatterproof, "run", "--backend", "reference", "--report-dir", str(out), str(path)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not (out / "results.jsonl").exists() or (out / "results.jsonl").stat().st_size < 10000:
        assert time.monotonic() < deadline and run.poll() is None, "the run did not get going"
        time.sleep(0.05)
    run.send_signal(signum)
    stdout, stderr = run.communicate(timeout=60)
    assert run.returncode == expected_exit, f"exit {run.returncode} (want {expected_exit}): {stderr[-2000:]}"
    assert "interrupted" in stderr, stderr
    lines = (out / "results.jsonl").read_text().split("\n")
    assert lines[-1] == "", "results.jsonl must end with a complete line"
    records = [json.loads(line) for line in lines[:-1]]
    assert 0 < len(records) < 100000, len(records)
    report = json.loads((out / "report.json").read_text())
    assert report["summary"]["total"] == len(records), "the reports must be rebuilt from what finished"


def check_sigint_finishes_the_record_and_exits_130(ctx):
    interrupt(ctx, signal.SIGINT, 130)


def check_sigterm_finishes_the_record_and_exits_143(ctx):
    interrupt(ctx, signal.SIGTERM, 143)


def check_report_md_escapes_control_bytes_from_provenance(ctx):
    path = ctx.tmp / "ctl.json"
    case = small_case(0, source={"document": "doc\u0000with\u001bNUL-and-ESC", "example": "e\u0007"})
    case["expect"] = {"output": {"data": [1.0]}}  # a wrong document claim: the case is listed as not passing
    path.write_text(spec([case]))
    r = ctx.run(["run", "--backend", "reference", "--report-dir", ctx.tmp / "out", path])
    assert r.returncode in (0, 1), r.stderr
    md = (ctx.tmp / "out" / "report.md").read_bytes()
    for byte in (b"\x00", b"\x1b", b"\x07"):
        assert byte not in md, f"report.md holds a raw {byte!r}"
    assert b"doc\\x00with\\x1bNUL-and-ESC" in md, md[-2000:]


def check_validate_and_run_a_valid_file_at_the_size_limit(ctx):
    # Cases as large as the element limit allows, written out value by value,
    # filling the file to its size limit: the most a valid file can ask for.
    size = limit(ctx, "kMaxSpecFileBytes")
    n = limit(ctx, "kMaxCaseElements") // 4
    case_text = json.dumps(
        {"id": "@ID", "op": "torch.gather", "args": {"dim": 0},
         "inputs": {"input": {"dtype": "float32", "data": "@IN"}, "index": {"dtype": "int64", "data": "@IX"}},
         "expect": {"output": {"data": "@IN"}}})
    case_text = case_text.replace('"@IN"', "[" + ",".join(["0.5"] * n) + "]")
    case_text = case_text.replace('"@IX"', "[" + ",".join(["0"] * n) + "]")
    count = (size - 200) // (len(case_text) + 1)
    path = ctx.tmp / "limit.json"
    with open(path, "w") as f:
        f.write('{"format": "scatterproof-spec/1", "source": {"document": "hostile-check"}, "cases": [')
        f.write(",".join(case_text.replace("@ID", f"big/{i}") for i in range(count)))
        f.write("]}")
    assert path.stat().st_size > size * 0.95, path.stat().st_size
    r = ctx.run_measured(["validate", path])
    print(f"      validate, {path.stat().st_size >> 20} MiB file of {count} valid cases: {r.seconds:.1f} s, "
          f"peak {r.peak_mib:.0f} MiB")
    assert_bounded(ctx, r, "validate of a valid file at the size limit", allowed_exits=(0,))
    assert f"{count} valid case(s)" in r.stdout, r
    r = ctx.run_measured(["run", "--backend", "reference,cpu", "--report-dir", ctx.tmp / "out", path], timeout=900)
    print(f"      run (reference, cpu) of it: {r.seconds:.1f} s, peak {r.peak_mib:.0f} MiB")
    assert_bounded(ctx, r, "run of a valid file at the size limit", allowed_exits=(0,))
