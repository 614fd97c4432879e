// spec_cases.cc — stage 3 of the spec loader (spec_loader_internal.h): one
// schema-valid case into a Case. Everything about ops comes from the op
// table (reference/op_table.h): which operands and arguments an op takes,
// each argument's type, the either-operand-or-argument rules
// (check_signature), and the dtype of the output.
#include <algorithm>
#include <limits>

#include "harness/spec_loader.h"
#include "harness/spec_loader_internal.h"
#include "reference/op_table.h"
#include "reference/versions.h"

namespace sp::spec_internal {

Scalar scalar_from_json(const json& v, const std::string& field) {
  if (v.is_boolean()) return Scalar::of_bool(v.get<bool>());
  if (v.is_number_integer()) return Scalar::of_int(json_int64(v, field));
  if (v.is_number_float()) return Scalar::of_float(v.get<double>());
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "nan") return Scalar::of_float(std::numeric_limits<double>::quiet_NaN());
    if (s == "inf") return Scalar::of_float(std::numeric_limits<double>::infinity());
    if (s == "-inf") return Scalar::of_float(-std::numeric_limits<double>::infinity());
    if (s == "-0.0") return Scalar::of_float(-0.0);
  }
  fail(field, "expected true/false, a number, \"nan\", \"inf\", \"-inf\" or \"-0.0\", got " + excerpt(v));
}

// One argument as its ArgSpec types it. The schema already gave each name
// its JSON type (an argument name has one type across the table); these
// checks keep the loader right on its own, e.g. for the fuzz target.
Arg arg_from_json(const ArgSpec& spec, const json& v, const std::string& field) {
  switch (spec.type) {
    case Arg::Type::Int:
      return Arg::of_int(json_int64(v, field));
    case Arg::Type::Bool:
      if (!v.is_boolean()) fail(field, "expected true or false, got " + excerpt(v));
      return Arg::of_bool(v.get<bool>());
    case Arg::Type::String:
      if (!v.is_string()) fail(field, "expected a string, got " + excerpt(v));
      return Arg::of_string(v.get<std::string>());
    case Arg::Type::Scalar:
      return Arg::of_scalar(scalar_from_json(v, field));
    case Arg::Type::IntList: {
      if (!v.is_array()) fail(field, "expected an array of integers, got " + excerpt(v));
      std::vector<int64_t> ints;
      for (size_t k = 0; k < v.size(); ++k) ints.push_back(json_int64(v[k], field + "[" + std::to_string(k) + "]"));
      return Arg::of_ints(std::move(ints));
    }
  }
  fail(field, "argument of an unknown type");
}

namespace {

std::string string_or_empty(const json& object, const char* key) {
  return object.is_object() && object.contains(key) ? object[key].get<std::string>() : std::string();
}

std::string names_of(const auto& specs) {
  std::string names;
  for (const auto& s : specs) names += (names.empty() ? "" : ", ") + s.name;
  return names.empty() ? std::string("none") : names;
}

class CaseBuilder {
 public:
  CaseBuilder(const json& j, std::string path, const json& file_source, const std::string& file)
      : j_(j), path_(std::move(path)), file_source_(file_source), file_(file) {}

