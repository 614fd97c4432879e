#!/usr/bin/env python3
"""Writes specs/edge/cpu-fast-paths.json: cases past the cpu backend's
parallel threshold (2^15 elements of work) shaped for each of its fast paths
(issue 36 item 2; docs/fuzzing.md, "Coverage of our kernels").

Each case stores few values: an index expanded along its rows (strides
[1, 0]), operands given by `fill` + `set` (specs/FORMAT.md). The expected
outputs are computed here, by a plain model of each op's documented rule
(integers and integer-valued floats, so no rounding is involved, except the
float64 mean, one correctly rounded division), independently of the
reference; `scatterproof run` checks each against the reference (the
document check) and the cpu backend against the reference.

    python3 scripts/gen-cpu-fast-path-specs.py > specs/edge/cpu-fast-paths.json
"""
import json
import math
import random

DOC = "issue 36 item 2: reaches backends/cpu "


def tensor(dtype, shape, **rest):
    return {"dtype": dtype, "shape": list(shape), **rest}


def filled(dtype, shape, fill, sets):
    """`fill` + `set` (sets: {(row, col) or (pos,): value}) and the dense values."""
    t = tensor(dtype, shape, fill=fill)
    if sets:
        t["set"] = [{"at": list(at), "value": v} for at, v in sorted(sets.items())]
    return t


def dense(shape, fill, sets):
    rows = [[fill] * shape[1] for _ in range(shape[0])] if len(shape) == 2 else [fill] * shape[0]
    for at, v in sets.items():
        if len(shape) == 2:
            rows[at[0]][at[1]] = v
        else:
            rows[at[0]] = v
    return rows


def expanded_index(values, cols):
    """An index [len(values), cols] whose rows repeat one value (strides [1, 0])."""
    return {"dtype": "int64", "shape": [len(values), cols], "storage": values, "strides": [1, 0]}


def values_of(dtype, rows):
    return {"shape": [len(rows), len(rows[0])], "values": [v for row in rows for v in row]}


def some_sets(rng, rows, cols, n, pick):
    return {(rng.randrange(rows), rng.randrange(cols)): pick() for _ in range(n)}


def case(cid, op, what, args, inputs, expect):
    return {"id": "cpu-fast-paths/" + cid, "op": op, "source": {"document": DOC + what, "example": what,
            "kind": "edge"}, "args": args, "inputs": inputs, "expect": expect}


def reduce_rows(S, L, self_rows, index, src_rows, combine, include_self=True):
    """Row r of the result: self's row (or `start`) combined with every src row k whose index is r,
    in index order (the documented order; these values make any order give the same result)."""
    out = []
    for r in range(S):
        acc = list(self_rows[r]) if include_self else None
        for k, v in enumerate(index):
            if v != r:
                continue
            acc = list(src_rows[k]) if acc is None else [combine(a, b) for a, b in zip(acc, src_rows[k])]
        out.append(acc if acc is not None else list(self_rows[r]))
    return out


# The shared index of the wide-row cases: 256 rows of 128, 2^15 elements of work (the
# parallel threshold: two threads), 8 targets.
K, L, S = 256, 128, 8


def paddle_accumulate_case(rng, cid, what, S, L, index):
    """paddle.scatter(x, index, updates, overwrite=False) of K = len(index) rows of L into an x of S rows
    of 7.0: each targeted row zeroed, then the sum of its updates (24 values of updates drawn from rng)."""
    K = len(index)
    src_sets = some_sets(rng, K, L, 24, lambda: float(rng.randrange(2, 60)))
    want = reduce_rows(S, L, dense((S, L), 7.0, {}), index, dense((K, L), 1.0, src_sets), lambda a, b: a + b,
                       include_self=False)
    return case(cid, "paddle.scatter", what, {"overwrite": False},
                {"x": filled("float32", (S, L), 7.0, {}), "index": {"dtype": "int64", "data": index},
                 "updates": filled("float32", (K, L), 1.0, src_sets)}, {"output": values_of("float32", want)})


