"""Outputs larger than their operands are bounded like the operands: an
index_select whose long index repeats big rows, a take_along_dim whose
broadcast multiplies two modest shapes, an ONNX GatherND gathering big slices
many times. Each would make the reference and every backend allocate
gigabytes; the loader refuses it as a spec error naming the case. Run by
scripts/hostile-check."""
import json

CASES = [
    ("bomb/index_select", "torch.index_select", {"dim": 0},
     {"input": {"dtype": "float32", "shape": [1, 1024], "fill": 1.0},
      "index": {"dtype": "int64", "shape": [1 << 19], "fill": 0}}),
    ("bomb/take_along_dim", "torch.take_along_dim", {"dim": 0},
     {"input": {"dtype": "float32", "shape": [256, 1, 256, 1], "fill": 1.0},
      "indices": {"dtype": "int64", "shape": [1, 256, 1, 256], "fill": 0}}),
    ("bomb/gather_nd", "onnx.GatherND", {"opset": 13},
     {"data": {"dtype": "float32", "shape": [1, 4096], "fill": 1.0},
      "indices": {"dtype": "int64", "shape": [1 << 18, 1], "fill": 0}}),
]


def check_outputs_bigger_than_the_limit_are_spec_errors(ctx):
    cases = [{"id": i, "op": op, "args": args, "inputs": inputs, "expect": {"error": "index_out_of_bounds"}}
             for i, op, args, inputs in CASES]
    path = ctx.tmp / "bombs.json"
    path.write_text(json.dumps({"format": "scatterproof-spec/1", "source": {"document": "hostile"}, "cases": cases}))
    for command in (["validate", path], ["run", "--backend", "reference,cpu", "--report-dir", ctx.tmp / "out", path]):
        r = ctx.run_measured(command, timeout=120)
        assert r.returncode == 3, f"{command[0]}: {r!r}"
        for case_id, *_ in CASES:
            assert f"case {case_id}: field cases[" in r.stderr + r.stdout or case_id in r.stdout, \
                f"{command[0]}: {case_id} not reported: {r!r}"
        assert "output would have shape" in r.stderr + r.stdout, r
        if not ctx.sanitized:
            assert r.peak_mib < 512, r
