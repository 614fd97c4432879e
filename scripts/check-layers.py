#!/usr/bin/env python3
"""check-layers.py — the layers of scatterproof include one way only.

    reference  <-  backends  <-  harness  <-  reports | bench | fuzz  <-  cli

A file in one layer may include headers of its own layer and of the layers
below it: never of a layer above (upward), and never of a sibling on its own
level (reports, bench and fuzz do not include each other). Each layer is
its own CMake library linked in the same order, so an include the layers
forbid would also be a link dependency they forbid.

Scans the `#include "LAYER/..."` (and `<LAYER/...>`) lines of every .cc, .h
and .cu file under the layer folders of ROOT (default: the repository this
script is in); an include whose first path component is not a layer (system
headers, generated headers, include/scatterproof/...) is not a layer
include. Prints one line per violation, `FILE:LINE: ...` naming both layers,
and exits 1 when there is any; exits 0 otherwise.

    scripts/check-layers.py [--root DIR]
    scripts/check-layers.py --self-test   # the checker refuses a planted
                                          # upward and a sideways include

Both run as CTest tests (`layers`, `layers_self_test`).
"""

import os
import re
import sys
import tempfile

from checklib import arguments, clean_failures, finish, planted_failures, planted_tree, report  # scripts/checklib.py

# Folder -> level; a higher level may include a lower one.
LEVELS = {
    "reference": 0,
    "backends": 1,
    "harness": 2,
    "reports": 3,
    "bench": 3,
    "fuzz": 3,
    "cli": 4,
}
ORDER = "reference <- backends <- harness <- reports | bench | fuzz <- cli"
SOURCE_SUFFIXES = (".cc", ".h", ".cu")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')


def violation(layer, target):
    """Why a file in `layer` may not include a header of `target` (None: it may)."""
    if target == layer or LEVELS[target] < LEVELS[layer]:
        return None
    if LEVELS[target] == LEVELS[layer]:
        return f"{target} and {layer} are siblings; neither may include the other"
    return f"{target} is above {layer} (layers, lowest first: {ORDER})"


def check(root):
    """Every violation under `root`, as printable lines."""
    problems = []
    for layer in sorted(LEVELS):
        top = os.path.join(root, layer)
        for directory, subdirs, files in os.walk(top):
            subdirs.sort()
            for name in sorted(files):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8", errors="replace") as source:
                    for number, line in enumerate(source, 1):
                        match = INCLUDE.match(line)
                        if not match:
                            continue
                        included = match.group(1)
                        target = included.split("/", 1)[0]
                        if "/" not in included or target not in LEVELS:
                            continue
                        why = violation(layer, target)
                        if why:
                            shown = os.path.relpath(path, root)
                            problems.append(f"{shown}:{number}: {layer} includes {included}: {why}")
    return problems


def self_test():
    """The checker fails on a synthetic tree with planted bad includes, and
    passes the same tree without them."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="sp-layers-") as root:
        write, run = planted_tree(root, __file__)

        write("reference/tensor.h", "#pragma once\n#include <vector>\n")
        write("backends/cpu/kernel.cc", '#include "reference/tensor.h"\n#include "backends/backend.h"\n')
        write("harness/runner.cc", '#include "backends/backend.h"\n#include "sp_cpu_op_files.h"\n')
        write("cli/main.cc", '#include "fuzz/fuzz_cli.h"\n#include "reports/report_dir.h"\n')

        failures += clean_failures(run())

        write("harness/runner.h", '#pragma once\n\n#include "reports/report_writers.h"\n')
        write("fuzz/engine.cc", '#include "harness/runner.h"\n#include <bench/bench.h>\n')
        planted = run()
        expected = [
            "harness/runner.h:3: harness includes reports/report_writers.h: reports is above harness",
            "fuzz/engine.cc:2: fuzz includes bench/bench.h: bench and fuzz are siblings",
        ]
        failures += planted_failures(planted, expected, "planted bad includes", lambda line: re.match(r"^\S+:\d+: ", line))
    return finish("check-layers", failures,
                  "a planted upward include and a sideways include are refused, "
              "a clean tree passes")


def main():
    args = arguments(__doc__, "prove the checker refuses planted bad includes")
    if args.self_test:
        return self_test()
    if not os.path.isdir(os.path.join(args.root, "reference")):
        print(f"check-layers: {args.root} has no reference/ folder; not a scatterproof tree", file=sys.stderr)
        return 2
    return report("check-layers", check(args.root), f"include(s) against the layers ({ORDER})")


if __name__ == "__main__":
    sys.exit(main())
