#!/usr/bin/env python3
"""report.html in a real headless browser (Chromium from Debian's packages,
installed by scripts/setup.sh).

A real run with a failing output (the reference and a mutant that skips an
index_copy_ write) writes report.html; Chromium loads it, runs its script,
and the rendered DOM must hold the op x backend matrix (the mutant's cell
coloured as a fail) and the failure's picture (an <svg class="picture"> with
a red cell titled "actual ...; allowed ..."). A screenshot is kept as the CI
artifact (--screenshot, by default BUILD/html-report-screenshot.png) and must
be a non-trivial PNG. `scatterproof report --html OUT DIR DIR` over two runs
must render one page with both runs' columns.

Chromium missing is a failure, not a skip: setup installs it.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

MUTANT = "mutant:index-copy-skips-first"


def fail(msg):
    print(f"html_report_check: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def chromium_binary():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    fail("no chromium on PATH: install it with scripts/setup.sh --packages-only (Debian package chromium)")


def chromium(binary, profile, *args):
    cmd = [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           f"--user-data-dir={profile}", *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr[-2000:]}")
    return p.stdout


def run(scatterproof, specs, backends, out):
    cmd = [scatterproof, "run", "--backend", backends, "--report-dir", out, specs]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode not in (0, 1):  # 1: unexpected results (the mutant's fail)
        fail(f"{' '.join(cmd)} exited {p.returncode}: {p.stdout[-1000:]} {p.stderr[-2000:]}")
    return os.path.join(out, "report.html")


def check_self_contained(html, path):
    if re.search(r"""\b(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I):
        fail(f"{path} loads something from the network")
    if re.search(r"<(link|img|iframe)\b", html, re.I) or re.search(r"<script\b[^>]*\bsrc\s*=", html, re.I):
        fail(f"{path} refers to another file")
    if 'id="report-data"' not in html:
        fail(f"{path} has no embedded data")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scatterproof", required=True)
    ap.add_argument("--specs", required=True, help="the source tree's specs/")
    ap.add_argument("--screenshot", required=True, help="where the screenshot (the CI artifact) goes")
    args = ap.parse_args()
    binary = chromium_binary()
    spec = os.path.join(args.specs, "torch", "index_copy-docs.json")
    with tempfile.TemporaryDirectory(prefix="sp-html-") as tmp:
        profile = os.path.join(tmp, "profile")
        page = run(args.scatterproof, spec, f"reference,{MUTANT}", os.path.join(tmp, "run"))
        if not os.path.isfile(page):
            fail(f"the run wrote no {page}")
        html = open(page, encoding="utf-8").read()
        check_self_contained(html, page)

        dom = chromium(binary, profile, "--dump-dom", "file://" + page)
        if 'data-rendered="yes"' not in dom:
            fail("the page's script did not finish (body[data-rendered] missing from the rendered DOM)")
        matrix = re.search(r'<table id="matrix">(.*?)</table>', dom, re.S)
        if not matrix:
            fail("no matrix table in the rendered DOM")
        row = re.search(r'<tr data-op="torch.index_copy_">(.*?)</tr>', matrix.group(1), re.S)
        if not row:
            fail("the matrix has no row for torch.index_copy_")
        if not re.search(rf'<td class="cell v-fail"[^>]*data-backend="{re.escape(MUTANT)}"', row.group(1)):
            fail(f"the matrix cell of torch.index_copy_ x {MUTANT} is not coloured as a fail: {row.group(1)[:2000]}")
        if not re.search(r'<td class="cell v-pass"[^>]*data-backend="reference"', row.group(1)):
            fail("the matrix cell of torch.index_copy_ x reference is not coloured as a pass")
        failure = re.search(r'<div class="failure"[^>]*data-op="torch.index_copy_".*?(?=<div class="failure"|<h2>)', dom,
                            re.S)
        if not failure:
            fail("no failure entry for torch.index_copy_ in the rendered DOM")
        if "specs/torch/index_copy-docs.json" not in failure.group(0) or "PyTorch" not in failure.group(0):
            fail("the failure entry does not show its case's provenance (file, source document)")
        explanation = re.search(r'<pre class="explanation">(.*?)</pre>', failure.group(0), re.S)
        if not explanation or "checks:" not in explanation.group(1) or "index_copy" not in explanation.group(1):
            fail("the failure does not show the reference's explanation (explain's checks and writes)")
        pictures = re.findall(r'<svg class="picture".*?</svg>', failure.group(0), re.S)
        if not pictures:
            fail("the failure has no picture (<svg class=\"picture\">) in the rendered DOM")
        bad = re.findall(r'<rect [^>]*class="bad"[^>]*><title>([^<]*)</title>', pictures[0])
        ok = re.findall(r'<rect [^>]*class="ok"', pictures[0])
        if not bad or not ok:
            fail(f"the picture does not mark the elements outside the allowed set ({len(bad)} bad, {len(ok)} ok)")
        if not re.search(r"actual \S+; allowed \S+", bad[0]):
            fail(f"a bad cell's title does not give actual vs allowed: {bad[0]!r}")

        os.makedirs(os.path.dirname(os.path.abspath(args.screenshot)), exist_ok=True)
        if os.path.exists(args.screenshot):
            os.remove(args.screenshot)
        chromium(binary, profile, f"--screenshot={os.path.abspath(args.screenshot)}", "--window-size=1400,2000",
                 "file://" + page)
        if not os.path.isfile(args.screenshot):
            fail(f"no screenshot at {args.screenshot}")
        with open(args.screenshot, "rb") as f:
            png = f.read()
        if not png.startswith(b"\x89PNG") or len(png) <= 10 * 1024:
            fail(f"the screenshot {args.screenshot} is not a non-trivial PNG ({len(png)} bytes)")

        # Several runs on one page: each run's backends as its own columns.
        other = os.path.join(tmp, "run2")
        run(args.scatterproof, spec, "reference,cpu", other)
        combined = os.path.join(tmp, "compare.html")
        p = subprocess.run([args.scatterproof, "report", "--html", combined, os.path.join(tmp, "run"), other],
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            fail(f"report --html exited {p.returncode}: {p.stderr}")
        check_self_contained(open(combined, encoding="utf-8").read(), combined)
        dom = chromium(binary, profile, "--dump-dom", "file://" + combined)
        heads = re.findall(r'<th data-col="\d+" data-backend="([^"]*)">([^<]*)', dom)
        labels = [label for _, label in heads]
        if not any(l.startswith(os.path.join(tmp, "run") + ": ") and MUTANT in l for l in labels) or \
                not any(l.startswith(other + ": cpu") for l in labels):
            fail(f"the comparison page does not have both runs' columns: {labels}")
    print(f"html_report_check: ok (screenshot {args.screenshot}, {len(png)} bytes)")


if __name__ == "__main__":
    main()