def wide_row_cases(rng, cases, index):
    """Whole rows of 128 through the sorted row reduction (scatter_add_, scatter_ multiply,
    scatter_reduce_, index_add_)."""
    # scatter_add_ on whole rows: Scatter::run_row_reduce, row_reduce's shares and merges.
    src_sets = some_sets(rng, K, L, 24, lambda: rng.randrange(2, 1000))
    self_sets = some_sets(rng, S, L, 6, lambda: rng.randrange(-50, 50))
    want = reduce_rows(S, L, dense((S, L), 1, self_sets), index, dense((K, L), 1, src_sets), lambda a, b: a + b)
    cases.append(case("scatter-add-row-reduce", "torch.scatter_add_",
                      "scatter_kernel.cc run_row_reduce and row_reduce.cc (Sum, split rows merged)", {"dim": 0},
                      {"self": filled("int64", (S, L), 1, self_sets), "index": expanded_index(index, L),
                       "src": filled("int64", (K, L), 1, src_sets)}, {"output": values_of("int64", want)}))

    # scatter_reduce_ prod / amax (NaN first in a row, without self) / mean through row_reduce.
    src_sets = some_sets(rng, K, L, 20, lambda: rng.choice([2, 3, -1]))
    want = reduce_rows(S, L, dense((S, L), 1, {}), index, dense((K, L), 1, src_sets), lambda a, b: a * b)
    cases.append(case("scatter-reduce-prod-row-reduce", "torch.scatter_reduce_", "row_reduce.cc Reduce::Prod",
                      {"dim": 0, "reduce": "prod", "include_self": True},
                      {"self": filled("int64", (S, L), 1, {}), "index": expanded_index(index, L),
                       "src": filled("int64", (K, L), 1, src_sets)}, {"output": values_of("int64", want)}))

    src_sets = some_sets(rng, K, L, 20, lambda: float(rng.randrange(-500, 500)))
    want = reduce_rows(S, L, dense((S, L), 7.0, {}), index, dense((K, L), 9.0, src_sets), min)
    cases.append(case("scatter-reduce-amin-row-reduce", "torch.scatter_reduce_", "row_reduce.cc Reduce::Amin",
                      {"dim": 0, "reduce": "amin", "include_self": True},
                      {"self": filled("float32", (S, L), 7.0, {}), "index": expanded_index(index, L),
                       "src": filled("float32", (K, L), 9.0, src_sets)}, {"output": values_of("float32", want)}))
    src_sets = some_sets(rng, K, L, 20, lambda: rng.choice([2, 3, -1]))
    want = reduce_rows(S, L, dense((S, L), 5, {}), index, dense((K, L), 1, src_sets), lambda a, b: a * b)
    cases.append(case("scatter-multiply-row-reduce", "torch.scatter_",
                      "scatter_kernel.cc run_row_reduce for reduce='multiply' (Reduce::Prod)",
                      {"dim": 0, "reduce": "multiply"},
                      {"self": filled("int64", (S, L), 5, {}), "index": expanded_index(index, L),
                       "src": filled("int64", (K, L), 1, src_sets)}, {"output": values_of("int64", want)}))

    first_of_row = {r: index.index(r) for r in range(S)}
    src_sets = some_sets(rng, K, L, 20, lambda: rng.choice([-3.0, 4.0, 9.0, "-inf"]))
    for r in (1, 4):
        src_sets[(first_of_row[r], 3)] = "nan"  # a NaN accumulator meets later terms
    nan = float("nan")

    def num(v):
        return {"nan": nan, "-inf": -math.inf}.get(v, v) if isinstance(v, str) else v

    def amax(a, b):
        return a if a != a else b if b != b else max(a, b)

    src_dense = [[num(v) for v in row] for row in dense((K, L), 0.5, src_sets)]
    want = reduce_rows(S, L, dense((S, L), 100.0, {}), index, src_dense, amax, include_self=False)
    want = [["nan" if v != v else "-inf" if v == -math.inf else v for v in row] for row in want]
    cases.append(case("scatter-reduce-amax-row-reduce", "torch.scatter_reduce_",
                      "row_reduce.cc Reduce::Amax without self (a NaN accumulator)",
                      {"dim": 0, "reduce": "amax", "include_self": False},
                      {"self": filled("float32", (S, L), 100.0, {}), "index": expanded_index(index, L),
                       "src": filled("float32", (K, L), 0.5, src_sets)}, {"output": values_of("float32", want)}))

    src_sets = some_sets(rng, K, L, 20, lambda: float(rng.randrange(-9, 10)))
    src_dense = dense((K, L), 2.0, src_sets)
    want = []
    for r in range(S):
        terms = [src_dense[k] for k in range(K) if index[k] == r]
        want.append([(3.0 + sum(t[l] for t in terms)) / (len(terms) + 1) for l in range(L)])
    cases.append(case("scatter-reduce-mean-row-reduce", "torch.scatter_reduce_", "row_reduce.cc Reduce::Mean",
                      {"dim": 0, "reduce": "mean", "include_self": True},
                      {"self": filled("float64", (S, L), 3.0, {}), "index": expanded_index(index, L),
                       "src": filled("float64", (K, L), 2.0, src_sets)}, {"output": values_of("float64", want)}))

    # index_add_ with alpha 2: torch_index_add.cc add_rows_sorted, row_reduce.cc's alpha terms.
    src_sets = some_sets(rng, K, L, 24, lambda: rng.randrange(-100, 100))
    want = reduce_rows(S, L, dense((S, L), 0, {}), index, [[2 * v for v in row] for row in dense((K, L), 1, src_sets)],
                       lambda a, b: a + b)
    cases.append(case("index-add-alpha-row-reduce", "torch.index_add_",
                      "torch_index_add.cc add_rows_sorted, row_reduce.cc alpha", {"dim": 0, "alpha": 2},
                      {"self": filled("int64", (S, L), 0, {}), "index": {"dtype": "int64", "data": index},
                       "source": filled("int64", (K, L), 1, src_sets)}, {"output": values_of("int64", want)}))



