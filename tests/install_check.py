#!/usr/bin/env python3
"""install_check.py — the CTest test `install_tree` (cmake/install_test.cmake).

Installs a built scatterproof into a temporary prefix (`cmake --install BUILD
--prefix TMP/prefix`) and runs the installed binary from another temporary
directory, with SCATTERPROOF_NO_SOURCE_FALLBACK=1 so nothing is found in the
source or build tree: the installed layout alone must suffice.

    tests/install_check.py --build BUILD --venv-root DIR [--plugin LIB.so]

Checks, in order (the first that fails names what is missing and exits 1):
  1. the installed layout: bin/ (CLI, plugin host, reaper), the plugin SDK
     header, share/scatterproof/{adapters,python,specs} (each file named by a
     rule of cmake/install.cmake);
  2. the source-tree fallback really is off under the variable (the build
     tree's binary then registers no adapter backend), so 3-6 prove the
     installed tree alone;
  3. `scatterproof --version`;
  4. `scatterproof run` with no paths and no backends from the other
     directory: it plans the installed specs, and a missing venv is named;
  5. the whole installed suite on reference,cpu: exit 0;
  6. the numpy adapter (installed adapters/ and python/, the interpreter of
     DIR/.venv) on the installed torch specs: exit 0;
  7. with --plugin, that plugin through the installed plugin host: exit 0.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

# Paths under the prefix that cmake/install.cmake must put there.
EXPECTED = [
    "bin/scatterproof",
    "bin/scatterproof-plugin-host",
    "bin/scatterproof-reaper",
    "include/scatterproof/plugin.h",
    "share/scatterproof/adapters/manifest.json",
    "share/scatterproof/adapters/common.py",
    "share/scatterproof/adapters/numpy_adapter.py",
    "share/scatterproof/python/scatterproof_adapter/pyproject.toml",
    "share/scatterproof/python/scatterproof_adapter/src/scatterproof_adapter/__init__.py",
    "share/scatterproof/specs/schema/spec.schema.json",
    "share/scatterproof/specs/torch",
    "share/scatterproof/specs/expectations/real-frameworks.json",
]


def fail(message):
    print("install_check: FAIL: " + message, flush=True)
    sys.exit(1)


def run(argv, cwd, env, timeout=300):
    start = time.monotonic()
    proc = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=timeout)
    print("$ %s  (exit %d, %.1f s)" % (" ".join(argv), proc.returncode, time.monotonic() - start), flush=True)
    return proc


def expect_ok(proc, what):
    if proc.returncode != 0:
        tail = "\n".join(proc.stdout.splitlines()[-25:])
        fail("%s exited %d:\n%s" % (what, proc.returncode, tail))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, help="the build directory to install")
    parser.add_argument("--venv-root", required=True, help="the directory holding .venv (SCATTERPROOF_VENV_ROOT)")
    parser.add_argument("--plugin", help="a plugin library to run through the installed plugin host")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="sp-install-")
    try:
        prefix = os.path.join(tmp, "prefix")
        elsewhere = os.path.join(tmp, "elsewhere")  # the working directory: no specs/, no source tree
        os.makedirs(elsewhere)
        proc = run(["cmake", "--install", args.build, "--prefix", prefix], cwd=tmp, env=os.environ.copy())
        expect_ok(proc, "cmake --install")

        # 1. the layout
        missing = [p for p in EXPECTED if not os.path.exists(os.path.join(prefix, p))]
        if missing:
            fail("not installed (an install rule of cmake/install.cmake is missing or wrong): " +
                 ", ".join(os.path.join(prefix, p) for p in missing))
        print("installed layout: %d expected paths present" % len(EXPECTED))

        env = {k: v for k, v in os.environ.items() if not k.startswith("SCATTERPROOF_")}
        env["SCATTERPROOF_NO_SOURCE_FALLBACK"] = "1"
        env["SCATTERPROOF_VENV_ROOT"] = os.path.abspath(args.venv_root)
        exe = os.path.join(prefix, "bin", "scatterproof")
        specs = os.path.join(prefix, "share", "scatterproof", "specs")

        # 2. the variable turns the fallback off (else 3-6 could pass on the source tree)
        build_exe = os.path.join(args.build, "scatterproof")
        proc = run([build_exe, "run"], cwd=elsewhere, env=env)
        if "numpy" in proc.stdout.split("specs:")[0] or "/specs" in proc.stdout:
            fail("SCATTERPROOF_NO_SOURCE_FALLBACK=1 did not stop the build tree's binary from finding the source "
                 "tree:\n" + proc.stdout)

        # 3. --version
        proc = run([exe, "--version"], cwd=elsewhere, env=env)
        expect_ok(proc, "scatterproof --version")
        print(proc.stdout.strip())

        # 4. the plan: default specs are the installed ones; a missing venv is named
        no_venvs = dict(env, SCATTERPROOF_VENV_ROOT=os.path.join(tmp, "no-venvs"))
        proc = run([exe, "run"], cwd=elsewhere, env=no_venvs)
        expect_ok(proc, "scatterproof run (the plan)")
        if "under " + specs not in proc.stdout:
            fail("`scatterproof run` without paths did not plan the installed specs %s:\n%s" % (specs, proc.stdout))
        missing_venv = os.path.join(tmp, "no-venvs", ".venv", "bin", "python")
        if "no Python environment at " + missing_venv not in proc.stdout or "SCATTERPROOF_VENV_ROOT" not in proc.stdout:
            fail("a missing venv was not named with SCATTERPROOF_VENV_ROOT:\n" + proc.stdout)

        # 5. the whole installed suite, in-process backends
        proc = run([exe, "run", "--backend", "reference,cpu", "--report-dir", os.path.join(tmp, "r-suite"), specs],
                   cwd=elsewhere, env=env)
        expect_ok(proc, "the installed suite on reference,cpu")
        print(proc.stdout.strip().splitlines()[-1])

        # 6. a Python adapter from the installed adapters/ and python/
        proc = run([exe, "run", "--backend", "numpy", "--report-dir", os.path.join(tmp, "r-numpy"),
                    os.path.join(specs, "torch")], cwd=elsewhere, env=env)
        expect_ok(proc, "the installed numpy adapter on the installed torch specs")
        summary = proc.stdout.strip().splitlines()[-1]
        print(summary)
        if " pass" not in summary or " 0 pass" in summary:
            fail("the numpy adapter passed nothing: " + summary)

        # 7. a plugin through the installed plugin host
        if args.plugin:
            proc = run([exe, "run", "--backend", "plugin:" + args.plugin, "--report-dir",
                        os.path.join(tmp, "r-plugin"), os.path.join(specs, "torch")], cwd=elsewhere, env=env)
            expect_ok(proc, "the plugin through the installed plugin host")
            print(proc.stdout.strip().splitlines()[-1])
        print("install_check: the installed tree runs the suite from %s without the source tree" % elsewhere)
        return 0
    finally:
        if args.keep:
            print("kept " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
