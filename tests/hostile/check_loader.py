"""End-to-end hostile checks of the spec loader through the CLI (issue 15,
items 1, 3 and 7): views whose last element sits near 2^63 in validate, run,
repro and explain; spec directories holding symlink loops, dangling
symlinks, FIFOs and unreadable files; explain given a FIFO or a directory;
the edges of JSON numbers (-0, float literals for integral dtypes, an
8-million-digit number in an error). Run by scripts/hostile-check; the unit
tests of the same are tests/hostile_loader_test.cc (HostileLoader...)."""
import json
import os
import shutil
import subprocess

INT64_MAX = 2**63 - 1
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def gather_case(cid, input_tensor, expect=None):
    return {"id": cid, "op": "torch.gather", "args": {"dim": 0},
            "inputs": {"input": input_tensor, "index": {"dtype": "int64", "data": [0]}},
            "expect": expect or {"unspecified": "loading only"}}


def spec(cases):
    return json.dumps({"format": "scatterproof-spec/1", "source": {"document": "hostile-check"}, "cases": cases})


def good_spec():
    return spec([gather_case("ok/one", {"dtype": "float32", "data": [1.0, 2.0]}, {"output": {"data": [1.0]}})])


def assert_spec_error(result, what, *words):
    """Exit 3, no crash or internal error, and the output (stdout and
    stderr: `run` reports spec errors as records) saying every word."""
    out = result.stdout + result.stderr
    assert result.returncode == 3, f"{what}: exit {result.returncode} (want 3)\n{out[-2000:]}"
    assert "internal error" not in out, f"{what}: {out[-2000:]}"
    for w in words:
        assert w in out, f"{what}: output lacks {w!r}:\n{out[-2000:]}"


def far_views():
    """(label, tensor) pairs whose last element lies at or near 2^63 - 1."""
    for dtype in DTYPES:
        for form in ("data", "values", "fill", "storage"):
            base = {"dtype": dtype, "shape": [1]}
            base[form] = 1 if form == "fill" else [1]
            if form == "storage":
                base["strides"] = [1]
            yield f"{dtype}/{form}/offset", "offset", dict(base, offset=INT64_MAX)
            two = dict(base, shape=[2], strides=[INT64_MAX - 1], offset=1)
            if form != "fill":
                two[form] = [1, 1]
            yield f"{dtype}/{form}/strides", "strides", two


def check_far_views_are_spec_errors_in_validate(ctx):
    views = list(far_views())
    path = ctx.tmp / "far.json"
    path.write_text(spec([gather_case("far/" + label, tensor) for label, _, tensor in views]))
    r = ctx.run(["validate", path])
    assert_spec_error(r, "validate", f"0 valid case(s) in 0 file(s), {len(views)} spec error(s)")
    for i, (label, field, _) in enumerate(views):
        assert f"far.json: case far/{label}: field cases[{i}].inputs.input.{field}: " in r.stderr, \
            f"{label}: no error naming file, case and field {field}:\n{r.stderr[-3000:]}"


def check_far_views_are_spec_errors_in_run_repro_and_explain(ctx):
    # One file of every far view: run and validate report each; repro and
    # explain (which read one file) stop at the first, with exit 3.
    cases = [gather_case("far/" + label, tensor) for label, _, tensor in far_views()]
    cases.append(gather_case("far/view-of", {"dtype": "int8", "data": [1]}))
    cases[-1]["inputs"]["out"] = {"view_of": "input", "shape": [1], "offset": INT64_MAX}
    path = ctx.tmp / "far.json"
    path.write_text(spec(cases))
    r = ctx.run(["run", "--backend", "reference", path, "--report-dir", ctx.tmp / "reports"], timeout=120)
    assert_spec_error(r, "run", *[f"far.json: case {c['id']}: field cases[{i}].inputs." for i, c in enumerate(cases)])
    for command in (["repro", path], ["explain", path, "--case", "far/int8/data/offset"], ["explain", path]):
        r = ctx.run(command)
        assert_spec_error(r, " ".join(map(str, command[:1])), "far.json")
    # A file of one far case each: repro and explain name the case and field.
    for label, field, tensor in list(far_views())[:8]:
        one = ctx.tmp / "one.json"
        one.write_text(spec([gather_case("far/" + label, tensor)]))
        for command in (["repro", one], ["explain", one]):
            r = ctx.run(command)
            assert_spec_error(r, f"{command[0]} {label}", "one.json", "far/" + label, "cases[0].inputs.input." + field)