def wide_split_cases(rng, cases, index):
    """Wide rows off the row reduction: sorted rows, an index varying along its rows, targets
    past the cache, overwrite, paddle's accumulate mode."""
    # src stored column-major: not whole rows, so run_sorted (in place for int64, accumulators for float16).
    for dtype, what in (("int64", "run_sorted, rows combined in place, rows split between threads merged"),
                        ("float16", "run_sorted, float16 rows in accumulators, strided src rows")):
        src_sets = some_sets(rng, K, L, 24, lambda: rng.randrange(2, 60))
        want = reduce_rows(S, L, dense((S, L), 1, {}), index, dense((K, L), 1, src_sets), lambda a, b: a + b)
        src = filled(dtype, (K, L), 1, src_sets)
        src["strides"] = [1, K]
        cases.append(case("scatter-add-sorted-" + dtype, "torch.scatter_add_", "scatter_kernel.cc " + what, {"dim": 0},
                          {"self": filled(dtype, (S, L), 1, {}), "index": expanded_index(index, L), "src": src},
                          {"output": values_of(dtype, want)}))

    # An index that varies along its rows (fill + set): split by position, rows cut in parts.
    idx_sets = some_sets(rng, K, L, 40, lambda: rng.randrange(S))
    idx_dense = dense((K, L), 0, idx_sets)
    src_sets = some_sets(rng, K, L, 24, lambda: rng.randrange(2, 1000))
    src_dense = dense((K, L), 1, src_sets)
    for op, what, args, combine, start in (
            ("torch.scatter_add_", "scatter_kernel.cc run_split_positions (rows cut between threads)", {"dim": 0},
             lambda a, b: a + b, 3),
            ("torch.scatter_reduce_", "torch_scatter_reduce.cc, split by inner positions",
             {"dim": 0, "reduce": "amax", "include_self": True}, max, 3)):
        want = dense((S, L), start, {})
        for k in range(K):
            for l in range(L):
                r = idx_dense[k][l]
                want[r][l] = combine(want[r][l], src_dense[k][l])
        cases.append(case(("scatter-add" if "add" in op else "scatter-reduce-amax") + "-index-varies-along-rows", op,
                          what, args, {"self": filled("int64", (S, L), start, {}),
                                       "index": filled("int64", (K, L), 0, idx_sets),
                                       "src": filled("int64", (K, L), 1, src_sets)},
                          {"output": values_of("int64", want)}))

    # 1-D scatter_add_ into 70 000 targets (past 256 KiB): each target prefetched ahead.
    NT = 70000
    tix = [rng.randrange(NT) for _ in range(64)]
    tsrc = [float(rng.randrange(1, 100)) for _ in range(64)]
    sets_out = {}
    for i, v in zip(tix, tsrc):
        sets_out[(i,)] = sets_out.get((i,), 0.0) + v
    cases.append(case("scatter-add-targets-past-cache", "torch.scatter_add_",
                      "scatter_kernel.cc visit, targets past the cache prefetched ahead", {"dim": 0},
                      {"self": filled("float32", (NT,), 0.0, {}), "index": {"dtype": "int64", "data": tix},
                       "src": {"dtype": "float32", "data": tsrc}}, {"output": filled("float32", (NT,), 0.0, sets_out)}))

    # scatter_ (overwrite) on wide rows: run_sorted's last-writer copy.
    src_sets = some_sets(rng, K, L, 24, lambda: rng.randrange(2, 1000))
    want = reduce_rows(S, L, dense((S, L), -1, {}), index, dense((K, L), 1, src_sets), lambda a, b: b)
    cases.append(case("scatter-overwrite-sorted", "torch.scatter_", "scatter_kernel.cc run_sorted (overwrite)",
                      {"dim": 0}, {"self": filled("int64", (S, L), -1, {}), "index": expanded_index(index, L),
                                   "src": filled("int64", (K, L), 1, src_sets)}, {"output": values_of("int64", want)}))

    # paddle.scatter overwrite=False: targeted rows zeroed first (run_sorted's base row zero).
    cases.append(paddle_accumulate_case(rng, "paddle-scatter-accumulate-sorted",
                                        "scatter_kernel.cc run_sorted, accumulate mode (targets zeroed)", S, L, index))



