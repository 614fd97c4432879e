"""Samples for adapters/test_classifiers.py (CTest: adapter_classifiers) from the version matrix
(scripts/version-matrix, 2026-11-27): the texts PaddlePaddle and MindSpore releases other than the ones
test_classifier_samples.py was written from printed, where no sample there has them for that release (the same
row, another wording, line number or address). Same form as test_classifier_samples.py's samples: (versions
measured, exception class, text as the adapter saw it (cut at 300 characters where the same row still decides it),
the category it must get, the spec case that printed it).
"""

# PyPI's, installed by scripts/version-matrix; 3.1 and 3.2 measured for the boundary of the 3.1 entries
# (specs/expectations/real-frameworks.json)
P26, P30, P31, P32 = "2.6.2", "3.0.0", "3.1.1", "3.2.2"
M27 = "2.7.2"  # the oldest MindSpore PyPI serves for Python 3.11

PADDLE_MATRIX_TEXTS = [
    ((P30, P31), ValueError,
     "(InvalidArgument) The dimensions of the source tensor and target tensor should match, but received source tenso"
     "r's 1-th dimension is 3,target tensor's 1-th dimension is 2.\n  [Hint: Expected src_dims[i] == dst_dims[i], but"
     " received src_dims[i]:3 != dst_dims[i]:2.] (at /paddle/paddle/phi/kernels/funcs",
     "shape_mismatch", "paddle/scatter-shape/updates-row-width"),
    ((P26,), ValueError,
     "(InvalidArgument) Input(Updates) and Input(Ids) should have same batch-size, but received Input(Updates)'s batc"
     "h-size is 4, Input(Ids)'s batch-size is 2.\n  [Hint: Expected updates_dims[0] == index_dims[0], but received up"
     "dates_dims[0]:4 != index_dims[0]:2.] (at /paddle/paddle/phi/infermeta/ternary.c",
     "shape_mismatch", "paddle/backward/updates-longer-than-index"),
    ((P30, P31), IndexError,
     "(OutOfRange) The index is out of bounds, please check whether the dimensions of index and input meet the requir"
     "ements. It should be less than [3], but received [3]\n  [Hint: Expected p_index[i] < max_index, but received p_"
     "index[i]:3 >= max_index:3.] (at /paddle/paddle/phi/kernels/funcs/scatter.h:224)",
     "index_out_of_bounds", "paddle/scatter-index/s-accumulate"),
    ((P26,), IndexError,
     "(OutOfRange) The index is out of bounds, please check whether the dimensions of index and input meet the requir"
     "ements. It should be greater than or equal to 0, but received [-1]\n  [Hint: Expected index_ >= 0, but received"
     " index_:-1 < 0:0.] (at /paddle/paddle/phi/kernels/funcs/scatter.h:142)",
     "index_out_of_bounds", "paddle/scatter-index/neg1"),
    ((P26,), ValueError,
     "(InvalidArgument) Index holds the wrong type, it holds [int16],but desires to be [int32] or [int64].\n  [Hint: "
     "Expected index_type_match == true, but received index_type_match:0 != true:1.] (at /paddle/paddle/phi/kernels/c"
     "pu/scatter_kernel.cc:44)",
     "index_dtype", "paddle/scatter-index/index-int16"),
    ((P30,), ValueError,
     "(InvalidArgument) Index holds the wrong type, it holds [int16],but desires to be [int32] or [int64].\n  [Hint: "
     "Expected index_type_match == true, but received index_type_match:0 != true:1.] (at /paddle/paddle/phi/kernels/c"
     "pu/scatter_kernel.cc:37)",
     "index_dtype", "paddle/scatter-index/index-int16"),
    ((P26,), ValueError,
     "(InvalidArgument) The last dim of the index should be 1 when the index is a 2D tensor, but we get 2.\n  [Hint: "
     "Expected index_dims[1] == 1, but received index_dims[1]:2 != 1:1.] (at /paddle/paddle/phi/infermeta/ternary.cc:"
     "1078)",
     "invalid_argument", "paddle/scatter-index/index-row-2d"),
    ((P30,), ValueError,
     "(InvalidArgument) The last dim of the index should be 1 when the index is a 2D tensor, but we get 2.\n  [Hint: "
     "Expected index_dims[1] == 1, but received index_dims[1]:2 != 1:1.] (at /paddle/paddle/phi/infermeta/ternary.cc:"
     "1932)",
     "invalid_argument", "paddle/scatter-index/index-row-2d"),
    ((P31,), ValueError,
     "(InvalidArgument) The last dim of the index should be 1 when the index is a 2D tensor, but we get 2.\n  [Hint: "
     "Expected index_dims[1] == 1, but received index_dims[1]:2 != 1:1.] (at /paddle/paddle/phi/infermeta/ternary.cc:"
     "2334)",
     "invalid_argument", "paddle/scatter-index/index-row-2d"),
    ((P32,), ValueError,
     "(InvalidArgument) The last dim of the index should be 1 when the index is a 2D tensor, but we get 2.\n  [Hint: "
     "Expected index_dims[1] == 1, but received index_dims[1]:2 != 1:1.] (at /paddle/paddle/phi/infermeta/ternary.cc:"
     "2430)",
     "invalid_argument", "paddle/scatter-index/index-row-2d"),
]

MINDSPORE_MATRIX_TEXTS = [
    ((M27,), ValueError,
     "The shape should be [const vector]{2, 3}, but got [const vector]{1, 3}, , sens gradient abs AbstractTensor(shap"
     "e: (1, 3), element: AbstractScalar(Type: Float32, Value: ValueAny, Shape: NoShape), value_ptr: 0x230f5540, valu"
     "e: Tensor(shape=[1, 3], dtype=Float32, value=\n[[ 1.00000000e+00  2.00000000e+0",
     "shape_mismatch", "mindspore/backward/grad-output-shape-mismatch"),
    ((M27,), TypeError,
     "The dtype should be Float32, but got Float64, , sens gradient abs AbstractTensor(shape: (2, 3), element: Abstra"
     "ctScalar(Type: Float64, Value: ValueAny, Shape: NoShape), value_ptr: 0x230f45f0, value: Tensor(shape=[2, 3], dt"
     "ype=Float64, value=\n[[ 1.00000000e+00  2.00000000e+00  3.00000000e+00]\n [ 4.00",
     "dtype_mismatch", "mindspore/backward/grad-output-dtype-mismatch"),
    ((M27,), ValueError,
     "Failed to convert the value \"sum\" of input 'reduce' of 'scatter_' to enum.\n\n-------------------------------"
     "---------------------\n- C++ Call Stack: (For framework developers)\n------------------------------------------"
     "----------\nmindspore/ops/op_def/op_enum.cc:254 StringToEnumImpl",
     "invalid_reduce", "mindspore/scatter-args/reduce-sum"),
]
