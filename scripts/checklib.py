"""What the three checkers share (check-layers.py, check-docs.py, check-sizes.py).

Each takes `--root DIR` (default: the repository this file is in) and
`--self-test`, prints one line per problem and a count, and exits 1 when
there is any problem (`arguments`, `report`).

Each self-test plants problems in a synthetic tree, runs its checker, and
requires exactly the expected problem lines and exit 1; `planted_tree` gives
the writer and the runner of such a tree, `clean_failures` says what is wrong
with a run over the tree before anything is planted, `planted_failures` what
is wrong with a run over planted problems, `finish` prints the verdict.
"""

import argparse
import os
import subprocess
import sys

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def arguments(doc, self_test_help, *flags):
    """The checker's parsed arguments: --root, then each (flag, help) of
    `flags` (a store_true option), then --self-test. `doc`: the checker's
    docstring, whose first paragraph describes it."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--root", default=REPOSITORY, help="the tree to check (default: this repository)")
    for flag, help_text in flags:
        parser.add_argument(flag, action="store_true", help=help_text)
    parser.add_argument("--self-test", action="store_true", help=self_test_help)
    return parser.parse_args()


def report(name, problems, what):
    """Prints each problem, then `NAME: COUNT WHAT` when there is any; the exit status."""
    for problem in problems:
        print(problem)
    if problems:
        print(f"{name}: {len(problems)} {what}")
        return 1
    return 0


def planted_tree(root, checker):
    """(write, run) for a self-test's synthetic tree at `root`: write(relative,
    text) writes a file (folders made), run() runs `checker` (a script path)
    over the tree, its output captured."""
    def write(relative, text):
        path = os.path.join(root, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)

    def run():
        return subprocess.run([sys.executable, os.path.abspath(checker), "--root", root],
                              capture_output=True, text=True)

    return write, run


def clean_failures(run):
    """Why `run` (a finished checker over a tree with nothing planted) is not a pass."""
    if run.returncode != 0:
        return [f"a clean tree was refused:\n{run.stdout}{run.stderr}"]
    return []


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
