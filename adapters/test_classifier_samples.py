"""The messages adapters/test_classifiers.py classifies (CTest:
adapter_classifiers): what the frameworks printed in real runs, per adapter.

Each sample is (versions measured, exception class, text as the adapter saw
it, the category it must get, the spec case that printed it or the direct
call). A new row of an adapter's CATEGORIES needs a sample here, copied from a real run
(results.jsonl's "outcome" after the exception's class name, or the framework's str(exc)).
"""

T113 = "1.13.0a0+gitunknown"  # Debian's python3-torch (.venv)
T20, T24, T28, T211 = "2.0.1+cu117", "2.4.1+cu121", "2.8.0+cu128", "2.11.0+cu130"  # PyPI's (scripts/version-matrix)
T215 = "2.15.0+cu132"  # .venv-current
EVERY = (T113, T20, T24, T28, T211, T215)  # every torch release measured
UNMEASURED_TORCH = ("1.12.1", "2.3.0", "2.9.0", "2.10.1", "2.13.0", "2.16.0", "3.0.0", "unknown")  # known texts hold
PADDLE = "3.3.1"
MINDSPORE = "2.10.0"
# Other releases' texts (scripts/version-matrix), then texts of the ops with samples files of their own
from test_classifier_matrix_samples import (M27, P26, P30, P31, P32, MINDSPORE_MATRIX_TEXTS,  # noqa: E402,F401
                                            PADDLE_MATRIX_TEXTS)
from test_classifier_mindspore_elements_samples import MINDSPORE_ELEMENT_TEXTS  # noqa: E402
from test_classifier_paddle_nd_samples import PADDLE_ND_TEXTS  # noqa: E402
ORT = "1.32.0"  # onnxruntime in .venv-current
ONNX = "1.23.2"  # onnx (onnx.reference) in .venv-current

# Texts only some measured torch releases print (reworded, or new checks);
# their rows have no range all the same (torch_adapter.py's rule).
TORCH_OLD_TEXTS = [
    ((T113, T20, T24), RuntimeError, "Expected index [1, 3] to be smaller than self [2, 2] apart from dimension 0",
     "shape_mismatch", "torch/scatter-shape/value-index-over-self-apart-from-dim"),
    ((T113, T20, T24), RuntimeError,
     "Expected index [2, 2] to be smaller than self [1, 1] apart from dimension 0 and to be smaller size than src "
     "[2, 3]", "shape_mismatch", "torch/scatter_reduce-errors/index-wider-than-self"),
    ((T113, T20), RuntimeError, "output with shape [4] doesn't match the broadcast shape [4, 4]", "shape_mismatch",
     "torch/index_add-shape/source-rank-higher"),
    ((T113,), IndexError, "select() cannot be applied to a 0-dim tensor.", "shape_mismatch",
     "torch/index_add-shape/source-0d-self-2d"),
    ((T113, T20), RuntimeError, "source.dim() (2) must one or zero for given self.dim() (1)", "shape_mismatch",
     "torch/index_add-shape/self-1d-source-2d"),
]
TORCH_NEW_TEXTS = [
    # (index_add_'s source check since 2.3)
    ((T28, T211, T215), RuntimeError, "Expected index [1, 3] to be no larger than self [2, 2] apart from dimension 0",
     "shape_mismatch", "torch/scatter-shape/value-index-over-self-apart-from-dim"),
    ((T28, T211, T215), RuntimeError,
     "Expected index [2, 2] to be no larger than self [3, 4] apart from dimension 0 and to be no larger size than "
     "src [2, 1]", "shape_mismatch", "torch/scatter_reduce-errors/index-wider-than-src"),
    ((T24, T28, T211, T215), RuntimeError,
     "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = [3, 4] "
     "source.shape = [2, 1]", "shape_mismatch", "torch/index_add-broadcast/source-row-of-one"),
    ((T24, T28, T211, T215), RuntimeError,
     "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = [] "
     "source.shape = [2]", "shape_mismatch", "torch/index_add-dim/self-0d"),
    ((T20,), RuntimeError, "index_select(): Index to scalar cannot have multiple values.", "invalid_argument",
     "torch/index_select-dim/0d-three-zeros"),
    ((T24, T28, T211, T215), RuntimeError, "index_select(): Index to scalar can have only 1 value, got 3 value(s)",
     "invalid_argument", "torch/index_select-dim/0d-three-zeros"),
    ((T211, T215), RuntimeError, "ZeroDivisionError", "index_out_of_bounds",
     "torch/take_along_dim-broadcast/input-empty-along-dim"),
]

# Texts of PyTorch's CUDA kernels (the torch adapter on `@cuda`): (versions, exception class, message, category,
# where), classified with the rows of device "cuda"; on the CPU no row places them.
TORCH_CUDA = [
    ((T211,), RuntimeError, "Index is supposed to be an empty tensor or a vector", "invalid_argument",
     "torch/index_select-errors/index-2d on cuda (2026-11-27, H100; also rank-before-dtype, rank-before-bounds)"),
    ((T211,), RuntimeError, "Index is supposed to be an empty tensor or a vector", "invalid_argument",
     "torch/index_select-errors/rank-before-bounds on cuda"),
    ((T211,), RuntimeError, "expected scalar type Half but found Float", "dtype_mismatch",
     "torch/index_add-dtype/source-float32-self-float16 on cuda"),
    ((T211,), RuntimeError, "expected scalar type Half but found Bool", "dtype_mismatch",
     "fuzz torch-python-current@cuda 2026-11-27: index_select of a bool input into a float16 out="),
    ((T211,), NotImplementedError, "\"index_select_out_cuda_impl\" not implemented for 'Short'", "index_dtype",
     "torch/index_select-dtype/index-int16 on cuda"),
    ((T211,), NotImplementedError, "\"index_select_out_cuda_impl\" not implemented for 'Float'", "index_dtype",
     "torch/index_select-dtype/index-float32 on cuda"),
    ((T211,), NotImplementedError, "\"scatter_gather_kernel_cuda\" not implemented for 'Bool'", "unsupported_dtype",
     "torch/scatter_reduce-dtype/bool-prod on cuda"),
    ((T211,), RuntimeError,
     "CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at some other "
     "API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1",
     None, "torch/gather-index/dim1-s on cuda"),
]


