"""End-to-end hostile checks of out-of-process backends: no descendant of an
adapter outlives its case or the run, whatever ends the harness (SIGKILL,
SIGTERM, SIGINT), and every wait is bounded by the one timeout setting
(`--timeout`, SCATTERPROOF_CASE_TIMEOUT_S). The adapters are Python scripts
written into the check's temporary directory; each starts a grandchild that
calls setsid() (out of the adapter's process group, which killing the group
used to miss) and writes both pids to a file. Run by scripts/hostile-check."""
import json
import os
import signal
import subprocess
import sys
import time

# Hello, then on the first "run": a setsid() grandchild, both pids written
# to PIDS (argv[1]), and a hang. SIGTERM is ignored, so only a kill works.
HANGING_ADAPTER = r'''import json, os, signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
PIDS = sys.argv[1]
def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        send({"type": "hello", "protocol": 2, "name": "hostile", "version": "1", "ops": ["torch.gather"]})
    elif message["type"] == "run":
        child = subprocess.Popen([sys.executable, "-c", "import signal, time; "
                                  "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(1000)"],
                                 start_new_session=True)
        with open(PIDS + ".tmp", "w") as f:
            f.write("%d %d" % (os.getpid(), child.pid))
        os.rename(PIDS + ".tmp", PIDS)
        time.sleep(1000)
'''

# Starts once, then hangs in every later handshake (a marker file says it
# started before); every case hangs.
RESTART_HANGING_ADAPTER = r'''import json, os, sys, time
MARKER = sys.argv[1]
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        if os.path.exists(MARKER):
            time.sleep(1000)
        open(MARKER, "w").close()
        sys.stdout.write(json.dumps({"type": "hello", "protocol": 2, "name": "hostile", "version": "1",
                                     "ops": ["torch.gather"]}) + "\n")
        sys.stdout.flush()
    elif message["type"] == "run":
        time.sleep(1000)
'''


def gather_spec(path, n):
    cases = [{"id": f"hostile/process/{i}", "op": "torch.gather", "args": {"dim": 0},
              "inputs": {"input": {"dtype": "float32", "data": [1.0, 2.0]},
                         "index": {"dtype": "int64", "data": [1]}},
              "expect": {"output": {"data": [2.0]}}} for i in range(n)]
    path.write_text(json.dumps({"format": "scatterproof-spec/1", "source": {"document": "hostile-check"},
                                "cases": cases}))
    return path


def alive(pid):
    """Whether pid runs (a zombie waiting for its new parent counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return text[text.rindex(")") + 2] != "Z"


def wait_gone(pids, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return []
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


def read_pids(path, harness, seconds=20):
    deadline = time.monotonic() + seconds
    while not path.exists():
        if harness.poll() is not None:
            out, err = harness.communicate()
            raise AssertionError(f"the run ended (exit {harness.returncode}) before the adapter started its "
                                 f"grandchild:\n{out[-2000:]}\n{err[-2000:]}")
        assert time.monotonic() < deadline, f"the adapter wrote no pids within {seconds} s"
        time.sleep(0.05)
    return [int(p) for p in path.read_text().split()]


def kill_all(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def start_hanging_run(ctx, extra_args=()):
    adapter = ctx.tmp / "adapter.py"
    adapter.write_text(HANGING_ADAPTER)
    pids_file = ctx.tmp / "pids"
    spec = gather_spec(ctx.tmp / "spec.json", 1)
    argv = [ctx.scatterproof, "run", "--backend", f"process:{sys.executable} {adapter} {pids_file}",
            "--report-dir", str(ctx.tmp / "reports"), *extra_args, str(spec)]
    harness = subprocess.Popen(argv, cwd=ctx.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               errors="replace")
    return harness, read_pids(pids_file, harness)


def end_harness_with(ctx, sig, within):
    """Signal `sig` to a run whose case hangs (with its grandchild) under --timeout 300: the harness
    must be gone within `within` seconds."""
    harness, pids = start_hanging_run(ctx, ["--timeout", "300"])
    try:
        harness.send_signal(sig)
        try:
            out, err = harness.communicate(timeout=within)
        except subprocess.TimeoutExpired:
            harness.kill()
            harness.communicate()
            raise AssertionError(f"the harness did not end within {within} s of signal {sig}")
        # Killed by SIGKILL; stopped by SIGINT or SIGTERM: 128 + its number, the reports written.
        want = -sig if sig == signal.SIGKILL else 128 + sig
        assert harness.returncode == want, f"exit {harness.returncode} after signal {sig} (want {want}): {err}"
        if sig != signal.SIGKILL:
            assert (ctx.tmp / "reports" / "report.md").exists(), "the reports are rebuilt on the way out"
        left = wait_gone(pids, 5)
        assert not left, (f"after signal {sig} to the harness, adapter/grandchild {left} of {pids} still run "
                          f"5 s later")
    finally:
        kill_all(pids)
        if harness.poll() is None:
            harness.kill()
            harness.communicate()


def check_sigkill_of_the_harness_leaves_no_adapter_or_grandchild(ctx):
    # The case would wait 300 s more: only the reaper's lifeline can end the adapter.
    end_harness_with(ctx, signal.SIGKILL, 10)


# SIGINT and SIGTERM abandon the call in flight at once (the case would wait
# 300 s), write what finished, and stop the backends.
def check_sigterm_of_the_harness_leaves_no_adapter_or_grandchild(ctx):
    end_harness_with(ctx, signal.SIGTERM, 6)


def check_sigint_of_the_harness_leaves_no_adapter_or_grandchild(ctx):
    end_harness_with(ctx, signal.SIGINT, 6)


def check_a_timed_out_case_leaves_no_setsid_grandchild(ctx):
    harness, pids = start_hanging_run(ctx, ["--timeout", "1"])
    try:
        out, err = harness.communicate(timeout=30)
        assert harness.returncode == 1, f"exit {harness.returncode}, expected 1 (a timeout):\n{out}\n{err}"
        assert "timeout" in out.lower(), f"no timeout reported:\n{out}\n{err}"
        left = wait_gone(pids, 3)
        assert not left, f"after the case timed out, adapter/grandchild {left} of {pids} still run"
    finally:
        kill_all(pids)
        if harness.poll() is None:
            harness.kill()
            harness.communicate()


def check_an_adapter_that_hangs_at_every_restart_costs_a_bounded_time(ctx):
    adapter = ctx.tmp / "restart_hang.py"
    adapter.write_text(RESTART_HANGING_ADAPTER)
    spec = gather_spec(ctx.tmp / "spec.json", 6)
    env = dict(os.environ, SCATTERPROOF_CASE_TIMEOUT_S="0.5")  # the default of --timeout
    start = time.monotonic()
    result = ctx.run(["run", "--backend", f"process:{sys.executable} {adapter} {ctx.tmp / 'marker'}",
                      "--report-dir", ctx.tmp / "reports", spec], timeout=60, env=env)
    seconds = time.monotonic() - start
    assert result.returncode == 1, f"exit {result.returncode}:\n{result.stdout}\n{result.stderr}"
    # One case timeout (0.5 s) and two failed starts (3 x 0.5 s each), then
    # every later case fails at once: about 3.5 s, never 6 x 120 s.
    assert seconds < 10, f"6 cases took {seconds:.1f} s:\n{result.stdout}\n{result.stderr}"
    assert "gave up restarting" in result.stdout, f"no 'gave up restarting':\n{result.stdout}"