  Case build() {
    Case c;
    c.id = j_.at("id").get<std::string>();
    c.file = file_;
    if (j_.contains("program")) return build_program(std::move(c));
    if (j_.contains("expect") && j_["expect"].contains("outputs"))
      fail(field("expect.outputs"), "names a program's compared tensors: this case has no program (use output)");
    c.call.op = j_.at("op").get<std::string>();
    const OpSpec* op = find_op(c.call.op);  // the id is the input here
    if (!op) fail(field("op"), "unknown op \"" + excerpt(c.call.op) + "\"");
    if (j_.contains("tags")) c.tags = j_["tags"].get<std::vector<std::string>>();
    if (std::find(c.tags.begin(), c.tags.end(), kHugeTag) != c.tags.end()) {
      if (huge_case_budget() == 0) return not_run_huge(std::move(c));
      limits_ = huge_case_limits(huge_case_budget());
      element_budget_ = limits_.case_elements;
      storage_budget_ = limits_.case_storage_bytes;
    }
    if (!op->backward_of.empty())
      fail(field("op"), c.call.op + " is a backward op: name the forward op " + op->backward_of +
                            " and ask for its gradients with a backward block");
    c.source = provenance();
    c.call.framework_version = c.source.doc_version;
    // A backward case runs the op's backward (`<op>.backward`): the forward
    // operands plus backward.grad_output; its expectation is backward.expect.
    const OpSpec* run_op = op;
    if (j_.contains("backward")) {
      run_op = backward_op(*op);
      if (!run_op) fail(field("backward"), op->id + " has no documented backward (" + ops_with_backward() + " have)");
      if (j_.contains("expect"))
        fail(field("expect"), "a backward case gives what is expected in backward.expect, not here");
      c.call.op = run_op->id;
    } else if (!j_.contains("expect")) {
      fail(field("expect"), "missing: every case says what is expected (or asks for a backward)");
    }
    read_args(*run_op, c.call);
    read_inputs(*run_op, c.call);  // checks the call's signature (check_signature)
    c.call.spec = run_op;          // bound: nothing downstream resolves or checks it again
    check_output_size(*run_op, c.call);
    const Tensor* dtype_source = c.call.tensor(op->output_dtype_of);
    const std::optional<DType> output_dtype = dtype_source ? std::optional(dtype_source->dtype()) : std::nullopt;
    c.expect = run_op == op ? read_expect(output_dtype) : read_backward_expect(*run_op, c.call);
    if (j_.contains("erratum")) {
      const json& e = j_["erratum"];
      Erratum erratum{e.at("document").get<std::string>(), e.at("claim").get<std::string>(), std::nullopt};
      if (e.contains("claimed_output"))
        erratum.claimed_output = tensor(e["claimed_output"], join_path(path_, "erratum.claimed_output"), output_dtype);
      c.erratum = std::move(erratum);
    }
    if (j_.contains("versions")) read_versions(*op, c);
    return c;
  }

  // A huge case in a run that does not allow them: what identifies it, and
  // why it does not run; its tensors are never built.
  Case not_run_huge(Case c) const {
    c.source = provenance();
    c.not_run = "a huge case (tag huge: beyond the limit of " + std::to_string(kMaxTensorElements) +
                " elements a tensor): not run without --allow-huge BUDGET (specs/FORMAT.md, \"Huge cases\")";
    return c;
  }

 private:
  std::string field(std::string_view member) const { return join_path(path_, member); }

  // A program case (reference/program.h, FORMAT.md "Programs"): its steps
  // from spec_program.cc, the rest of the case as for one op.
  Case build_program(Case c) {
    for (const char* other : {"op", "args", "inputs", "backward", "erratum"})
      if (j_.contains(other))
        fail(field(other), "a program case gives its ops and tensors in program, and has no backward or erratum");
    if (!j_.contains("expect")) fail(field("expect"), "missing: every case says what is expected");
    c.source = provenance();
    LoadedProgram lp = read_program(j_["program"], field("program"),
                                    [&](const json& t, const std::string& at) { return tensor(t, at, std::nullopt); });
    lp.program->framework_version = c.source.doc_version;
    c.call.op = std::string(kProgramOp);
    c.call.framework_version = c.source.doc_version;
    c.call.tensors = lp.program->inputs;
    c.expect = read_program_expect(*lp.program, lp.result_dtypes);
    if (j_.contains("tags")) c.tags = j_["tags"].get<std::vector<std::string>>();
    for (const ProgramStep& s : lp.program->steps)
      if (const OpSpec* op = find_op(s.call); op && j_.contains("versions")) {
        read_versions(*op, c);
        break;
      }
    c.program = std::move(lp.program);
    return c;
  }

