#!/usr/bin/env python3
"""A framework backend's `@cpu` device variant judges every case as the
plain backend does (issue 30, part 1):

    device_variant_check.py --scatterproof BUILD/scatterproof --backend torch-python-current
                            --report-dir DIR SPEC...

runs `scatterproof run --backend B,B@cpu --layouts all` over the specs with
the real frameworks' expectation file, then requires of results.jsonl:
  - every case the plain backend was judged on, B@cpu was judged on too,
    with the same verdict (and the other way round), and there are cases;
  - B@cpu's version names its device ("... on cpu"), B's does not;
  - B@cuda is unavailable on a machine without an NVIDIA GPU, with the
    reason (exit 4), and `backends --names` lists no device variant there.
Run as the CTest tests device_variant_cpu_torch_python(_current).
"""
import argparse
import collections
import json
import os
import subprocess
import sys


def fail(message):
    print("device_variant_check: FAIL: " + message)
    sys.exit(1)


def has_nvidia_gpu():
    gpus = "/proc/driver/nvidia/gpus"
    return os.path.exists("/dev/nvidia0") or (os.path.isdir(gpus) and bool(os.listdir(gpus)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scatterproof", required=True)
    parser.add_argument("--backend", required=True)
    parser.add_argument("--expectations", required=True)
    parser.add_argument("--report-dir", required=True)
    parser.add_argument("specs", nargs="+")
    args = parser.parse_args()
    plain, variant = args.backend, args.backend + "@cpu"

    cmd = [args.scatterproof, "run", "--backend", plain + "," + variant, "--layouts", "all", "--expectations",
           args.expectations, "--report-dir", args.report_dir] + args.specs
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode not in (0, 1):
        fail("%s exited %d:\n%s" % (" ".join(cmd), proc.returncode, proc.stdout[-3000:]))
    verdicts = {plain: {}, variant: {}}
    versions = {plain: set(), variant: set()}
    with open(os.path.join(args.report_dir, "results.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if r.get("backend") in verdicts:
                verdicts[r["backend"]][r["case_id"]] = r["verdict"]
                versions[r["backend"]].add(r.get("backend_version", ""))
    if not verdicts[plain]:
        fail("no result of %s in %s" % (plain, args.report_dir))
    differ = sorted(c for c in set(verdicts[plain]) | set(verdicts[variant])
                    if verdicts[plain].get(c) != verdicts[variant].get(c))
    if differ:
        fail("%d case(s) judged differently by %s and %s, e.g.\n%s" % (
            len(differ), plain, variant,
            "\n".join("  %s: %s vs %s" % (c, verdicts[plain].get(c), verdicts[variant].get(c)) for c in differ[:10])))
    if not all(v.endswith(" on cpu") for v in versions[variant]) or any(" on " in v for v in versions[plain]):
        fail("versions do not name the device: %s %s, %s %s" % (plain, versions[plain], variant, versions[variant]))
    counts = collections.Counter(verdicts[variant].values())
    print("device_variant_check: %s and %s agree on %d cases (%s); versions %s / %s" % (
        plain, variant, len(verdicts[plain]), ", ".join("%s %d" % kv for kv in sorted(counts.items())),
        sorted(versions[plain]), sorted(versions[variant])))

    names = subprocess.run([args.scatterproof, "backends", "--names"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True).stdout.split()
    if variant in names:
        fail("`backends --names` lists %s, which runs what %s runs" % (variant, plain))
    if has_nvidia_gpu():
        print("device_variant_check: this machine has an NVIDIA GPU: the unavailable-cuda check does not apply")
        return
    cuda = subprocess.run([args.scatterproof, "run", "--backend", plain + "@cuda", "--report-dir",
                           args.report_dir + "-cuda", args.specs[0]],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if cuda.returncode != 4 or "no NVIDIA GPU on this machine" not in cuda.stdout:
        fail("%s@cuda without a GPU: expected exit 4 naming the missing GPU, got %d:\n%s"
             % (plain, cuda.returncode, cuda.stdout[-2000:]))
    if any(n.endswith("@cuda") for n in names):
        fail("`backends --names` lists a cuda variant on a machine without a GPU: %s" % names)
    print("device_variant_check: %s@cuda is unavailable here, as it should be: %s"
          % (plain, cuda.stdout.strip().splitlines()[0]))


if __name__ == "__main__":
    main()