def check_far_view_layouts(ctx):
    # A valid view at a large offset: every layout re-lays it out from its
    # shape; nothing crashes.
    tensor = {"dtype": "int8", "shape": [1], "data": [1], "offset": 4096}
    path = ctx.tmp / "offset.json"
    path.write_text(spec([gather_case("layout/offset", tensor, {"output": {"data": [1]}})]))
    r = ctx.run(["run", path, "--layouts", "all", "--backend", "reference,cpu", "--report-dir", ctx.tmp / "rep"])
    assert r.returncode == 0, f"exit {r.returncode}: {r.stdout[-1000:]}{r.stderr[-1000:]}"


def make_hostile_dir(ctx):
    d = ctx.tmp / "specs"
    (d / "sub").mkdir(parents=True)
    (d / "ok.json").write_text(good_spec())
    os.symlink("..", d / "sub" / "loop")        # d/sub/loop -> d
    os.symlink("b", d / "a")                    # a -> b -> a
    os.symlink("a", d / "b")
    os.symlink("self.json", d / "self.json")    # a loop named *.json
    os.symlink("nowhere.json", d / "dangling.json")
    os.mkfifo(d / "fifo.json")
    return d


def check_spec_dir_with_loops_dangling_and_fifo(ctx):
    d = make_hostile_dir(ctx)
    r = ctx.run(["validate", d], timeout=30)
    assert_spec_error(r, "validate", "1 valid case(s) in 1 file(s), 6 spec error(s)")
    for bad, words in (("sub/loop", "symlink loop"), ("a", "symlink loop"), ("b", "symlink loop"),
                       ("self.json", "symlink loop"), ("dangling.json", "dangling symlink"), ("fifo.json", "FIFO")):
        line = [ln for ln in r.stderr.splitlines() if ln.startswith(f"spec error: {d / bad}:")]
        assert line, f"no spec error for {bad}:\n{r.stderr}"
        assert words in line[0], f"{bad}: {line[0]}"
    # run: the valid file beside them runs.
    r = ctx.run(["run", "--backend", "reference", d, "--report-dir", ctx.tmp / "reports", "-v"], timeout=60)
    assert r.returncode == 3 and "internal error" not in r.stderr, f"run: exit {r.returncode}\n{r.stderr[-2000:]}"
    assert "ok/one" in r.stdout, f"the valid case did not run:\n{r.stdout[-2000:]}"


def check_unreadable_spec_file_and_directory(ctx):
    d = ctx.tmp / "specs"
    (d / "closed").mkdir(parents=True)
    (d / "ok.json").write_text(good_spec())
    (d / "secret.json").write_text(good_spec().replace("ok/one", "ok/secret"))
    (d / "closed" / "inner.json").write_text(good_spec().replace("ok/one", "ok/inner"))
    os.chmod(d / "secret.json", 0)
    os.chmod(d / "closed", 0)
    argv = [ctx.scatterproof, "validate", str(d)]
    if os.geteuid() == 0:  # root reads everything: run as nobody where the tools allow
        setpriv = shutil.which("setpriv")
        if not setpriv:
            os.chmod(d / "closed", 0o755)
            raise ctx.Skip("running as root and setpriv is missing: cannot take read permission away")
        os.chmod(ctx.tmp, 0o755)
        os.chmod(d, 0o755)
        argv = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + argv
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=30, cwd=ctx.tmp)
        if r.returncode in (126, 127) or r.stderr.startswith("setpriv:"):
            raise ctx.Skip(f"running as root and user nobody cannot run {ctx.scatterproof}: {r.stderr[:200]}")
        assert_spec_error(r, "validate", "1 valid case(s) in 1 file(s), 2 spec error(s)", f"{d / 'secret.json'}:",
                          f"{d / 'closed'}:")
    finally:
        os.chmod(d / "closed", 0o755)