  // expect.outputs: every compared name (program.expect) with its tensor,
  // each defaulting to that tensor's dtype; or an error / unspecified.
  CaseExpect read_program_expect(const Program& p, const std::map<std::string, DType>& dtypes) {
    const json& e = j_["expect"];
    if (e.contains("output") || e.contains("one_of"))
      fail(field(e.contains("output") ? "expect.output" : "expect.one_of"),
           "a program gives its compared tensors by name, in expect.outputs");
    if (!e.contains("outputs")) return read_expect_object(e, "expect", std::nullopt);
    CaseExpect expect;
    expect.kind = CaseExpect::Kind::Output;
    std::string listed;
    for (const std::string& name : p.expect) listed += (listed.empty() ? "" : ", ") + name;
    for (const auto& [name, value] : e["outputs"].items())
      if (std::find(p.expect.begin(), p.expect.end(), name) == p.expect.end())
        fail(field("expect.outputs." + name),
             "is not a compared tensor of the program (program.expect: " + listed + ")");
    for (const std::string& name : p.expect) {
      if (!e["outputs"].contains(name))
        fail(field("expect.outputs"), "misses " + name + " (give every compared tensor: " + listed + ")");
      expect.outputs.push_back(tensor(e["outputs"][name], field("expect.outputs." + name), dtypes.at(name)));
      expect.output_names.push_back(name);
    }
    if (e.contains("atol")) expect.atol = e["atol"].get<double>();
    return expect;
  }

  // An output larger than its operands (index_select's rows repeated by a
  // long index, take_along_dim's broadcast, GatherND's slices) is bounded
  // too: the reference and every backend would allocate it.
  void check_output_size(const OpSpec& op, const OpCall& call) const {
    if (op.in_place || !op.backward_of.empty()) return;  // self, or gradients shaped like the operands
    const std::optional<Shape> shape = output_shape_of(op, call);
    if (!shape) return;  // the call is invalid: the reference says which rule it breaks
    int64_t numel = 1;
    for (int64_t d : *shape)
      if (d < 0 || __builtin_mul_overflow(numel, d, &numel) || numel > limits_.output_elements)
        fail(field("inputs"), op.id + "'s output would have shape " + format_shape(*shape) + ", over the limit of " +
                                  std::to_string(limits_.output_elements) + " elements for an output");
    const Tensor* like = call.tensor(op.output_dtype_of);
    const int64_t bytes_each = like ? static_cast<int64_t>(dtype_size(like->dtype())) : 8;
    if (numel > limits_.output_bytes / bytes_each)
      fail(field("inputs"), op.id + "'s output would take " + std::to_string(numel) + " x " +
                                std::to_string(bytes_each) + " bytes, over the huge-case budget's quarter (" +
                                std::to_string(limits_.output_bytes) + " bytes)");
  }

  // The case's source over the file's default source, field by field.
  Provenance provenance() const {
    const json none = json::object();
    const json& own = j_.contains("source") ? j_["source"] : none;
    auto pick = [&](const char* key) {
      std::string value = string_or_empty(own, key);
      return value.empty() ? string_or_empty(file_source_, key) : value;
    };
    Provenance p{pick("document"), pick("example"), pick("doc_version"), pick("kind")};
    if (p.document.empty())
      fail(field("source.document"), "missing: every case names its document (in the case or the file's source)");
    return p;
  }

  // "versions": a readable range that holds the case's own version (its
  // source.doc_version, or the framework's baseline), at which the document
  // check runs.
  void read_versions(const OpSpec& op, Case& c) const {
    c.versions = j_["versions"].get<std::string>();
    std::string why;
    const std::optional<ref::VersionRange> range = ref::parse_version_range(c.versions, &why);
    if (!range) fail(field("versions"), why);
    std::optional<ref::Version> own;
    try {
      own = ref::effective_version(op.dialect, c.call.framework_version);
    } catch (const std::invalid_argument& e) {
      fail(field("source.doc_version"), e.what());
    }
    if (!range->contains(*own))
      fail(field("versions"), "the case's own version " + op.dialect + " " + own->to_string() +
                                  " (source.doc_version, or the baseline when it has none) is outside \"" +
                                  excerpt(c.versions) + "\": the document check runs at it");
  }

  void read_args(const OpSpec& op, OpCall& call) const {
    if (!j_.contains("args")) return;
    for (const auto& [name, value] : j_["args"].items()) {
      const ArgSpec* spec = op.arg(name);
      if (!spec)
        fail(field("args." + name),
             op.id + " takes no argument " + excerpt(name) + " (its arguments: " + names_of(op.args) + ")");
      call.set_arg(name, arg_from_json(*spec, value, field("args." + name)));
    }
  }

