#!/usr/bin/env python3
"""End-to-end checks of `scatterproof bench --gpu` that need no GPU (issue 31
item 4; bench/gpu_bench.h):

    bench_gpu_checks.py --scatterproof BUILD/scatterproof CHECK

  host       the GPU bench's code path on the host launcher (cuda-host and
             cuda-host-deterministic): every row has kernel time, the copies'
             time and bytes apart, launches, agreeing checksums, a speedup
             against the baseline, and says it is host launcher timing
  torch-cpu  the torch worker (adapters/bench_torch_worker.py) with device
             cpu under the .venv-current torch (SCATTERPROOF_VENV_ROOT, or
             --torch-python): its protocol, its outputs' checksums equal the
             host launcher's, and it is the baseline; without that torch the
             bench exits 4 and this check fails (never skipped)
  mismatch   a contender with a planted kernel bug (cuda-host-mutant:NAME)
             is reported as a CHECKSUM MISMATCH, exit 1, its time not shown
  no-device  `bench --gpu` without a GPU (CUDA_VISIBLE_DEVICES="") exits 4 with "bench --gpu: no GPU:"
             and names the host contenders, and writes no table

Run as the CTest tests bench_gpu_host, bench_gpu_mismatch, bench_gpu_no_device
and adapter_bench_torch_worker_cpu (a framework test: it starts torch).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

# Every workload our cuda backends implement today (8s/8a/8b, scatter_reduce_,
# are not yet), at a scale the host launcher runs in seconds.
WORKLOADS = "1,2,3,4,4b,5,6,7a,7b,7c,7d,7e,9,9b,10"
# The host check (a fast test) takes one workload of each job kind: gather,
# index_select, scatter_, scatter_add_ along a row index and 1-D, int32,
# bfloat16, index_add_.
HOST_WORKLOADS = "1,3,4,5,7c,9b,10"
SCALE = "0.001"


def bench(sp, args, timeout=600, env=None):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench.json"
        proc = subprocess.run([sp, "bench", "--gpu", "--scale", SCALE, "--repeats", "2", "--json", str(out)] + args,
                              capture_output=True, text=True, timeout=timeout, env=env)
        report = json.loads(out.read_text()) if out.exists() else None
    return proc, report


def expect(condition, what, proc=None):
    if not condition:
        detail = "" if proc is None else "\n--- stdout\n%s\n--- stderr\n%s" % (proc.stdout[-4000:], proc.stderr[-4000:])
        raise AssertionError(what + detail)


def rows_by_workload(report):
    return {w["name"]: {r["backend"]: r for r in w["rows"]} for w in report["workloads"]}


def check_rows(report, names, proc, chosen=WORKLOADS):
    workloads = rows_by_workload(report)
    expect(len(workloads) == len(chosen.split(",")), "not every workload ran: %s" % sorted(workloads), proc)
    for name, rows in workloads.items():
        sums = {b: r.get("checksum") for b, r in rows.items()}
        for backend in names:
            r = rows[backend]
            expect("failure" not in r, "%s on %s failed: %s" % (name, backend, r.get("failure")), proc)
            expect(len(r["kernel_s"]) == 2 and all(s > 0 for s in r["kernel_s"]),
                   "%s on %s: kernel_s %s" % (name, backend, r["kernel_s"]), proc)
            expect(r["speedup_vs_baseline"] and r["speedup_vs_baseline"] > 0, "%s on %s: no speedup" % (name, backend))
        expect(len(set(sums.values())) == 1, "%s: checksums differ: %s" % (name, sums), proc)


def check_host(sp):
    proc, report = bench(sp, ["--backend", "cuda-host,cuda-host-deterministic", "--workload", HOST_WORKLOADS])
    expect(proc.returncode == 0, "exit %d, not 0" % proc.returncode, proc)
    expect("HOST LAUNCHER TIMING" in proc.stdout and "not a GPU number" in proc.stdout,
           "the header does not say these are host launcher timings", proc)
    expect(report["device"] is None, "a device was reported without a GPU contender", proc)
    check_rows(report, ["cuda-host", "cuda-host-deterministic"], proc, HOST_WORKLOADS)
    for name, rows in rows_by_workload(report).items():
        for backend, r in rows.items():
            expect(r["to_device_bytes"] > 0 and r["to_host_bytes"] > 0 and r["to_device_s"] is not None
                   and r["to_host_s"] is not None, "%s on %s: no copy time or bytes: %s" % (name, backend, r), proc)
            expect(r["launches"] >= 2, "%s on %s: %d launches (validation + writes at least)" % (
                name, backend, r["launches"]), proc)
            expect(r["call_median_s"] >= r["kernel_median_s"], "%s on %s: the call is shorter than its kernels" % (
                name, backend), proc)
            expect("host launcher timing" in r.get("note", ""), "%s on %s: the row does not say host launcher timing"
                   % (name, backend), proc)


def check_torch_cpu(sp, python):
    args = ["--backend", "cuda-host,torch-cpu", "--workload", WORKLOADS]
    if python:
        args += ["--torch-python", python]
    proc, report = bench(sp, args)
    expect(proc.returncode == 0, "exit %d, not 0 (the .venv-current torch: SCATTERPROOF_VENV_ROOT)" % proc.returncode,
           proc)
    expect(report["baseline"] == "torch-cpu", "the baseline is %s, not torch-cpu" % report["baseline"], proc)
    check_rows(report, ["cuda-host", "torch-cpu"], proc)
    for name, rows in rows_by_workload(report).items():
        t = rows["torch-cpu"]
        expect(abs(t["speedup_vs_baseline"] - 1.0) < 1e-9, "%s: the baseline's own ratio is not 1" % name, proc)
        expect(t["to_device_s"] is None and t["to_device_bytes"] == 0, "%s: torch-cpu timed a copy" % name, proc)
        expect("perf_counter" in t["clock"], "%s: torch-cpu's clock is %s" % (name, t["clock"]), proc)


def check_mismatch(sp):
    proc, report = bench(sp, ["--backend", "cuda-host,cuda-host-mutant:cas-byte-mask", "--workload", "6,9b"])
    expect(proc.returncode == 1, "exit %d, not 1" % proc.returncode, proc)
    expect("CHECKSUM MISMATCH with cuda-host" in proc.stdout, "no CHECKSUM MISMATCH line", proc)
    for name, rows in rows_by_workload(report).items():
        r = rows["cuda-host-mutant:cas-byte-mask"]
        expect("CHECKSUM MISMATCH" in r.get("failure", ""), "%s: the mutant's row is %s" % (name, r), proc)
        expect("kernel_s" not in r, "%s: the mismatching row still shows a time" % name, proc)


def check_no_device(sp):
    # No device visible to the CUDA runtime, also on a machine with a GPU.
    proc, report = bench(sp, [], env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
    expect(proc.returncode == 4, "exit %d, not 4" % proc.returncode, proc)
    expect("bench --gpu: no GPU:" in proc.stderr and "cuda-host" in proc.stderr, "no clear no-GPU message", proc)
    expect("workload" not in proc.stdout and report is None, "a table or report was written without a GPU", proc)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scatterproof", required=True)
    parser.add_argument("--torch-python", default="")
    parser.add_argument("check", choices=["host", "torch-cpu", "mismatch", "no-device"])
    a = parser.parse_args()
    if a.check == "host":
        check_host(a.scatterproof)
    elif a.check == "torch-cpu":
        check_torch_cpu(a.scatterproof, a.torch_python)
    elif a.check == "mismatch":
        check_mismatch(a.scatterproof)
    else:
        check_no_device(a.scatterproof)
    print("bench_gpu_%s: ok" % a.check.replace("-", "_"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