# (versions, exception class, message, category, where it was printed)
SAMPLES = {
    "torch_adapter.py": [
        (EVERY, RuntimeError, "index 3 is out of bounds for dimension 1 with size 3", "index_out_of_bounds",
         "torch/gather-index/dim1-s"),
        (EVERY, IndexError, "index_copy_(): index -1 is out of bounds for dimension 0 with size 3",
         "index_out_of_bounds", "torch/index_copy-index/negative"),
        (EVERY, IndexError, "index out of range in self", "index_out_of_bounds",
         "torch/index_add-index/too-large-1d"),
        (EVERY, RuntimeError, "INDICES element is out of DATA bounds, id=4 axis_dim=4", "index_out_of_bounds",
         "torch/index_select-index/dim1-s"),
        (EVERY, RuntimeError, "index_select(): self indexing axis dim should be positive", "index_out_of_bounds",
         "torch/index_select-index/size0-dim"),
        (EVERY, IndexError, "index_select(): Index is supposed to be a vector", "invalid_argument",
         "torch/index_select-errors/index-2d"),
        (EVERY, IndexError,
         "index_add_(): Index is supposed to be a vector, but got dim: 2 with type: Long and size: [2, 1]",
         "invalid_argument", "torch/index_add-index/index-2d"),
        (EVERY, RuntimeError, "index_select(): Expected dtype int32 or int64 for index", "index_dtype",
         "torch/index_select-dtype/index-int8"),
        (EVERY, IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
         "dim_out_of_range", "torch/gather-dim/dim2"),
        ((T113, T20, T24), RuntimeError, "gather(): Expected dtype int64 for index", "index_dtype",
         "torch/gather-dtype/index-int32"),
        ((T113, T20, T24), RuntimeError, "scatter(): Expected dtype int64 for index", "index_dtype",
         "torch/scatter-dtype/scatter_-index-int32"),
        (EVERY, IndexError, "index_fill_(): Expected dtype int64 for index.", "index_dtype",
         "torch/index_fill-dim/dim-and-index-dtype"),
        ((T28, T211, T215), RuntimeError, "expected scalar type Long but found Int", "index_dtype",
         "torch/regression/scatter-add-int32-expanded-index"),
        (EVERY, RuntimeError, "torch.take_along_dim(): dtype of indices should be Long but got Int",
         "index_dtype", "torch/take_along_dim-dtype/indices-int32"),
        (EVERY, RuntimeError,
         "torch.take_along_dim(): input and indices should have the same number of dimensions, but got 2 dimensions "
         "for input, and 1 dimensions for indices", "rank_mismatch", "torch/take_along_dim-broadcast/rank-lower"),
        (EVERY, RuntimeError, "reduce argument must be either add or multiply.", "invalid_reduce",
         "torch/scatter-args/reduce-sum-src"),
        ((T113,), RuntimeError, "reduce argument must be either sum, prod, mean, amax or amin.", "invalid_reduce",
         "torch/scatter_reduce-errors/reduce-capitalised"),
        (EVERY[1:], RuntimeError, "reduce argument must be either sum, prod, mean, amax or amin, got Sum",
         "invalid_reduce", "torch/scatter_reduce-errors/reduce-capitalised"),
        (EVERY, RuntimeError, "Index tensor must have the same number of dimensions as input tensor",
         "rank_mismatch", "torch/gather-shape/rank-mismatch"),
        (EVERY, RuntimeError, "Index tensor must have the same number of dimensions as src tensor",
         "rank_mismatch", "torch/scatter_reduce-errors/src-rank-higher"),
        ((T113, T20, T24), RuntimeError,
         "Size does not match at dimension 0 expected index [3, 1] to be smaller than self [2, 2] apart from "
         "dimension 1",
         "shape_mismatch", "torch/gather-shape/index-over-apart-from-dim"),
        ((T28, T211, T215), RuntimeError,
         "Size does not match at dimension 0 expected index [3, 1] to be no larger than self [2, 2] apart from "
         "dimension 1", "shape_mismatch", "torch/gather-shape/index-over-apart-from-dim"),
        (EVERY, RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype", "dtype_mismatch",
         "torch/scatter-dtype/scatter_-dtype-mismatch"),
        (EVERY, RuntimeError, "Expected out tensor to have dtype float, but got double instead",
         "dtype_mismatch", "torch/out/gather-out-dtype-float64"),
        (EVERY, RuntimeError, "index_select(): self and result must have the same scalar type", "dtype_mismatch",
         "torch/out/index_select-out-dtype"),
        (EVERY, RuntimeError,
         "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
         "Please clone() the tensor before performing the operation.", "overlapping_output",
         "torch/index_add-layout/self-expanded-in-place"),
        (EVERY, RuntimeError,
         "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
         "memory location. Please clone() the tensor before performing the operation.", "overlapping_output",
         "torch/out/gather-out-is-input"),
        (EVERY, RuntimeError, "value cannot be converted to type int8_t without overflow", "value_out_of_range",
         "torch/index_add-alpha/int8-alpha-overflow"),
        ((T113, T20, T24, T28), RuntimeError, "value cannot be converted to type at::Half without overflow", "value_out_of_range",
         "torch/index_add-alpha/float16-alpha-overflow"),
        ((T211, T215), RuntimeError, "value cannot be converted to type c10::Half without overflow", "value_out_of_range",
         "torch/index_add-alpha/float16-alpha-overflow"),
        ((T113, T20, T24), RuntimeError, "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'",
         "unsupported_dtype", "torch/scatter_reduce-errors/bool-mean"),
        ((T28, T211, T215), NotImplementedError, "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'",
         "unsupported_dtype", "torch/scatter_reduce-errors/bool-mean"),
        ((T28, T211, T215), NotImplementedError, "\"div_floor_cpu\" not implemented for 'Bool'", "unsupported_dtype",
         "torch/scatter_reduce-errors/bool-mean-empty-index"),
        (EVERY, RuntimeError, "index_add_(): Expected dtype int32/int64 for index but got: Short", "index_dtype",
         "torch/index_add-index/index-int16"),
        ((T28, T211, T215), RuntimeError, "gather(): Expected dtype int32/int64 for index", "index_dtype",
         "torch/gather-dtype/index-uint8"),
        ((T28, T211, T215), RuntimeError, "scatter(): Expected dtype int32/int64 for index", "index_dtype",
         "torch/scatter-dtype/scatter_-index-float32"),
        (EVERY, RuntimeError, "index_add_(): self (Float) and source (Double) must have the same scalar type",
         "dtype_mismatch", "torch/index_add-dtype/source-float64"),
        (EVERY, RuntimeError, "index_reduce_(): self (Float) and source (Double) must have the same scalar type",
         "dtype_mismatch", "torch/index_reduce-errors/source-dtype"),
        (EVERY, RuntimeError, "index_add_(): Indexing dim 1 is out of bounds of the source tensor with dim 1",
         "shape_mismatch", "torch/index_add-shape/source-lacks-dim"),
        (EVERY, RuntimeError,
         "index_add_(): Number of indices (2) should be equal to source.size(dim): (3), for dim: 0", "shape_mismatch",
         "torch/index_add-shape/source-dim-length"),
        (EVERY, IndexError, "index_copy_(): Number of indices (2) should be equal to source.size(dim) (3)",
         "shape_mismatch", "torch/index_copy-shape/source-length"),
        (EVERY, IndexError, "Dimension specified as 0 but tensor has no dimensions", "shape_mismatch",
         "torch/index_add-shape/empty-index-source-0d"),
        ((T113, T20), RuntimeError,
         "The size of tensor a (4) must match the size of tensor b (5) at non-singleton dimension 0", "shape_mismatch",
         "torch/index_add-shape/source-other-dim-larger"),
        (EVERY[1:], RuntimeError,
         "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0", "shape_mismatch",
         "torch/take_along_dim-broadcast/mismatch-dim0"),
        (EVERY, IndexError, "select(): index 0 out of range for tensor of size [0, 3] at dimension 0",
         "index_out_of_bounds", "torch/index_reduce-errors/size-0-along-dim"),
        (EVERY, IndexError, "index_copy_(): Index should have dimension 1 or 0 (got 2)", "invalid_argument",
         "torch/index_copy-index/index-2d"),
        (EVERY, RuntimeError, "Index has to be a vector/scalar", "invalid_argument",
         "torch/index_fill-index/index-2d"),
        (EVERY, RuntimeError, "index_copy_(): Expected a long tensor for index, but got Int", "index_dtype",
         "torch/index_copy-index/index-int32"),
        (EVERY, RuntimeError,
         "index_copy_(): self and source expected to have the same dtype, but got (self) Float and (source) Double",
         "dtype_mismatch", "torch/index_copy-shape/source-dtype"),
        (EVERY, IndexError, "index_copy_(): When source is scalar, index should have one element (got 2)",
         "shape_mismatch", "torch/index_copy-shape/source-0d-two-indices"),
        (EVERY, IndexError,
         "index_copy_(): When source and destination are not scalars, their dimensionality must match. Source "
         "dimensionality (1), destination dimensionality (2)", "shape_mismatch", "torch/index_copy-shape/source-rank"),
        (EVERY, RuntimeError,
         "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: 4 at "
         "dimension 0 and source slice shape: 7 at dimension 0.", "shape_mismatch",
         "torch/index_copy-index/empty-misshaped-source"),
        (EVERY, RuntimeError,
         "setStorage: sizes [1], strides [0], storage offset 0, and itemsize 4 requiring a storage size of 4 are out "
         "of bounds for storage of size 0", "index_out_of_bounds", "torch/index_copy-index/size-0-dim"),
        (EVERY, RuntimeError,
         "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got sum.", "invalid_reduce",
         "torch/index_reduce-errors/reduce-sum"),
        (EVERY[1:], RuntimeError,
         "Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got max.", "invalid_reduce",
         "torch/regression/scatter-reduce-max-min-aliases-backward"),
        (EVERY, RuntimeError,
         "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
         "contiguous subspaces). Use .reshape(...) instead.", "invalid_argument",
         "torch/take_along_dim-none/any-rank@transposed"),
        # -- the backward ops (autograd's texts)
        (EVERY, RuntimeError, "only Tensors of floating point dtype can require gradients", "unsupported_dtype",
         "direct call: torch.scatter.backward, int64 self/src [3]/[2], index [0, 1]"),
        (EVERY, RuntimeError,
         "Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has a shape of "
         "torch.Size([3]).", "shape_mismatch",
         "direct call: torch.gather.backward, input [3], index [0, 0, 2], grad_output [2]"),
        (EVERY, RuntimeError,
         "Function ScatterBackward0 returned an invalid gradient at index 1 - got [2, 2] but expected shape "
         "compatible with [2, 3]", "shape_mismatch",
         "direct call: torch.scatter.backward, dim 1, self [2, 3], index [2, 2], src [2, 3]"),
    ] + TORCH_OLD_TEXTS + TORCH_NEW_TEXTS,
    "paddle_adapter.py": [
        ((P26, P30, P31, P32, PADDLE), RuntimeError,
         "(NotFound) The kernel with key (CPU, Undefined(AnyLayout), float16) of kernel `scatter` is not registered. "
         "Selected wrong DataType `float16`. Paddle support following DataTypes: int32, int64, float64, float32.",
         "unsupported_dtype", "paddle/scatter-dtype/x-float16"),
        ((P31, P32, PADDLE), ValueError,
         "(InvalidArgument) Index holds the wrong type, it holds [int16],but desires to be [int32] or [int64].\n"
         "  [Hint: Expected index_type_match == true, but received index_type_match:0 != true:1.] (at "
         "/paddle/paddle/phi/kernels/cpu/scatter_kernel.cc:46)", "index_dtype", "paddle/scatter-index/index-int16"),
        ((P32, PADDLE), IndexError,
         "(OutOfRange) The index is out of bounds, please check whether the values of index and dimensions of input "
         "meet the requirements. each index should be less than 1st-dim size (3) of input, but received [3]\n"
         "  [Hint: Expected index_ < dst_dims[0], but received index_:3 >= dst_dims[0]:3.] (at "
         "/paddle/paddle/phi/kernels/funcs/scatter.h:149)", "index_out_of_bounds", "paddle/scatter-index/s"),
        ((P32, PADDLE), IndexError,
         "(OutOfRange) The index is out of bounds, please check whether the dimensions of index and input meet the "
         "requirements. It should be greater than or equal to [-3], but received [-4]\n  [Hint: Expected index_ >= "
         "-dst_dims[0], but received index_:-4 < -dst_dims[0]:-3.] (at /paddle/paddle/phi/kernels/funcs/scatter.h:139)",
         "index_out_of_bounds", "paddle/scatter-index/neg-s-1"),
        ((P26, P30, PADDLE), ValueError,
         "(InvalidArgument) The type of data we are trying to retrieve (float32) does not match the type of data "
         "(float64) currently contained in the container.\n  [Hint: Expected dtype() == "
         "phi::CppTypeToDataType<T>::Type(), but received dtype():11 != phi::CppTypeToDataType<T>::Type():10.]",
         "dtype_mismatch", "direct call: paddle.scatter(float32 x [3, 2], int64 index [0, 1], float64 updates [2, 2])"),
        ((PADDLE,), ValueError,
         "(InvalidArgument) The last dim of the index should be 1 when the index is a 2D tensor, but we get 2.\n"
         "  [Hint: Expected index_dims[1] == 1, but received index_dims[1]:2 != 1:1.] (at "
         "/paddle/paddle/phi/infermeta/ternary.cc:2570)", "invalid_argument", "paddle/scatter-index/index-row-2d"),
        ((PADDLE,), ValueError,
         "(InvalidArgument) The index should be a 0D or 1D tensor when the index is not a 2D tensor, but we get 3.\n"
         "  [Hint: Expected index_dims.size() == 1 || index_dims.size() == 0 == true, but received index_dims.size() "
         "== 1 || index_dims.size() == 0:0 != true:1.]", "invalid_argument",
         "direct call: paddle.scatter(float32 x [3, 2], int64 index [2, 2, 1], updates [2, 2])"),
        ((P32, PADDLE), ValueError,
         "(InvalidArgument) The dimensions of the source tensor and target tensor should match, but received source "
         "tensor's 1-th dimension is 3,target tensor's 1-th dimension is 2.\n  [Hint: Expected src_dims[i] == "
         "dst_dims[i], but received src_dims[i]:3 != dst_dims[i]:2.] (at "
         "/paddle/paddle/phi/kernels/funcs/scatter.h:114)",
         "shape_mismatch", "paddle/scatter-shape/updates-row-width"),
        ((PADDLE,), ValueError,
         "(InvalidArgument) The first dimension size of Input(Index) should be no greater than Input(Updates), but "
         "received first dimension size of Input(Index) is 3, Input(Updates) is  2.\n  [Hint: Expected index_dims[0] "
         "<= updates_dims[0], but received index_dims[0]:3 > updates_dims[0]:2.] (at "
         "/paddle/paddle/phi/infermeta/ternary.cc:2597)", "shape_mismatch",
         "paddle/scatter-shape/updates-shorter-than-index"),
        # paddle.scatter.backward with a grad_output of fewer rows than x: paddle.grad does not check its shape, and
        # the gather of grad_output's rows at index fails in the kernel. Paddle's words are an index out of range
        # (of grad_output), and so is the category; the reference's shape_mismatch is a deviation
        # (specs/expectations/real-frameworks.json).
        ((PADDLE,), IndexError,
         "(OutOfRange) The element of Index must be less than the size of input dim size of axis which is 2, but "
         "received index element which is 2 in the 0 index.\n  [Hint: Expected p_index[i] < index_dim_size, but "
         "received p_index[i]:2 >= index_dim_size:2.] (at /paddle/paddle/phi/kernels/funcs/gather.h:82)",
         "index_out_of_bounds",
         "direct call: paddle.scatter.backward, x [3, 2], index [2, 1], updates [2, 2], grad_output [2, 2]"),
        # paddle.put_along_axis / Tensor.put_along_axis_ (specs/paddle/put_along_axis.json, 2026-11-28)
        ((PADDLE,), ValueError, "`indices` and `arr` must have the same number of dimensions!", "rank_mismatch",
         "paddle/put_along_axis/rank-mismatch"),
        ((PADDLE,), ValueError, "`indices` and `values` must have the same number of dimensions!", "rank_mismatch",
         "paddle/put_along_axis/no-broadcast-values-rank"),
        ((PADDLE,), AssertionError, "'axis'  must be in the range of [-2, 2)", "dim_out_of_range",
         "paddle/put_along_axis/axis-out-of-range"),
        ((PADDLE,), TypeError, "The data type of indices should be one of ['int32', 'int64'], but got float32",
         "index_dtype", "paddle/put_along_axis/index-dtype-float"),
        ((PADDLE,), ValueError,
         "(InvalidArgument) can not support reduce: 'sum' for scatter kernel, only support reduce op: 'add', "
         "'assign', 'mul', 'mean', 'amin', 'amax' and 'multiply', the default reduce op is 'assign'  (at "
         "/paddle/paddle/phi/kernels/cpu/put_along_axis_kernel.cc:86)", "invalid_reduce",
         "paddle/put_along_axis/reduce-invalid"),
        ((PADDLE,), RuntimeError,
         "Size does not match at dimension 1 expected index paddle.Size([1, 3]) to be smaller than self "
         "paddle.Size([2, 3]) apart from dimension 0 and to be smaller size than values paddle.Size([1, 2])",
         "shape_mismatch", "paddle/put_along_axis/no-broadcast-values-too-small"),
        ((PADDLE,), RuntimeError, "one of element of indices is out of bounds for dimension 0 with size 2",
         "index_out_of_bounds", "paddle/put_along_axis/index-upper-bound-no-broadcast"),
        ((PADDLE,), ValueError,
         "(InvalidArgument) The number of elements (9) of 'shape' for must not be greater than 8.\n  [Hint: Expected "
         "expand_shape.size() <= 8, but received expand_shape.size():9 > 8:8.] (at "
         "/paddle/paddle/phi/infermeta/unary.cc:1327)", "rank_limit", "regression/fuzz-paddle-fbff457499f3"),
        ((PADDLE,), OSError,
         "Unimplemented error. Invalid dimension to be accessed. Now only supports access to dimension 0 to 9, but "
         "received dimension is 10.\n  [/paddle/paddle/common/ddim.h:61]", "rank_limit",
         "regression/fuzz-paddle-088e0ce6ab00"),
        ((P26,), TypeError, "got an unexpected keyword argument 'broadcast'", "invalid_argument",
         "paddle/put_along_axis/in-place-broadcast-before-3"),
        # paddle.index_add / Tensor.index_add_ (specs/paddle/index_add.json, 2026-11-28)
        ((P26, P30, PADDLE), ValueError,
         "(InvalidArgument) The 'shape' of Input(Index) must be 1-D tensor. But received: the 'shape' of "
         "Input(Index) is [1, 1], the dimension of Input(Index) is [2].", "invalid_argument",
         "paddle/index_add/index-2d"),
        ((P26, P30, PADDLE), ValueError, "(InvalidArgument) The add_value must be the same dimension as x.",
         "rank_mismatch", "paddle/index_add/value-rank-mismatch"),
        ((P26, P30, PADDLE), IndexError,
         "(OutOfRange) Attr(dim) is out of range, It's expected to be in range of [-2, 1]. But received Attr(axis) "
         "= 2.", "dim_out_of_range", "paddle/index_add/axis-out-of-range"),
        ((P26, P30), TypeError, "index_add() got an unexpected keyword argument 'alpha'", "invalid_argument",
         "paddle/index_add/alpha-before-3-3"),
        ((P26, P30, PADDLE), ValueError,
         "(InvalidArgument) Variable value (index) of OP(index_add) expected >= -3 and < 3, but got 3. Please check "
         "input value.", "index_out_of_bounds", "paddle/index_add/index-upper-bound"),
        ((P26, P30), ValueError, "(InvalidArgument) The length of Input(Index) can't be 0.", "invalid_argument",
         "paddle/index_add/empty-index"),
        ((P26, P30, PADDLE), ValueError,
         "(InvalidArgument) Variable value (index) of OP(index_select) expected >= -3 and < 3, but got 3. Please "
         "check input value.", "index_out_of_bounds", "paddle/index_select/index-upper-bound"),
        # paddle.gather (specs/paddle/gather.json, 2026-11-28)
        ((PADDLE,), IndexError,
         "(OutOfRange) Attr(axis) is out of range, It's expected to be in range of [-2, 1]. But received Attr(axis) "
         "= 2.", "dim_out_of_range", "paddle/gather/axis-out-of-range"),
        ((PADDLE,), ValueError, "(InvalidArgument) The last dim of index should be 0 or 1 when it is 2D, but we get 2",
         "invalid_argument", "paddle/gather/index-2d-row"),
        ((P26, P30), ValueError, "(InvalidArgument) The last dim of index should be 1 when it is 2D, but we get 2",
         "invalid_argument", "paddle/gather/index-2d-row"),
        ((PADDLE,), RuntimeError,
         "(PreconditionNotMet) Tensor's dimension is out of bound.Tensor's dimension must be equal or less than the "
         "size of its memory.But received Tensor's dimension is 16, memory's size is 8.", "shape_mismatch",
         "regression/paddle-index-add-value-shorter-than-index"),
        ((PADDLE,), ValueError,
         "(InvalidArgument) The add_value parameter does not supported broadcast, so input_dim[i](3) must be equal "
         "to add_value_dim[i](2) when i(1) != axis(0).", "shape_mismatch", "paddle/index_add/value-width-mismatch"),
    ] + PADDLE_MATRIX_TEXTS + PADDLE_ND_TEXTS,
    "mindspore_adapter.py": [
        ((M27, MINDSPORE), RuntimeError,
         "For 'TensorScatterElements', the 'axis' should be less than input dims and greater than or equal 0, but got "
         "2, while input dims is: 2\n(MindSpore's log; the exception: "
         "----------------------------------------------------\n"
         "- Framework Unexpected Exception Raised:\n----------------------------------------------------\nThis "
         "exception is caused by framework's unexpected error.", "dim_out_of_range", "mindspore/scatter-dim/dim2"),
        ((M27, MINDSPORE), RuntimeError,
         "For 'TensorScatterElements', the indices dims should be less than input dims, but got indices dim is: 3 at "
         "axis: 1, while input dim is:2\n(MindSpore's log; the exception: "
         "----------------------------------------------------\n- Framework Unexpected Exception Raised:",
         "shape_mismatch", "mindspore/scatter-shape/index-over-self-apart-from-dim"),
        ((M27, MINDSPORE), RuntimeError,
         "For 'TensorScatterElements', the shape of 'indices' and the shape of 'updates' should be same, but got "
         "indices shape: [const vector]{3, 1}; updates shape: [const vector]{3, 2}.\n(MindSpore's log; the exception: "
         "----------------------------------------------------\n- Framework Unexpected Exception Raised:",
         "shape_mismatch", "mindspore/scatter-shape/index-over-self-along-dim-add"),
        # as the kernel raised it before the adapter read MindSpore's log (with_kernel_log)
        ((MINDSPORE,), RuntimeError,
         "----------------------------------------------------\n- Framework Unexpected Exception Raised:\n"
         "----------------------------------------------------\nThis exception is caused by framework's unexpected "
         "error. Please create an issue at https://gitee.com/mindspore/mindspore/issues to get help.\n\n"
         "----------------------------------------------------\n- Kernel build failed: (For framework developers)\n"
         "----------------------------------------------------\nCPU kernel op [Default/TensorScatterElements-op5] "
         "resize failed.", None, "mindspore/scatter-dim/dim2"),
        ((MINDSPORE,), ValueError,
         "Failed to convert the value \"mean\" of input 'reduce' of 'scatter_' to enum.\n\n"
         "----------------------------------------------------\n- C++ Call Stack: (For framework developers)\n"
         "----------------------------------------------------\nmindspore/ops/op_def/op_enum.cc:263 StringToEnumImpl",
         "invalid_reduce", "mindspore/scatter-args/reduce-mean"),
        ((M27, MINDSPORE), TypeError,
         "For primitive[TensorScatterElements], the input argument[indices type] must be a type of {Tensor[Int32], "
         "Tensor[Int64]}, but got Tensor[Float32].", "index_dtype", "mindspore/scatter-args/index-float32"),
        ((M27, MINDSPORE), ValueError,
         "For 'TensorScatterElements', the dimension of 'input_x', 'indice' and 'update' should be same, but got "
         "input_x shape: [const vector]{2, 2}; indice shape: [const vector]{2}; update shape: [const vector]{2, 2}.",
         "rank_mismatch", "mindspore/scatter-shape/rank-mismatch-index"),
        ((M27, MINDSPORE), TypeError,
         "For primitive[TensorScatterElements], the input type must be same.\nname:[input_x]:Tensor[Float32].\n"
         "name:[updates]:Tensor[Float64].", "dtype_mismatch", "mindspore/scatter-args/dtype-mismatch"),
        ((M27, MINDSPORE), ValueError,
         "For TensorScatterElements, 'input_x_shape', 'indices_shape' and 'updates_shape' dims must be greater than 1. "
         "but got input_x_shape:[const vector]{}, indices_shape:[const vector]{}, updates_shape: [const vector]{}.",
         "rank_mismatch", "mindspore/scatter-shape/rank0"),
        ((MINDSPORE,), ValueError,
         "For TensorScatterElements, 'input_x_shape', 'indices_shape' and 'updates_shape' dims must be greater than 1. "
         "but got input_x_shape:[const vector]{1}, indices_shape:[const vector]{}, updates_shape: [const vector]{1}.",
         "rank_mismatch", "fuzz repro-mindspore-e6e05f110931 (a rank-0 index on a rank-1 self, MS-S1)"),
        # the backward's GatherD (run_backward) on an index value the forward kernel took
        ((MINDSPORE,), RuntimeError,
         "For 'GatherD', the value of 'index' must be in [-4, 4), but got: 4\n\n"
         "----------------------------------------------------\n- C++ Call Stack: (For framework developers)\n"
         "----------------------------------------------------\nmindspore/ops/kernel/cpu/native/gather_d_cpu_kernel.cc:143 "
         "LaunchKernel", "index_out_of_bounds", "fuzz repro-mindspore-3ee67e402503"),
        ((MINDSPORE,), RuntimeError,
         "For grad interface or custom function, grad tensor should be broadcast to expected shape, but got [const "
         "vector]{} vs [const vector]{1}\n\n----------------------------------------------------\n- C++ Call Stack: "
         "(For framework developers)\n----------------------------------------------------\n"
         "mindspore/ccsrc/pynative/backward/grad_utils.cc:792 AutoCastAndReduce", "shape_mismatch",
         "fuzz repro-mindspore-7f3761520cfd"),
        # mindspore.vjp's checks of grad_output (its "sens"), run_backward
        ((MINDSPORE,), ValueError,
         "The shape should be [const vector]{2, 3}, but got [const vector]{1, 3}, , sens gradient abs "
         "AbstractTensor(shape: (1, 3), element: AbstractScalar(Type: Float32, Value: ValueAny, Shape: NoShape), "
         "value_ptr: 0x2c007540, value: Tensor(shape=[1, 3], dtype=Float32, value=",
         "shape_mismatch", "mindspore/backward/grad-output-shape-mismatch"),
        ((MINDSPORE,), TypeError,
         "The dtype should be Float32, but got Float64, , sens gradient abs AbstractTensor(shape: (2, 3), element: "
         "AbstractScalar(Type: Float64, Value: ValueAny, Shape: NoShape), value_ptr: 0x2ca47d30, value: "
         "Tensor(shape=[2, 3], dtype=Float64, value=",
         "dtype_mismatch", "mindspore/backward/grad-output-dtype-mismatch"),
    ] + MINDSPORE_MATRIX_TEXTS + MINDSPORE_ELEMENT_TEXTS,
    "onnxruntime_adapter.py": [
        ((ORT,), Exception,
         "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero status code returned while running GatherND node. Name:'' Status Message: invalid index found, index = 2",
         'index_out_of_bounds', 'onnx/gather-nd/index-too-large'),
        ((ORT,), Exception,
         "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero status code returned while running ScatterElements node. Name:'' Status Message: indices element out of data bounds, idx=-3 must be within the inclusive range [-2,1]",
         'index_out_of_bounds', 'direct call: ScatterElements index -3 on size 2'),
        ((ORT,), Exception,
         "[ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned while running GatherElements node. Name:'' Status Message: /onnxruntime_src/onnxruntime/core/providers/cpu/tensor/gather_elements.cc:150 void onnxruntime::core_impl(const Tensor*, const Tensor*, Tensor*, int64_t, concurrency::ThreadPool*) [with Tin = long int; int64_t = long int] GatherElements op: Out of range value in index tensor",
         'index_out_of_bounds', 'direct call: GatherElements index 2 on size 2'),
        ((ORT,), Exception,
         "[ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned while running GatherElements node. Name:'' Status Message: /onnxruntime_src/onnxruntime/core/providers/common.h:31 int64_t onnxruntime::HandleNegativeAxis(int64_t, int64_t) IsAxisInRange(axis, tensor_rank) was false. axis 2 is not in valid range [-2,1]",
         'dim_out_of_range', 'direct call: GatherElements axis 2 on rank 2'),
        ((ORT,), Exception,
         "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero status code returned while running GatherElements node. Name:'' Status Message: GatherElements op: Rank of input 'data' needs to be equal to rank of input 'indices'",
         'rank_mismatch', 'direct call: GatherElements rank-1 indices, rank-2 data'),
        ((ORT,), Exception,
         "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero status code returned while running ScatterElements node. Name:'' Status Message: Indices must have the same rank as Input. Indices rank=1. Input rank=2",
         'rank_mismatch', 'direct call: ScatterElements rank-1 indices'),
        ((ORT,), Exception,
         "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero status code returned while running GatherElements node. Name:'' Status Message: GatherElements op: 'indices' shape should have values within bounds of 'data' shape. Invalid value in indices shape is: 3",
         'shape_mismatch', 'direct call: GatherElements indices [1,3] on data [2,2]'),
        ((ORT,), Exception,
         "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero status code returned while running ScatterElements node. Name:'' Status Message: Indices vs updates dimensions differs at position=1 2 vs 3",
         'shape_mismatch', 'direct call: ScatterElements updates [1,3], indices [1,2]'),
        ((ORT,), Exception,
         "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero status code returned while running ScatterElements node. Name:'' Status Message: Indices dim=3 at pos=1 is greater than input dim=2",
         'shape_mismatch', 'direct call: ScatterElements indices [1,3] on data [2,2]'),
        ((ORT,), Exception,
         "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero status code returned while running GatherND node. Name:'' Status Message: last dimension of indices must not be larger than rank of input tensor",
         'shape_mismatch', 'onnx/gather-nd/k-exceeds-rank'),
        ((ORT,), Exception,
         "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero status code returned while running GatherND node. Name:'' Status Message: GatherND: indices batch size (3) is not divisible by input batch size (2)",
         'shape_mismatch', 'onnx/gather-nd/batch-shapes-differ'),
        ((ORT,), Exception,
         "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero status code returned while running ScatterND node. Name:'' Status Message: updates tensor should have shape equal to indices.shape[:-1] + data.shape[indices.shape[-1]:]. updates shape: {1,3}, indices shape: {1,1}, data shape: {2,2}",
         'shape_mismatch', 'onnx/scatter-nd/updates-shape'),
        ((ORT,), Exception,
         '[ONNXRuntimeError] : 10 : INVALID_GRAPH : This is an invalid model. In Node, ("", ScatterND, "", -1) : ("data": tensor(float),"indices": tensor(int64),"updates": tensor(float),) -> ("out": tensor(float),) , Error Unrecognized attribute: reduction for operator ScatterND',
         'invalid_reduce', 'onnx/scatter-nd/add-at-opset-13'),
        ((ORT,), Exception,
         '[ONNXRuntimeError] : 10 : INVALID_GRAPH : This is an invalid model. In Node, ("", GatherND, "", -1) : ("data": tensor(int64),"indices": tensor(int64),) -> ("out": tensor(int64),) , Error Unrecognized attribute: batch_dims for operator GatherND',
         'invalid_argument', 'onnx/gather-nd/batch-dims-opset-11'),
        ((ORT,), Exception,
         '[ONNXRuntimeError] : 10 : INVALID_GRAPH : This is an invalid model. In Node, ("", GatherND, "", -1) : ("data": tensor(int64),"indices": tensor(int64),) -> ("out": tensor(int64),) , Error No Op registered for GatherND with domain_version of 10',
         'invalid_argument', 'onnx/gather-nd/opset-10'),
        ((ORT,), Exception,
         '[ONNXRuntimeError] : 10 : INVALID_GRAPH : This is an invalid model. In Node, ("", Scatter, "", -1) : ("data": tensor(float),"indices": tensor(int64),"updates": tensor(float),) -> ("out": tensor(float),) , Error Op registered for Scatter is deprecated in domain_version of 11',
         'invalid_argument', 'direct call: Scatter at opset 11'),
        ((ORT,), Exception,
         "[ONNXRuntimeError] : 10 : INVALID_GRAPH : This is an invalid model. Type Error: Type 'tensor(int32)' of input parameter (indices) of operator (GatherND) in node () is invalid.",
         'index_dtype', 'onnx/gather-nd/indices-int32'),
        ((ORT,), Exception,
         "[ONNXRuntimeError] : 10 : INVALID_GRAPH : This is an invalid model. Type Error: Type 'tensor(bfloat16)' of input parameter (data) of operator (GatherND) in node () is invalid.",
         'unsupported_dtype', 'constructed from the indices text above (same check, data operand)'),
        ((ORT,), Exception,
         '[ONNXRuntimeError] : 1 : FAIL : Type Error: Type parameter (T) of Optype (ScatterND) bound to different types (tensor(float) and tensor(double) in node ().',
         'dtype_mismatch', 'onnx/scatter-nd/updates-dtype'),
    ],
    "onnx_reference_adapter.py": [
        ((ONNX,), IndexError, 'index 2 is out of bounds for axis 2 with size 2', 'index_out_of_bounds', 'onnx/gather-nd/index-too-large'),
        ((ONNX,), IndexError, 'too many indices for array: array is 3-dimensional, but 4 were indexed', 'shape_mismatch', 'onnx/gather-nd/k-exceeds-rank'),
        ((ONNX,), ValueError, 'Except for dimension 0, all dimensions of index and self should be the same size.', 'shape_mismatch', 'direct call: GatherElements indices [1,3] on data [2,2]'),
        ((ONNX,), ValueError, 'cannot reshape array of size 8 into shape (3,2,2)', 'shape_mismatch', 'onnx/gather-nd/batch-shapes-differ'),
        ((ONNX,), ValueError, 'could not broadcast input array from shape (3,) into shape (2,)', 'shape_mismatch', 'onnx/scatter-nd/updates-shape'),
        ((ONNX,), IndexError, 'only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices', 'index_dtype', 'onnx/scatter-elements/index-dtype-float'),
        ((ONNX,), IndexError, 'list assignment index out of range', 'dim_out_of_range', 'onnx/scatter-elements/axis-out-of-range'),
    ],
    # torch.compile's texts (torch_compile_adapter.py's own table, tried before torch_adapter.py's): meta functions,
    # Inductor's lowerings and kernels, measured through backend torch-compile-current (2026-11-27)
    "torch_compile_adapter.py": [
        ((T215,), RuntimeError, "Expected index torch.Size([2, 2]) to be no larger than self torch.Size([1, 1]) apart "
         "from dimension 0", "shape_mismatch", "multi-rule/scatter-add-shape-and-bounds/shape-mismatch"),
        ((T215,), RuntimeError, "Attempting to broadcast a dimension of length 3 at -1! Mismatching argument at index 1 had "
         "torch.Size([3]); but expected shape should be broadcastable to [4]", "shape_mismatch",
         "torch/backward/scatter-reduce/src-shape-mismatch-amax"),
        ((T215,), RuntimeError, "Dynamo failed to run FX node with fake tensors: call_function <built-in method index_add "
         "of type object at 0x7f1c7a2bc100>(*(FakeTensor(..., size=(3,), dtype=torch.int32), 0, ...), **{'alpha': 2.5}): "
         "got RuntimeError(\"alpha argument of type <class 'float'> cannot be safely cast to type <class 'int'>!\")",
         "value_out_of_range", "torch/index_add-alpha/int32-alpha-float-truncates"),
        ((T215,), AssertionError, "Broadcast failed in ExpandView([2], [2, 4]) on dimension 1", "shape_mismatch",
         "torch/index_add-broadcast/source-missing-dim"),
        ((T215,), AssertionError, "Expected len(new_size) == len(old_size)", "shape_mismatch",
         "torch/index_add-shape/source-rank-higher"),
        ((T215,), AssertionError, "indices must be int64, byte or bool. Got [torch.int16]", "index_dtype",
         "torch/index_add-index/index-int16"),
        ((T215,), RuntimeError, "Number of indices (2) should be equal to tensor.size(dim) (3), for dim=0", "shape_mismatch",
         "torch/index_add-shape/source-dim-length"),
        ((T215,), IndexError, "The shape of the mask [1] at index 0 does not match the shape of the indexed tensor [3, 4] "
         "at index 0", "shape_mismatch", "torch/index_copy-index/index-bool"),
        ((T215,), RuntimeError, "index_copy_(): When source and destination are not scalars, their dimensionality must "
         "match. Source dimensionality (1), destination dimensionality (2)", "shape_mismatch",
         "torch/index_copy-shape/source-rank"),
        ((T215,), IndexError, "list assignment index out of range\n\nfrom user code:\n   File \"adapters/torch_compile_adapter.py\""
         ", line 98, in sp_op_145", "dim_out_of_range", "torch/index_fill-dim/dim-too-large"),
        ((T215,), RuntimeError, "Dynamo failed to run FX node with fake tensors: call_function <built-in method "
         "take_along_dim of type object at 0x7fb8fd4bc100>(*(FakeTensor(..., size=(2, 3), dtype=torch.float64), ...), "
         "**{}): got ValueError('Cannot view a tensor with shape torch.Size([3, 4]) and strides (0, 1) as a tensor with "
         "shape (12,)!')", "invalid_argument", "fuzz/campaigns/torch-compile static, take_along_dim expanded indices"),
        ((T215,), IndexError, "The shape of the mask torch.Size([2]) at index 0 does not match the shape of the indexed "
         "tensor torch.Size([3, 4]) at index 0", "shape_mismatch", "torch/index_select-dtype/index-int8"),
        ((T215,), AssertionError, "expected size 9==6, stride 1==1 at dim=0\nError in op: input\nThis error most often "
         "comes from a incorrect fake (aka meta) kernel for a custom op.", "shape_mismatch",
         "torch/out/gather-out-overlaps-index"),
        ((T215,), RuntimeError, "Number of indices (s59) should be equal to tensor.size(dim) (s24), for dim=2",
         "shape_mismatch", "fuzz/campaigns/torch-compile/dynamic, index_reduce_ under dynamic=True"),
        ((T215,), RuntimeError, "shape mismatch: value tensor of shape [2, 4] cannot be broadcast to indexing result of "
         "shape [2, 2]", "shape_mismatch", "torch/regression/compile-index-copy-fill-index-put/fill-uint8-index-as-mask"),
        ((T215,), RuntimeError, "alpha argument of type <class 'torch.SymFloat'> cannot be safely cast to type <class "
         "'int'>!", "value_out_of_range", "torch/index_add-alpha/int32-alpha-float-truncates, dynamic=True"),
        ((T215,), RuntimeError, "Attempting to broadcast a dimension of length s69 at -1! Mismatching argument at index 1 "
         "had torch.Size([s69]); but expected shape should be broadcastable to [s24]", "shape_mismatch",
         "torch/backward/scatter-reduce/src-shape-mismatch-amax, dynamic=True"),
        ((T215,), RuntimeError, "aten::scatter_reduce_() Expected a value of type 'Tensor' for argument 'src' but instead "
         "found type 'int'.\nPosition: 3\nValue: 4", "invalid_argument",
         "torch/scatter-args/value-int-into-float32-multiply, dynamic=True"),
        ((T215,), RuntimeError, "tensors used as indices must be long, int, byte or bool tensors", "index_dtype",
         "multi-rule/index-select-dtype-and-bounds/index-dtype"),
        ((T215,), RuntimeError, "kernel, /tmp/torchinductor_root/lq/clqq55rekvasuszs26dbcu3tf7ysmdvoew7ve6roek75b4bhwydt"
         ".main.cpp:21, index out of bounds: 0 <= tmp2 < 2L", "index_out_of_bounds", "torch/gather/000-example-2-error"),
    ],
}