def scatter_add_1d_case(cid, what, dtype, N, S1, idx_sets, src_fill, src_sets):
    """torch.scatter_add_(0, index, src) of N positions into a zeroed self of S1: index 3 but at
    idx_sets, src `src_fill` but at src_sets, the sums taken in position order."""
    idx, srcv = dense((N,), 3, idx_sets), dense((N,), src_fill, src_sets)
    out = [0.0] * S1
    for k in range(N):
        out[idx[k]] += srcv[k]
    return case(cid, "torch.scatter_add_", what, {"dim": 0},
                {"self": filled(dtype, (S1,), 0.0, {}), "index": filled("int64", (N,), 3, idx_sets),
                 "src": filled(dtype, (N,), src_fill, src_sets)}, {"output": {"data": out}})


def private_1d_cases(rng, cases):
    """One-element rows into per-thread accumulators and their target ranges."""
    # 1-D scatter_add_ of 140 000 positions into 16: run_private, accumulate_1d, three chunks.
    N, S1 = 140000, 16
    idx_sets = {(rng.randrange(N),): rng.randrange(S1) for _ in range(40)}
    src_sets = {(rng.randrange(N),): float(rng.randrange(2, 100)) for _ in range(40)}
    idx, srcv = dense((N,), 3, idx_sets), dense((N,), 1.0, src_sets)
    cases.append(scatter_add_1d_case("scatter-add-private-1d",
                                     "scatter_kernel.cc run_private, accumulate_1d (per-thread accumulators)",
                                     "float32", N, S1, idx_sets, 1.0, src_sets))
    want = [-1.0] * S1
    for k in range(N):
        want[idx[k]] = srcv[k]
    cases.append(case("scatter-overwrite-target-ranges-1d", "torch.scatter_",
                      "scatter_kernel.cc run_target_ranges, one element per position (overwrite)", {"dim": 0},
                      {"self": filled("float32", (S1,), -1.0, {}), "index": filled("int64", (N,), 3, idx_sets),
                       "src": filled("float32", (N,), 1.0, src_sets)}, {"output": {"data": want}}))
    want = [7.0] * S1
    for r in set(idx):
        want[r] = sum(srcv[k] for k in range(N) if idx[k] == r)
    cases.append(case("paddle-scatter-accumulate-private-1d", "paddle.scatter",
                      "scatter_kernel.cc run_private, accumulate mode, one element per row (targets marked)",
                      {"overwrite": False},
                      {"x": filled("float32", (S1,), 7.0, {}), "index": filled("int64", (N,), 3, idx_sets),
                       "updates": filled("float32", (N,), 1.0, src_sets)}, {"output": {"data": want}}))
    # float16: the merge's load converts (a float accumulator), small sums stay exact.
    src16 = {(rng.randrange(N),): float(rng.randrange(1, 20)) for _ in range(40)}
    cases.append(scatter_add_1d_case("scatter-add-private-1d-float16",
                                     "scatter_kernel.cc run_private's 1-D merge into a float16 self", "float16", N,
                                     S1, idx_sets, 0.0, src16))
    bad = dict(idx_sets)
    bad[(N - 5,)] = S1
    cases.append(case("scatter-add-private-1d-bad-index", "torch.scatter_add_",
                      "scatter_kernel.cc accumulate_1d's bounds check (one value past the end)", {"dim": 0},
                      {"self": filled("float32", (S1,), 0.0, {}), "index": filled("int64", (N,), 3, bad),
                       "src": filled("float32", (N,), 1.0, src_sets)}, {"error": "index_out_of_bounds"}))