  // Operand names and the signature's presence rules are checked on
  // placeholders first, so a case with a missing operand is named for that
  // before any tensor is built.
  void read_inputs(const OpSpec& op, OpCall& call) {
    const json& inputs = j_.at("inputs");
    const bool backward = !op.backward_of.empty();
    for (const auto& [name, value] : inputs.items()) {
      if (backward && name == kGradOutput)
        fail(field("inputs." + name), "the upstream gradient goes in backward.grad_output");
      if (!op.operand(name))
        fail(field("inputs." + name),
             op.id + " has no operand " + excerpt(name) + " (its operands: " + names_of(op.operands) + ")");
      call.tensors.emplace(name, Tensor());
    }
    if (backward) call.tensors.emplace(kGradOutput, Tensor());
    if (const std::optional<SignatureProblem> problem = check_signature(call))
      fail(field(problem->field), problem->message);
    for (const auto& [name, value] : inputs.items())
      if (!value.contains("view_of")) call.tensors[name] = tensor(value, field("inputs." + name), std::nullopt);
    for (const auto& [name, value] : inputs.items())
      if (value.contains("view_of")) call.tensors[name] = view(inputs, name, value, call);
    if (backward)
      call.tensors[std::string(kGradOutput)] =
          tensor(j_["backward"]["grad_output"], field("backward.grad_output"), std::nullopt);
  }

  // backward.expect: {"grads": {OPERAND: tensor, ...}} (one per
  // differentiable operand the call passes, each defaulting to its
  // operand's dtype), {"error": ...} or {"unspecified": ...}.
  CaseExpect read_backward_expect(const OpSpec& op, const OpCall& call) {
    const json& e = j_["backward"]["expect"];
    if (!e.contains("grads")) return read_expect_object(e, "backward.expect", std::nullopt);
    CaseExpect expect;
    expect.kind = CaseExpect::Kind::Output;
    const std::vector<std::string> wanted = grad_operands(op, call);
    std::string listed;
    for (const std::string& name : wanted) listed += (listed.empty() ? "" : ", ") + name;
    for (const auto& [name, value] : e["grads"].items())
      if (std::find(wanted.begin(), wanted.end(), name) == wanted.end())
        fail(field("backward.expect.grads." + name),
             "is not a differentiable operand of this call (the gradients it has: " + listed + ")");
    for (const std::string& name : wanted) {
      if (!e["grads"].contains(name))
        fail(field("backward.expect.grads"), "misses " + name + " (give every gradient: " + listed + ")");
      expect.outputs.push_back(
          tensor(e["grads"][name], field("backward.expect.grads." + name), call.tensor(name)->dtype()));
      expect.output_names.push_back(grad_name(name));
    }
    if (e.contains("atol")) expect.atol = e["atol"].get<double>();
    return expect;
  }

  static std::string ops_with_backward() {
    std::string names;
    for (const OpSpec& o : op_table())
      if (!o.backward_of.empty()) names += (names.empty() ? "" : ", ") + o.backward_of;
    return names;
  }

  // {"view_of": OPERAND, "shape", "strides"?, "offset"?}: a view of another
  // operand's storage, in its dtype (FORMAT.md, "Views into another operand").
  Tensor view(const json& inputs, const std::string& name, const json& v, const OpCall& call) {
    const std::string path = field("inputs." + name);
    const std::string of = v["view_of"].get<std::string>();
    if (of == name || !inputs.contains(of))
      fail(join_path(path, "view_of"), "names " + excerpt(of) + ", which is not another operand of this case");
    if (inputs[of].contains("view_of"))
      fail(join_path(path, "view_of"),
           "names " + excerpt(of) + ", which is itself a view: name the operand that owns the storage");
    const Tensor& owner = call.tensors.at(of);
    const Shape shape = json_dims(v["shape"], join_path(path, "shape"));
    const int64_t numel = checked_numel(shape);
    if (numel < 0 || numel > element_budget_)
      fail(join_path(path, "shape"),
           "the case's tensors hold more than " + std::to_string(limits_.case_elements) + " elements in all");
    element_budget_ -= numel;
    const Shape strides =
        v.contains("strides") ? json_dims(v["strides"], join_path(path, "strides")) : contiguous_strides(shape);
    if (strides.size() != shape.size())
      fail(join_path(path, "strides"),
           "has " + std::to_string(strides.size()) + " entries for a rank-" + std::to_string(shape.size()) + " shape");
    const int64_t offset = v.contains("offset") ? json_int64(v["offset"], join_path(path, "offset")) : 0;
    try {
      return Tensor::view(owner.dtype(), shape, strides, offset, owner.storage());
    } catch (const std::invalid_argument& e) {
      fail(path, std::string("view outside the storage of ") + excerpt(of) + ": " + e.what());
    }
  }

