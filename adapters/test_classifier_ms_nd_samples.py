"""Samples for adapters/test_classifiers.py (CTest: adapter_classifiers) of MindSpore's ND ops
(mindspore.ops.tensor_scatter_*), same form as test_classifier_samples.py's: (versions measured, exception class,
text as the adapter saw it, the category it must get, the spec case that printed it). Measured on MindSpore 2.10.0
and 2.7.2 (scripts/version-matrix venvs, 2026-12-07): the same texts.
"""

M210, M27 = "2.10.0", "2.7.2"

MINDSPORE_ND_TEXTS = [
    ((M210, M27), RuntimeError, "For 'TensorScatterAdd', the 0-th value of 'indices'[0, 3] is out of range[2, 3].",
     "index_out_of_bounds", "mindspore/tensor_scatter_add/index-upper-bound"),
    # A negative index into tensor_scatter_update: MindSpore's own internal failure (IntToSize), no category
    ((M210, M27), RuntimeError,
     "The int value(-1) is less than 0.\n\n----------------------------------------------------\n- Framework "
     "Unexpected Exception Raised:\n----------------------------------------------------\nThis exception is caused "
     "by framework's unexpected error.", None, "mindspore/tensor_scatter_update/negative-index"),
    ((M210, M27), ValueError,
     "For 'TensorScatterUpdate', indices out of range for input_x. Please check the indices which is [const vector]"
     "{2, 0}", "index_out_of_bounds", "mindspore/tensor_scatter_update/index-row-bound"),
    ((M210, M27), ValueError, "For TensorScatterAdd, the dimension of 'indices' cannot be less than 2,  but got 1",
     "invalid_argument", "mindspore/tensor_scatter_add/indices-rank-1"),
    ((M210, M27), ValueError,
     "For TensorScatterSub, the last dimension of 'indices' must be less than or equal  to the dimension of "
     "'input_x', but got the last dimension of 'indices': 3 and the dimension of 'input_x': 2", "shape_mismatch",
     "mindspore/tensor_scatter_sub/tuple-longer-than-rank"),
    ((M210, M27), TypeError, "For TensorScatterAdd, input_x_type cannot be bool.", "unsupported_dtype",
     "mindspore/tensor_scatter_add/bool-unspecified"),
    ((M210, M27), TypeError,
     "For primitive[TensorScatterSub], the input argument[input_x] must be a type of {Tensor[BFloat16], "
     "Tensor[Float16], Tensor[Float32], Tensor[Float64], Tensor[Int16], Tensor[Int32], Tensor[Int64], Tensor[Int8], "
     "Tensor[UInt16], Tensor[UInt32], Tensor[UInt64], Tensor[UInt8]}, but got Tensor[Bool].", "unsupported_dtype",
     "mindspore/tensor_scatter_sub/bool-unspecified"),
    ((M210, M27), TypeError,
     "For TensorScatterAdd, input_x_type must equal to updates type, but got input_x_type: Float32, updates_type: "
     "Float64.", "dtype_mismatch", "mindspore/tensor_scatter_add/updates-dtype-mismatch"),
    ((M210, M27), TypeError,
     "For primitive[TensorScatterAdd], the input[indices type] supports types: Int32, Int64. But got Float32.",
     "index_dtype", "mindspore/tensor_scatter_add/float-indices"),
    ((M210, M27), TypeError,
     "For primitive[TensorScatterMul], the input argument[indices type] must be a type of {Tensor[Int32], "
     "Tensor[Int64]}, but got Tensor[Float32].", "index_dtype", "mindspore/tensor_scatter_mul/float-indices"),
    ((M210, M27), TypeError, "For primitive[TensorScatterMul], the input type must be same.", "dtype_mismatch",
     "mindspore/tensor_scatter_mul/updates-dtype-mismatch"),
    ((M210, M27), ValueError,
     "For TensorScatterAdd, indices_shape must equal to updates_shape, but got indices_shape: [1], updates_shape: "
     "[2].", "shape_mismatch", "mindspore/tensor_scatter_add/updates-shape-mismatch"),
    ((M210, M27), ValueError,
     "For TensorScatterUpdate, updates_shape = indices_shape[:-1] + x_shape[indices_shape[-1]:], but got x_shape: "
     "(2, 3), indices_shape: (1, 2), updates_shape: (2).", "shape_mismatch",
     "mindspore/tensor_scatter_update/updates-shape-mismatch"),
    # ops.gather_nd
    ((M210, M27), RuntimeError,
     "For 'GatherNd', the indices[0]: [const vector]{0, 3}, does not index into input_shape: [const vector]{2, 3}.",
     "index_out_of_bounds", "mindspore/gather_nd/index-upper-bound"),
    ((M210, M27), ValueError,
     "For primitive[GatherNd], the In GatherNd, the input of indices data must be greater than or equal to 3, but "
     "got 2.", "shape_mismatch", "mindspore/gather_nd/tuple-longer-than-rank"),
    ((M210, M27), TypeError,
     "\n----------------------------------------------------\n- Kernel select failed:\n"
     "----------------------------------------------------\nSelect CPU operator[GatherNd] fail! Unsupported data "
     "type!\nThe supported data types are input[Float16 Int32], output[Float16]; input[Int8 Int32], output[Int8];",
     "index_dtype", "mindspore/gather_nd/float-indices"),
    # ops.scatter_nd
    ((M210,), RuntimeError,
     "For 'ScatterNd', each element in 'indices' should be smaller than the value of shape, but got 3 and got the "
     "value of shape 3", "index_out_of_bounds", "mindspore/scatter_nd/index-upper-bound"),
    ((M210,), RuntimeError, "For 'ScatterNd', each element in 'indice' must be greater than or equal to 0, but got -1",
     "index_out_of_bounds", "mindspore/scatter_nd/negative-index"),
    ((M210,), ValueError,
     "For 'ScatterNd', the input [shape] should be a tuple with all positive item. But got: { 2, 0 }",
     "invalid_argument", "mindspore/scatter_nd/shape-zero"),
    ((M210,), ValueError,
     "For primitive[ScatterNd], the rank(indices) must be greater than or equal to 2, but got 1.", "invalid_argument",
     "mindspore/scatter_nd/indices-rank-1"),
    ((M210,), TypeError,
     "----------------------------------------------------\n- Kernel select failed:\n"
     "----------------------------------------------------\nSelect CPU operator[ScatterNd] fail! Unsupported data "
     "type!\nThe supported data types are input[Int16 Float64 Int32], output[Float64];", "index_dtype",
     "mindspore/scatter_nd/float-indices"),
]