def narrow_row_cases(rng, cases):
    """Rows of 8: accumulators with rows, marked targets, target ranges."""
    # Rows of 8 (narrow): run_private with rows, with marks (paddle accumulate), target ranges.
    K8, L8, S8 = 4096, 8, 16
    index8 = [rng.randrange(S8) for _ in range(K8)]
    src_sets = some_sets(rng, K8, L8, 24, lambda: rng.randrange(2, 1000))
    want = reduce_rows(S8, L8, dense((S8, L8), 5, {}), index8, dense((K8, L8), 1, src_sets), lambda a, b: a + b)
    cases.append(case("scatter-add-private-rows", "torch.scatter_add_", "scatter_kernel.cc run_private with rows of 8",
                      {"dim": 0}, {"self": filled("int64", (S8, L8), 5, {}), "index": expanded_index(index8, L8),
                                   "src": filled("int64", (K8, L8), 1, src_sets)}, {"output": values_of("int64", want)}))
    bad8 = list(index8)
    bad8[K8 - 3] = -1
    cases.append(case("scatter-add-private-rows-bad-index", "torch.scatter_add_",
                      "scatter_kernel.cc run_private's bounds check with rows (a negative value)", {"dim": 0},
                      {"self": filled("int64", (S8, L8), 5, {}), "index": expanded_index(bad8, L8),
                       "src": filled("int64", (K8, L8), 1, src_sets)}, {"error": "index_out_of_bounds"}))
    index8b = [rng.randrange(S8 // 2) * 2 for _ in range(K8)]  # odd rows untouched
    cases.append(paddle_accumulate_case(rng, "paddle-scatter-accumulate-private",
                                        "scatter_kernel.cc run_private, accumulate mode (targeted rows marked)",
                                        S8, L8, index8b))
    S64 = 64
    index64 = [rng.randrange(S64) for _ in range(K8)]
    src_sets = some_sets(rng, K8, L8, 24, lambda: rng.randrange(2, 1000))
    want = reduce_rows(S64, L8, dense((S64, L8), -1, {}), index64, dense((K8, L8), 1, src_sets), lambda a, b: b)
    cases.append(case("scatter-overwrite-target-ranges", "torch.scatter_",
                      "scatter_kernel.cc run_target_ranges with rows (overwrite)", {"dim": 0},
                      {"self": filled("int64", (S64, L8), -1, {}), "index": expanded_index(index64, L8),
                       "src": filled("int64", (K8, L8), 1, src_sets)}, {"output": values_of("int64", want)}))
    # More targets than the private accumulators take (2 * S > 4 * K): target ranges, zeroed first.
    SB = 8200
    rows = sorted(rng.sample(range(SB), 48))
    index_b = [rng.choice(rows) for _ in range(K8)]
    src_sets = some_sets(rng, K8, L8, 24, lambda: float(rng.randrange(2, 60)))
    src_dense = dense((K8, L8), 1.0, src_sets)
    sets_out = {}
    for r in set(index_b):
        acc = [0.0] * L8
        for k in range(K8):
            if index_b[k] == r:
                acc = [a + b for a, b in zip(acc, src_dense[k])]
        for l in range(L8):
            sets_out[(r, l)] = acc[l]
    cases.append(case("paddle-scatter-accumulate-target-ranges", "paddle.scatter",
                      "scatter_kernel.cc run_target_ranges, accumulate mode (targets zeroed per range)",
                      {"overwrite": False},
                      {"x": filled("float32", (SB, L8), 7.0, {}), "index": {"dtype": "int64", "data": index_b},
                       "updates": filled("float32", (K8, L8), 1.0, src_sets)},
                      {"output": filled("float32", (SB, L8), 7.0, sets_out)}))



def pool_and_gather_cases(rng, cases):
    """Outputs from the output pool; whole-row gathers."""
    # Outputs of 1 MiB and more come from the backend's output pool: three sizes, so a released
    # storage is reused (the layout variants of one case) and, the pool being full, one evicted.
    # (paddle.index_add: an out-of-place op the cpu backend runs and cuda-host does not, so the
    # three 1 MiB cases cost the cuda-host suite nothing.)
    for n in (131072, 131073, 131074):
        pos = [rng.randrange(n) for _ in range(5)]
        vals = [float(rng.randrange(1, 100)) for _ in range(5)]
        sets_out = {}
        for i, v in zip(pos, vals):
            sets_out[(i,)] = sets_out.get((i,), 0.5) + v
        cases.append(case(f"index-add-pooled-output-{n}", "paddle.index_add",
                          "output_pool.cc, an output of 1 MiB or more (kept, reused, evicted)", {"axis": 0},
                          {"x": filled("float64", (n,), 0.5, {}), "index": {"dtype": "int64", "data": pos},
                           "value": {"dtype": "float64", "data": vals}},
                          {"output": filled("float64", (n,), 0.5, sets_out)}))

    # Whole-row gathers: the source row prefetched ahead; rows of a column-major input copied by element.
    inp = [[r * 64 + l for l in range(64)] for r in range(64)]
    gidx = [rng.randrange(64) for _ in range(20)]
    cases.append(case("gather-whole-rows-prefetch", "torch.gather", "gather_kernel.cc gather_rows (prefetch ahead)",
                      {"dim": 0}, {"input": {"dtype": "int32", **values_of("int32", inp)},
                                   "index": expanded_index(gidx, 64)},
                      {"output": values_of("int32", [inp[r] for r in gidx])}))
    colmajor = {"dtype": "int32", "shape": [4, 3], "storage": [0, 10, 20, 30, 1, 11, 21, 31, 2, 12, 22, 32],
                "strides": [1, 4]}
    cases.append(case("gather-rows-strided-input", "torch.gather",
                      "gather_kernel.cc, an expanded index over a column-major input", {"dim": 0},
                      {"input": colmajor, "index": expanded_index([3, 0], 3)},
                      {"output": {"data": [[30, 31, 32], [0, 1, 2]]}}))
    inp3 = [[[100 * s + 10 * j + l for l in range(8)] for j in range(4)] for s in range(3)]
    cases.append(case("gather-rows-two-inner-dims", "torch.gather",
                      "gather_kernel.cc, an index expanded along two inner dims that do not coalesce", {"dim": 0},
                      {"input": {"dtype": "int32", "data": inp3},
                       "index": {"dtype": "int64", "shape": [2, 3, 5], "storage": [2, 0], "strides": [1, 0, 0]}},
                      {"output": {"data": [[row[:5] for row in inp3[s][:3]] for s in (2, 0)]}}))


def main():
    rng = random.Random(36)
    cases = []
    # Uneven rows, so the threads' shares of the sorted positions cut rows.
    index = [rng.randrange(S) for k in range(K)]
    assert set(index) == set(range(S))

    wide_row_cases(rng, cases, index)
    wide_split_cases(rng, cases, index)
    private_1d_cases(rng, cases)
    narrow_row_cases(rng, cases)
    pool_and_gather_cases(rng, cases)
    return {"format": "scatterproof-spec/1",
            "description": "The cpu backend's fast paths, each reached by a case past its parallel threshold "
                           "(2^15 elements of work, with two or more backend threads) with few stored values: "
                           "an index expanded along its rows, `fill` + `set` operands (issue 36 item 2; "
                           "written by scripts/gen-cpu-fast-path-specs.py)",
            "source": {"kind": "edge"}, "cases": cases}


def dump(spec):
    """One case per block, each tensor on one line."""
    head = json.dumps({k: v for k, v in spec.items() if k != "cases"}, indent=1)[:-2]
    body = []
    for c in spec["cases"]:
        lines = ["  {"]
        items = list(c.items())
        for i, (k, v) in enumerate(items):
            end = "," if i + 1 < len(items) else ""
            if k in ("inputs", "expect"):
                inner = [f'    {json.dumps(n)}: {json.dumps(t, separators=(",", ":"))}' for n, t in v.items()]
                lines.append(f'   {json.dumps(k)}: {{\n' + ",\n".join(inner) + "\n   }" + end)
            else:
                lines.append(f"   {json.dumps(k)}: {json.dumps(v)}{end}")
        body.append("\n".join(lines) + "\n  }")
    return head + ',\n "cases": [\n' + ",\n".join(body) + "\n ]\n}\n"


if __name__ == "__main__":
    print(dump(main()), end="")
