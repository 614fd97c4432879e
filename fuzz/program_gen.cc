// program_gen.cc — programs drawn from the choice stream (program_gen.h).
#include "fuzz/program_gen.h"

#include <algorithm>
#include <stdexcept>

#include "fuzz/gen_detail.h"

namespace sp::fuzz {

namespace {

// The ops that write a buffer: PyTorch's scatter and index_* ops, in place
// and their out-of-place twins (op_table order, so choice 0 is the first).
const std::vector<const OpSpec*>& write_ops() {
  static const std::vector<const OpSpec*> ops = [] {
    std::vector<const OpSpec*> found;
    for (const OpSpec& op : op_table())
      if (op.dialect == "torch" && op.backward_of.empty() && (op.in_place || !op.twin.empty())) found.push_back(&op);
    return found;
  }();
  return ops;
}

// `call` (its signature fits) as a step: bound once, tensors left out, each
// operand naming `names[operand]`.
ProgramStep op_step(std::string let, OpCall call, const std::map<std::string, std::string>& names) {
  call.framework_version.clear();  // the program's version applies
  if (const std::optional<SignatureProblem> p = bind_call(call))
    throw std::logic_error("generated program step " + call.op + ": " + p->field + ": " + p->message);
  ProgramStep step;
  step.let = std::move(let);
  step.op = call.op;
  for (const auto& [operand, t] : call.tensors) step.operands.emplace(operand, names.at(operand));
  call.tensors.clear();
  step.call = std::move(call);
  return step;
}

ProgramStep view_step(Choices& c, const std::string& of, Shape& shape) {
  ProgramStep step;
  step.let = "v";
  step.operands.emplace("self", of);
  const auto rank = static_cast<uint32_t>(shape.size());
  if (rank >= 2 && c.below(2) == 0) {
    const int64_t d0 = c.below(rank), d1 = c.below(rank);
    step.op = step.call.op = "view.transpose";
    step.call.set_arg("dim0", Arg::of_int(d0));
    step.call.set_arg("dim1", Arg::of_int(d1));
    std::swap(shape[static_cast<size_t>(d0)], shape[static_cast<size_t>(d1)]);
  } else {
    const auto d = static_cast<size_t>(c.below(rank));
    const int64_t start = c.between(0, shape[d]), length = c.between(0, shape[d] - start);
    step.op = step.call.op = "view.narrow";
    step.call.set_arg("dim", Arg::of_int(static_cast<int64_t>(d)));
    step.call.set_arg("start", Arg::of_int(start));
    step.call.set_arg("length", Arg::of_int(length));
    shape[d] = length;
  }
  return step;
}

// A read of `buffer` (shape `shape`): its call with the buffer as a
// stand-in, the index named "r_index" / "r_indices" in `inputs`.
OpCall read_call(Choices& c, const Tensor& buffer, std::map<std::string, Tensor>& inputs) {
  const Shape& s = buffer.shape();
  const auto rank = static_cast<int64_t>(s.size());
  static const char* const kReads[] = {"torch.gather", "torch.index_select", "torch.take_along_dim"};
  OpCall call;
  call.op = rank == 0 ? "torch.index_select" : kReads[c.below(3)];
  const int64_t dim = rank == 0 ? 0 : c.below(static_cast<uint32_t>(rank));
  const int64_t along = rank == 0 ? 1 : s[static_cast<size_t>(dim)];
  call.set_arg("dim", Arg::of_int(dim));
  call.tensors["input"] = buffer;
  Shape index_shape;
  if (call.op == "torch.gather") {
    index_shape = gen::index_shape_within(c, s, dim);
  } else if (call.op == "torch.index_select") {
    index_shape = Shape{c.between(0, 4)};
  } else {
    for (int64_t d = 0; d < rank; ++d)
      index_shape.push_back(d == dim ? c.between(1, 3) : (c.chance(20) ? 1 : s[static_cast<size_t>(d)]));
  }
  const std::string operand = call.op == "torch.take_along_dim" ? "indices" : "index";
  Tensor index = gen::index_tensor(c, DType::Int64, index_shape, along, false);
  inputs["r_" + operand] = index;
  call.tensors[operand] = index;
  return call;
}

}  // namespace

Program generate_program(Choices& c) {
  Program p;
  const std::vector<const OpSpec*>& writes = write_ops();
  if (writes.empty()) throw std::logic_error("generate_program: the op table has no PyTorch write op");
  OpCall write = generate_call_for(c, *writes[c.below(static_cast<uint32_t>(writes.size()))]);
  write.tensors.erase("out");
  p.framework_version = write.framework_version;
  std::map<std::string, std::string> names;
  for (const auto& [operand, t] : write.tensors) {
    names[operand] = "w_" + operand;
    p.inputs.emplace("w_" + operand, t.clone_storage());  // each input owns its storage
  }
  const bool in_place = is_inplace_op(write);
  const Tensor self = p.inputs.at(names.at("self"));
  std::string buffer = in_place ? names.at("self") : "y";
  p.steps.push_back(op_step(in_place ? "" : "y", write, names));
  Shape shape = self.shape();
  if (!shape.empty() && c.chance(30)) {
    p.steps.push_back(view_step(c, buffer, shape));
    buffer = "v";
  }
  // The read, drawn against the buffer's shape (a stand-in of it: only its shape and dtype are read).
  const Tensor stand_in = Tensor::zeros(self.dtype(), shape);
  std::map<std::string, Tensor> read_inputs;
  OpCall read = read_call(c, stand_in, read_inputs);
  for (auto& [name, t] : read_inputs) p.inputs.emplace(name, std::move(t));
  const std::string index_name = read.tensor("index") ? "r_index" : "r_indices";
  const std::string index_operand = read.tensor("index") ? "index" : "indices";
  p.steps.push_back(op_step("z", read, {{"input", buffer}, {index_operand, index_name}}));
  // A write back into the buffer that reads the read's result (in place, after an out-of-place write too).
  if (read.op != "torch.take_along_dim" && c.chance(40)) {
    OpCall back;
    back.op = read.op == "torch.gather" ? "torch.scatter_add_" : "torch.index_add_";
    back.set_arg("dim", *read.arg("dim"));
    back.tensors = {{"self", stand_in},
                    {"index", *read.tensor("index")},
                    {back.op == "torch.index_add_" ? "source" : "src", stand_in}};
    p.steps.push_back(op_step("", back, {{"self", buffer}, {"index", "r_index"}, {"source", "z"}, {"src", "z"}}));
  }
  for (const ProgramStep& s : p.steps)  // every name a step defines or writes, once (the loader's default)
    if (std::find(p.expect.begin(), p.expect.end(), s.written()) == p.expect.end()) p.expect.push_back(s.written());
  return p;
}

}  // namespace sp::fuzz