def check_explain_refuses_a_fifo_or_directory_as_its_target(ctx):
    fifo = ctx.tmp / "pipe.json"
    os.mkfifo(fifo)
    folder = ctx.tmp / "folder"
    folder.mkdir()
    os.symlink("gone.json", ctx.tmp / "gone.json.link")
    for target, words in ((fifo, "FIFO"), (folder, "directory"), (ctx.tmp / "gone.json.link", "dangling")):
        r = ctx.run(["explain", target], timeout=20)  # a FIFO opened for reading would block: timeout
        assert r.returncode == 2, f"explain {target.name}: exit {r.returncode} (want 2)\n{r.stderr}"
        assert str(target) in r.stderr and words in r.stderr, f"explain {target.name}: {r.stderr}"


def check_minus_zero_is_negative_zero(ctx):
    # torch.gather copies input's bits: with -0 read as +0 the output would be
    # +0 and fail the expected bits 0x80000000.
    text = ('{"format": "scatterproof-spec/1", "source": {"document": "d"}, "cases": [{"id": "z/neg",'
            ' "op": "torch.gather", "args": {"dim": 0},'
            ' "inputs": {"input": {"dtype": "float32", "data": [-0, 1]}, "index": {"dtype": "int64", "data": [-0]}},'
            ' "expect": {"output": {"data": ["0x80000000"]}}}]}')
    path = ctx.tmp / "z.json"
    path.write_text(text)
    r = ctx.run(["run", "--backend", "reference", path, "--report-dir", ctx.tmp / "rep", "-v"])
    assert r.returncode == 0, f"exit {r.returncode}:\n{r.stdout[-2000:]}{r.stderr[-2000:]}"
    r = ctx.run(["explain", path])
    assert "reference out: [-0.0]" in r.stdout, r.stdout[-2000:]


def check_float_literals_for_integral_dtypes_are_errors(ctx):
    for dtype in ("int64", "int8", "uint8", "bool"):
        for literal in ("1e-400", "2.0", "2.5"):
            text = ('{"format": "scatterproof-spec/1", "source": {"document": "d"}, "cases": [{"id": "lit/x",'
                    ' "op": "torch.gather", "args": {"dim": 0},'
                    f' "inputs": {{"input": {{"dtype": "{dtype}", "data": [1, {literal}]}},'
                    ' "index": {"dtype": "int64", "data": [0]}}, "expect": {"unspecified": "x"}}]}')
            path = ctx.tmp / "lit.json"
            path.write_text(text)
            r = ctx.run(["validate", path])
            assert_spec_error(r, f"{dtype} {literal}", "case lit/x", "field cases[0].inputs.input.data[1]",
                              "integer literal")


def check_errors_quote_numbers_and_strings_short(ctx):
    digits = "7" * 8_000_000
    for label, text in (
            ("integer", spec([gather_case("n/x", {"dtype": "int64", "data": ["@@"]})]).replace('"@@"', digits)),
            ("bad token", spec([gather_case("n/x", {"dtype": "int64", "data": ["@@"]})]).replace('"@@"',
                                                                                                  "0." + digits + "x")),
            ("duplicate key", '{"format": "scatterproof-spec/1", "' + "k" * 8000 + '": 1, "' + "k" * 8000 + '": 2}')):
        path = ctx.tmp / "long.json"
        path.write_text(text)
        r = ctx.run(["validate", path])
        assert_spec_error(r, label, "chars)")
        assert len(r.stderr) < 1000, f"{label}: {len(r.stderr)} bytes of stderr: {r.stderr[:300]}..."
