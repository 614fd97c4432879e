"""What the checkers' self-tests share (check-layers.py, check-docs.py, check-sizes.py).

Each self-test plants problems in a synthetic tree, runs its checker, and
requires exactly the expected problem lines and exit 1; `planted_failures`
says what is wrong with such a run, `finish` prints the verdict.
"""


def planted_failures(run, expected, what, is_problem_line):
    """Why `run` (a finished checker over planted problems) is not exactly
    `expected`: its exit must be 1, every expected line must be printed, and
    no other line that `is_problem_line` calls a problem."""
    failures = []
    if run.returncode != 1:
        failures.append(f"{what}: exit {run.returncode}, wanted 1")
    for line in expected:
        if line not in run.stdout:
            failures.append(f"{what}: output lacks '{line}':\n{run.stdout}")
    reported = [line for line in run.stdout.splitlines() if is_problem_line(line)]
    if len(reported) != len(expected):
        failures.append(f"{what}: wanted exactly {len(expected)} lines:\n{run.stdout}")
    return failures


def finish(name, failures, proven):
    """Prints each failure, or what the self-test proved; the exit status."""
    for failure in failures:
        print(f"{name} self-test: {failure}")
    if not failures:
        print(f"{name} self-test: {proven}")
    return 1 if failures else 0
