// messages_torch.h — the torch dialect's message table: the one text of
// every PyTorch argument rule our implementations report, keyed by the
// clause of reference/SEMANTICS.md it states. The reference's checks
// (dialect_torch.cc, torch_out.cc) and every backend of our own (cpu, cuda:
// backends/common/arg_rules.cc and their kernels) take their messages from
// here, so a rule is worded once. Only the words are shared: each
// implementation still decides for itself whether the rule holds (a
// differential run keeps catching either one). The texts follow LibTorch's
// own messages where it has one (the adapters' real frameworks print those).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "reference/dtype.h"
#include "reference/tensor.h"

namespace sp::ref::torch_messages {

// The C++ type name c10 prints in "value cannot be converted to type ...".
std::string c10_type_name(DType t);

// T-D1: dim outside [-rank, rank).
std::string dim_out_of_range(int64_t dim, int64_t rank);
// T-I1 / T-I2: `op`'s index is not int64 (int32 too where `int32_too`).
std::string index_dtype(std::string_view op, bool int32_too);
// T-K1: self and src differ in dtype.
std::string src_dtype(std::string_view op);
// T-R1: reduce other than "add" / "multiply".
std::string reduce_add_or_multiply();
// T-RD3: scatter_reduce's reduce outside sum, prod, mean, amax, amin.
std::string scatter_reduce_mode();
// T-RD7: "mean" of a bool tensor.
std::string reduce_mean_bool();
// T-S2 / T-G3: index's rank differs from `other`'s ("self", "input").
std::string index_rank(std::string_view other);
// T-S3 / T-S4: index larger than self apart from dim (or than src).
std::string scatter_index_shape(const Tensor& self, const Tensor& index, const Tensor* src, int64_t dim);
// T-G4: index larger than input at dimension `d` != dim.
std::string gather_index_shape(int64_t d, const Tensor& index, const Tensor& input, int64_t dim);
// T-O1 / T-OUT2: elements of the written-to tensor share memory.
std::string internal_overlap();
// T-OUT3: out shares memory with an operand.
std::string out_overlaps_operand();
// T-OUT1: out's dtype is not the result's.
std::string out_dtype(DType result, DType out);
// T-V1, T-IA9, T-IF4: a scalar that does not fit the tensor's dtype.
std::string value_overflow(DType t);
// T-B1, T-IF5: an index value outside the dim.
std::string index_out_of_bounds(int64_t value, int64_t dim, int64_t size);
// T-IS6, T-IA10: an index value outside self (the index ops' check).
std::string index_out_of_range_in_self();

// index_add_ / index_reduce_ (T-IA2..T-IA8, T-IA14).
std::string index_add_index_rank(int64_t rank);                                                        // T-IA2
std::string index_add_index_dtype(DType index);                                                        // T-IA3
std::string index_add_source_dtype(DType self, DType source);                                          // T-IA4
std::string index_add_source_has_dim(int64_t dim, int64_t rank);                                       // T-IA5
std::string index_add_source_length(int64_t n, int64_t along, int64_t dim);                            // T-IA6
std::string index_add_source_shape(const Tensor& self, const Tensor& source, int64_t dim, int64_t n);  // T-IA8
std::string index_add_source_shape_physical(const Tensor& self, const Tensor& source);                 // T-IA14
// index_copy_ (T-IC2..T-IC5, T-IC7).
std::string index_copy_index_rank(int64_t rank);                                                        // T-IC2
std::string index_copy_index_dtype(DType index);                                                        // T-IC3
std::string index_copy_source_dtype(DType self, DType source);                                          // T-IC4
std::string index_copy_source_shape(const Tensor& self, const Tensor& source, int64_t dim, int64_t n);  // T-IC5
std::string index_copy_out_of_bounds(int64_t value, int64_t dim, int64_t size);                         // T-IC7
// index_fill_ (T-IF2, T-IF3).
std::string index_fill_index_dtype();  // T-IF2
std::string index_fill_index_rank();   // T-IF3
// index_reduce_ (T-IR3).
std::string index_reduce_mode(std::string_view reduce);
// index_select (T-IS3, T-IS4; T-IS7 as our backends refuse it).
std::string index_select_index_rank();                 // T-IS3
std::string index_select_index_dtype();                // T-IS4
std::string index_select_scalar_count(int64_t count);  // T-IS7
// take_along_dim (T-TA3, T-TA4 / T-TA12, T-TA5).
std::string take_along_dim_rank(int64_t input_rank, int64_t indices_rank);  // T-TA3
std::string take_along_dim_indices_dtype(DType indices);                    // T-TA4
std::string broadcast_size(int64_t a, int64_t b, int64_t d);                // T-TA5

}  // namespace sp::ref::torch_messages
