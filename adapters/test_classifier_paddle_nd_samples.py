"""Samples for adapters/test_classifiers.py (CTest: adapter_classifiers): the texts PaddlePaddle printed for its ND
ops (paddle.gather_nd, scatter_nd, scatter_nd_add; specs/paddle/*_nd*.json, 2026-12-07) on 3.3.1 (.venv) and, through
scripts/version-matrix, 2.6.2 and 3.0.0. Same form as test_classifier_samples.py's samples: (versions measured,
exception class, text as the adapter saw it, the category it must get, the spec case that printed it).
"""

from test_classifier_matrix_samples import P26, P30

PADDLE = "3.3.1"

PADDLE_ND_TEXTS = [
    # paddle.gather_nd
    ((P26, P30), ValueError, "(InvalidArgument) The rank of Input(Index) should be greater than 1",
     "invalid_argument", "paddle/gather_nd/index-0d"),
    ((P26, P30, PADDLE), ValueError,
     "(InvalidArgument) Input(Index).shape[-1] should be no greater than Input(X).rank", "shape_mismatch",
     "paddle/gather_nd/q-above-rank"),
    ((P30, PADDLE), ValueError, "(InvalidArgument) The value of Input(index) must be no less than [-2]",
     "index_out_of_bounds", "paddle/gather_nd/negative-below-minus-s"),
    ((P26, P30, PADDLE), ValueError, "(InvalidArgument) Input(index[-1)] has wrong value, it is [3]",
     "index_out_of_bounds", "paddle/gather_nd/index-upper-bound"),
    ((P26, P30, PADDLE), ValueError,
     "(InvalidArgument) Index holds the wrong type, it holds [float32],but desires to be [int32] or [int64]",
     "index_dtype", "paddle/gather_nd/index-dtype-float"),
    ((PADDLE,), ValueError,
     "(InvalidArgument) Only support tensor with rank being between 0 and 7. But received tensor's rank = 8. (at "
     "/paddle/paddle/phi/kernels/impl/tile_kernel_impl.h:134)", "rank_limit", "regression/fuzz-paddle-707193699366"),
    # paddle.scatter_nd_add
    ((P26, P30, PADDLE), ValueError, "(InvalidArgument) When the updates is a 0d tensor, the index should be a 1d tensor.",
     "invalid_argument", "paddle/scatter_nd_add/index-0d"),
    ((P26, P30, PADDLE), ValueError,
     "(InvalidArgument) Updates has wrong shape. The shape of Updates and Input(Updates) should be same, but received "
     "the shape of Updates is 1, the shape of Input(Updates) is 2.", "rank_mismatch", "paddle/scatter_nd_add/updates-rank"),
    ((P30, PADDLE), TypeError, "x and updates must have same data type but x.dtype=int64, updates.dtype=int32",
     "dtype_mismatch", "paddle/scatter_nd_add/updates-dtype"),
    ((P26,), ValueError,
     "(InvalidArgument) The type of data we are trying to retrieve (int64) does not match the type of data (int32) "
     "currently contained in the container.", "dtype_mismatch", "paddle/scatter_nd_add/updates-dtype"),
    ((P26, P30, PADDLE), ValueError,
     "(InvalidArgument) Updates has wrong shape. The dimensions of Updates and Input(Updates) should match, but "
     "received Updates's0-th dimension is 1, Input(Updates)'s 0-th dimension is 2.", "shape_mismatch",
     "paddle/scatter_nd_add/updates-shape"),
    ((PADDLE,), IndexError,
     "(OutOfRange) The index is out of bounds, please check whether the dimensions of index and input meet the "
     "requirements. It should be less than [6] and greater or equal to [-6], but received [6]", "index_out_of_bounds",
     "paddle/scatter_nd_add/index-upper-bound"),
    # paddle.scatter_nd
    ((P26, P30, PADDLE), ValueError,
     "(InvalidArgument) Each value of attribute 'shape' is expected to be no less than 0. But received: shape[0] = -1; "
     "shape = [-1].", "invalid_argument", "paddle/scatter_nd/shape-negative"),
]
