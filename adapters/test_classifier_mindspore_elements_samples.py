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
    ((MINDSPORE,), RuntimeError,
     "For 'Gather', the 'input_indices' should be in the range [0, 7), but got 7, error_code[58]" + _STACK +
     "mindspore/ops/kernel/cpu/native/gather_cpu_kernel.cc:119 operator()", "index_out_of_bounds",
     "mindspore/gather/index-too-large"),
    ((MINDSPORE,), TypeError,
     "----------------------------------------------------\n- Kernel select failed:\n"
     "----------------------------------------------------\nSelect CPU operator[Gather] fail! Unsupported data type!\n"
     "The supported data types are input[UInt8 Int32 Int64 Int64], output[UInt8]; input[UInt16 Int32 Int64 Int64], "
     "output[UInt16];", "index_dtype", "mindspore/gather/indices-float32"),
    ((MINDSPORE,), ValueError,
     "For primitive[Gather], the axis must be in [-2,2], but got 2." + _STACK +
     "mindspore/ops/infer/ops_func_impl//gather.cc:142 InferShape", "dim_out_of_range", "mindspore/gather/axis-too-large"),
    ((MINDSPORE,), ValueError,
     "For primitive[Gather], the batch_dims must be in [-2,2), but got 2." + _STACK +
     "mindspore/ops/infer/ops_func_impl//gather.cc:113 InferShape", "invalid_argument",
     "mindspore/gather/batch-dims-above-rank"),
    ((MINDSPORE,), ValueError,
     "For primitive[Gather], the axis must be greater than or equal to 1, but got 0." + _STACK +
     "mindspore/ops/infer/ops_func_impl//gather.cc:29 CalcuateGatherWithBatchDims", "invalid_argument",
     "mindspore/gather/axis-below-batch-dims"),
    ((MINDSPORE,), RuntimeError,
     "For 'Gather', params.shape[0] should be equal to indices.shape[0] but got param.shape: [const vector]{3, 4}, "
     "indices.shape: [const vector]{2}" + _STACK +
     "mindspore/ops/infer/ops_func_impl//gather.cc:43 CalcuateGatherWithBatchDims", "shape_mismatch",
     "mindspore/gather/batch-dims-differ"),
    ((MINDSPORE,), ValueError,
     "For primitive[GatherD], the x_rank must be equal to 1, but got 2." + _STACK +
     "mindspore/ops/infer/ops_func_impl//gather_d.cc:73 CheckValidation", "rank_mismatch",
     "mindspore/gather_elements/rank-mismatch"),
    ((MINDSPORE,), ValueError,
     "For primitive[GatherD], the dim value must be in [-2,2], but got 2." + _STACK +
     "mindspore/ops/infer/ops_func_impl//gather_d.cc:89 CheckValidation", "dim_out_of_range",
     "mindspore/gather_elements/dim-too-large"),
    # mindspore.ops.gather_elements.backward (the 60 s campaign of 2026-12-07, regression/fuzz-mindspore-594a6ace2ccb)
    ((MINDSPORE,), ValueError,
     "For 'GatherDGradV2', the dimension of grad and output must be the equal to the dimension of index: 0, but got "
     "the dimension of grad: 0, the dimension of input/output: 1" + _STACK +
     "mindspore/ops/infer/ops_func_impl//gather_d_grad_v2.cc:43 CheckValidation", "rank_mismatch",
     "regression/fuzz-mindspore-594a6ace2ccb"),
    ((MINDSPORE,), RuntimeError,
     "For 'Scatter', the 'dim' should be less than input dims and greater than or equal 0, but got 2, while input "
     "dims is: 2" + _UNEXPECTED, "dim_out_of_range", "mindspore/mint_scatter/dim-out-of-range"),
    ((MINDSPORE,), RuntimeError,
     "For 'Scatter', the shape of 'index' and the shape of 'src' should be same, but got index shape: [const "
     "vector]{1, 1}; src shape: [const vector]{1}." + _UNEXPECTED, "shape_mismatch",
     "mindspore/mint_scatter/src-rank-differs"),
    ((MINDSPORE,), RuntimeError,
     "For 'Scatter', the dimension of 'input' should be greater than or equal to 1, but got 0." + _UNEXPECTED,
     "rank_mismatch", "mindspore/mint_scatter/zero-d-input"),
    ((MINDSPORE,), RuntimeError,
     "For 'Scatter', the indices dims should be less than input dims, but got indices dim is: 2 at axis: 0, while "
     "input dim is:1" + _UNEXPECTED, "shape_mismatch", "mindspore/mint_scatter/index-larger-than-input"),
    ((MINDSPORE,), RuntimeError,
     "Failure info [For Scatter, [input] or [src] got empty tensor, which is not allowed.].\n\n"
     "----------------------------------------------------\n- Framework Unexpected Exception Raised:\n"
     "----------------------------------------------------\nThis exception is caused by framework's unexpected error."
     + _STACK + "mindspore/ops/infer/ops_func_impl//scatter.cc:73 InferShape", "invalid_argument",
     "mindspore/mint_scatter/empty-index"),
    ((MINDSPORE,), ValueError,
     "For primitive[ScatterAddExt], the dim must be in [-2,2), but got 2." + _STACK +
     "mindspore/ops/infer/ops_func_impl//scatter_add_ext.cc:45 InferShape", "dim_out_of_range",
     "mindspore/mint_scatter_add/dim-out-of-range"),
    ((MINDSPORE,), RuntimeError,
     "For 'TensorScatterElements', reduce_type: 2 not support now.\n(MindSpore's log; the exception: Launch kernel "
     "failed, name:Default/TensorScatterElements-op0" + _STACK[1:] + "mindspore/ccsrc", "invalid_reduce",
     "fuzz repro-mindspore-087fc0caee0c (reduction='multiply', MS-TSE8)"),
    ((MINDSPORE,), ValueError,
     "For primitive[Gather], the indices shape size must be greater than or equal to 2, but got 1." + _STACK +
     "mindspore/ops/infer/ops_func_impl//gather.cc:31 CalcuateGatherWithBatchDims", "invalid_argument",
     "fuzz repro-mindspore-02f4ca242494 (batch_dims 2 above the indices' rank, MS-G4)"),
    ((MINDSPORE,), RuntimeError,
     "The int64_t value(-1) is less than 0.\n\n----------------------------------------------------\n"
     "- Framework Unexpected Exception Raised:\n----------------------------------------------------\n"
     "This exception is caused by framework's unexpected error.", "invalid_argument",
     "fuzz repro-mindspore-405095f3af3f (batch_dims -2, MS-G4)"),
    ((MINDSPORE,), RuntimeError,
     "For 'Gather', the dimension of 'input_params' should be 8D or lower, but got 10." + _STACK +
     "mindspore/ops/infer/ops_func_impl//gather.cc:96 InferShape", "rank_limit",
     "fuzz repro-mindspore-1c7a1d36a93a (MS-G9)"),
    ((MINDSPORE,), TypeError,
     "Select CPU operator[ScatterValue] fail! Unsupported data type!\nThe supported data types are input[Bool Int64 "
     "Int32 Float32 Int64], output[Bool];", "unsupported_dtype", "fuzz repro-mindspore-4c9c086d77a3 (MS-MS6)"),
    ((MINDSPORE,), TypeError,
     "Select CPU operator[Scatter] fail! Unsupported data type!\nThe supported data types are input[Bool Int64 "
     "Int32 Bool Int64], output[Bool];", "index_dtype", "fuzz repro-mindspore-2eba9379b121 (a float32 index, MS-MS4)"),
    ((MINDSPORE,), RuntimeError,
     "Failure info [For ScatterValue, [input] got empty tensor, which is not allowed.].\n\n"
     "----------------------------------------------------\n- Framework Unexpected Exception Raised:",
     "invalid_argument", "fuzz repro-mindspore-a4f55ddb2b74"),
    ((MINDSPORE,), RuntimeError,
     "For 'ScatterValue', the 'dim' should be less than input dims and greater than or equal 0, but got 2, while "
     "input dims is: 2" + _UNEXPECTED, "dim_out_of_range", "fuzz repro-mindspore-4abe09f9ac52"),
    ((MINDSPORE,), RuntimeError,
     "For 'ScatterValue', the dimension of 'input' should be greater than or equal to 1, but got 0." + _UNEXPECTED,
     "rank_mismatch", "fuzz repro-mindspore-5096864f45cf"),
    ((MINDSPORE,), ValueError,
     "For ScatterAddExt, dimension size of 'input', 'index' and 'src' must be greater than or equal to 1. But got "
     "input_shape: [const vector]{1}, index_shape: [const vector]{}, src_shape: [const vector]{1}." + _STACK,
     "rank_mismatch", "fuzz repro-mindspore-1de0e1cfcd4f (a 0-d index, MS-MSA2)"),
    ((MINDSPORE,), RuntimeError,
     "For 'ScatterValue', the indices dims should be less than input dims, but got indices dim is: 2 at axis: 1, "
     "while input dim is:1" + _UNEXPECTED, "shape_mismatch", "fuzz repro-mindspore-9374845f1283 (campaign 2026-12-07)"),
]
