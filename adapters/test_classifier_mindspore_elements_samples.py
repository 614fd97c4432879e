"""The MindSpore element-wise index ops' messages (mindspore_adapter.py's rows for ops.gather_elements,
ops.gather, mint.scatter and mint.scatter_add), as MindSpore 2.10.0 printed them in
`scatterproof run --backend mindspore specs/mindspore/{gather_elements,gather,mint_scatter,mint_scatter_add}.json`
(results.jsonl's "outcome"); test_classifier_samples.py adds them to the mindspore adapter's samples, in its
format (versions measured, exception class, text, category, case)."""

MINDSPORE = "2.10.0"
_STACK = "\n\n----------------------------------------------------\n- C++ Call Stack: (For framework developers)\n" \
         "----------------------------------------------------\n"
_UNEXPECTED = "\n(MindSpore's log; the exception: ----------------------------------------------------\n" \
              "- Framework Unexpected Exception Raised:\n----------------------------------------------------\n" \
              "This exception is caused by framework's unexpected error."

MINDSPORE_ELEMENT_TEXTS = [
    ((MINDSPORE,), ValueError,
     "For primitive[GatherD], the x_rank must be equal to 1, but got 2." + _STACK +
     "mindspore/ops/infer/ops_func_impl//gather_d.cc:73 CheckValidation", "rank_mismatch",
     "mindspore/gather_elements/rank-mismatch"),
    ((MINDSPORE,), ValueError,
     "For primitive[GatherD], the dim value must be in [-2,2], but got 2." + _STACK +
     "mindspore/ops/infer/ops_func_impl//gather_d.cc:89 CheckValidation", "dim_out_of_range",
     "mindspore/gather_elements/dim-too-large"),
    ((MINDSPORE,), RuntimeError,
     "For 'TensorScatterElements', reduce_type: 2 not support now.\n(MindSpore's log; the exception: Launch kernel "
     "failed, name:Default/TensorScatterElements-op0" + _STACK[1:] + "mindspore/ccsrc", "invalid_reduce",
     "fuzz repro-mindspore-087fc0caee0c (reduction='multiply', MS-TSE8)"),
]