  CaseExpect read_expect(std::optional<DType> output_dtype) {
    return read_expect_object(j_.at("expect"), "expect", output_dtype);
  }

  CaseExpect read_expect_object(const json& e, const std::string& at, std::optional<DType> output_dtype) {
    auto field = [&](std::string_view member) { return join_path(path_, at + std::string(member).substr(6)); };
    CaseExpect expect;
    if (e.contains("output")) {
      expect.kind = CaseExpect::Kind::Output;
      expect.outputs.push_back(tensor(e["output"], field("expect.output"), output_dtype));
    } else if (e.contains("one_of")) {
      expect.kind = CaseExpect::Kind::OneOf;
      for (size_t i = 0; i < e["one_of"].size(); ++i)
        expect.outputs.push_back(tensor(e["one_of"][i], indexed(field("expect.one_of"), i), output_dtype));
    } else if (e.contains("error")) {
      expect.kind = CaseExpect::Kind::Error;
      const std::string name = e["error"].get<std::string>();
      expect.error = error_from_name(name);
      if (!expect.error) fail(field("expect.error"), "unknown error category \"" + excerpt(name) + "\"");
      expect.text = string_or_empty(e, "message");
    } else if (e.contains("unspecified")) {
      expect.kind = CaseExpect::Kind::Unspecified;
      expect.text = e["unspecified"].get<std::string>();
    } else {
      fail(field("expect"), at == "expect" ? "needs one of output, one_of, error, unspecified"
                                           : "needs one of grads, error, unspecified");
    }
    if (e.contains("atol")) expect.atol = e["atol"].get<double>();
    return expect;
  }

  Tensor tensor(const json& t, const std::string& path, std::optional<DType> default_dtype) {
    std::optional<DType> dtype = default_dtype;
    if (t.contains("dtype")) {
      const std::string name = t["dtype"].get<std::string>();
      dtype = dtype_from_name(name);
      if (!dtype) fail(join_path(path, "dtype"), "unknown dtype \"" + excerpt(name) + "\"");
    }
    if (!dtype) fail(join_path(path, "dtype"), "missing, and there is no operand to take it from");
    Tensor built = build_tensor(t, path, *dtype, element_budget_, limits_);
    // Each tensor built here owns its storage (a view_of operand shares
    // another's and is not counted); the per-tensor limit bounded what this
    // allocation cost, the case's total is checked now.
    const auto bytes = static_cast<int64_t>(built.storage()->size());
    if (bytes > storage_budget_)
      fail(join_path(path, t.contains("storage")  ? "storage"
                           : t.contains("offset") ? "offset"
                                                  : "shape"),
           "the case's tensors need more than " + std::to_string(limits_.case_storage_bytes) +
               " bytes of storage in all (this one " + std::to_string(bytes) + ")");
    storage_budget_ -= bytes;
    return built;
  }

  const json& j_;
  const std::string path_;
  const json& file_source_;
  const std::string& file_;
  CaseLimits limits_;
  int64_t element_budget_ = kMaxCaseElements;
  int64_t storage_budget_ = kMaxCaseStorageBytes;
};

}  // namespace

Case build_case(const json& j, const std::string& path, const json& file_source, const std::string& file) {
  return CaseBuilder(j, path, file_source, file).build();
}

}  // namespace sp::spec_internal
