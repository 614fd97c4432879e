// spec_program.cc — stage 3 of the spec loader (spec_loader_internal.h) for
// a case's "program" (reference/program.h, specs/FORMAT.md "Programs"):
// inputs, steps and compared names into a Program, and back to JSON.
//
// Every step is checked where it stands, naming its field
// (`cases[0].program.steps[1].operands.index`): its op in the op table (or
// a view op), its operands those of the op and each naming a tensor defined
// before the step, its arguments typed by the op table, and its signature
// (bind_call, on placeholders of the named tensors' dtypes and shapes, so
// the call is bound once here and nothing downstream checks it again). The
// shapes and dtypes of the steps' results are followed through the op
// table's output shape rules, so a view's arguments and an output's size
// are checked before anything runs.
#include <algorithm>
#include <set>

#include "harness/spec_loader.h"
#include "harness/spec_loader_internal.h"
#include "reference/op_table.h"

namespace sp::spec_internal {

namespace {

// What the loader knows of a named tensor before anything runs.
struct Known {
  DType dtype = DType::Float32;
  std::optional<Shape> shape;  // nullopt: the step making it breaks a rule (the reference says which)
};

// A stand-in with `k`'s dtype and shape over one element (stride 0), for
// the signature check and the output shape rules, which read no values.
Tensor placeholder(const Known& k) {
  const Shape shape = k.shape ? *k.shape : Shape{};
  auto storage = std::make_shared<std::vector<std::byte>>(dtype_size(k.dtype));
  return Tensor::view(k.dtype, shape, Shape(shape.size(), 0), 0, storage);
}

std::string defined_names(const std::map<std::string, Known>& known) {
  std::string s;
  for (const auto& [name, k] : known) s += (s.empty() ? "" : ", ") + name;
  return s;
}

class ProgramReader {
 public:
  ProgramReader(const json& p, std::string path) : p_(p), path_(std::move(path)) {}

  LoadedProgram read(const InputBuilder& build_input) {
    auto program = std::make_shared<Program>();
    for (const auto& [name, value] : p_.at("inputs").items()) {
      Tensor t = build_input(value, field("inputs." + name));
      known_[name] = Known{t.dtype(), t.shape()};
      program->inputs.emplace(name, std::move(t));
    }
    const json& steps = p_.at("steps");
    if (steps.size() < static_cast<size_t>(kMinProgramSteps) || steps.size() > static_cast<size_t>(kMaxProgramSteps))
      fail(field("steps"), "a program has " + std::to_string(kMinProgramSteps) + " to " +
                               std::to_string(kMaxProgramSteps) + " steps, this one " + std::to_string(steps.size()));
    std::vector<std::string> written;
    for (size_t k = 0; k < steps.size(); ++k) {
      ProgramStep step = read_step(steps[k], indexed(field("steps"), k));
      if (std::find(written.begin(), written.end(), step.written()) == written.end()) written.push_back(step.written());
      program->steps.push_back(std::move(step));
    }
    program->expect = p_.contains("expect") ? read_expect() : written;
    LoadedProgram loaded{std::move(program), {}};
    for (const std::string& name : loaded.program->expect) loaded.result_dtypes[name] = known_.at(name).dtype;
    return loaded;
  }

 private:
  std::string field(std::string_view member) const { return join_path(path_, member); }

  std::vector<std::string> read_expect() {
    std::vector<std::string> names;
    for (size_t i = 0; i < p_["expect"].size(); ++i) {
      const std::string name = p_["expect"][i].get<std::string>();
      if (!known_.count(name))
        fail(indexed(field("expect"), i),
             "names " + excerpt(name) + ", which the program never defines (defined: " + defined_names(known_) + ")");
      if (std::find(names.begin(), names.end(), name) != names.end())
        fail(indexed(field("expect"), i), "names " + name + " twice");
      names.push_back(name);
    }
    return names;
  }

  // The name an operand reads: defined before this step.
  const Known& operand_name(const std::string& at, const json& v) {
    const std::string name = v.get<std::string>();
    auto it = known_.find(name);
    if (it == known_.end())
      fail(at, "names " + excerpt(name) + ", which is not defined before this step (defined: " + defined_names(known_) +
                   ")");
    return it->second;
  }

  void define(const std::string& at, const std::string& name, Known k) {
    if (known_.count(name))
      fail(at, "defines " + name +
                   ", which is already defined: every name is defined once (an in-place step "
                   "writes its self and names no let)");
    known_[name] = std::move(k);
  }

  ProgramStep read_step(const json& j, const std::string& at) {
    ProgramStep step;
    step.op = j.at("op").get<std::string>();
    if (j.contains("let")) step.let = j["let"].get<std::string>();
    if (is_view_op(step.op)) return read_view(j, at, std::move(step));
    const OpSpec* op = find_op(step.op);
    if (!op) fail(join_path(at, "op"), "unknown op \"" + excerpt(step.op) + "\" (an op table id or a view op)");
    if (!op->backward_of.empty()) fail(join_path(at, "op"), step.op + " is a backward op: not a program step");
    if (!dialect_.empty() && op->dialect != dialect_)
      fail(join_path(at, "op"), "is a " + op->dialect + " op in a program of " + dialect_ + " ops");
    dialect_ = op->dialect;
    if (op->in_place && !step.let.empty())
      fail(join_path(at, "let"), op->id + " writes its self in place: the step names no let");
    if (!op->in_place && step.let.empty())
      fail(join_path(at, "let"), "missing: " + op->id + " returns a new tensor, which the step names");
    step.call.op = op->id;
    bool shapes_known = true;
    for (const auto& [name, value] : j.at("operands").items()) {
      const std::string here = join_path(at, "operands." + name);
      const OperandSpec* o = op->operand(name);
      if (!o) fail(here, op->id + " has no operand " + excerpt(name));
      if (o->role == OperandRole::Out) fail(here, "out= is not a program step's operand: name the result with let");
      const Known& k = operand_name(here, value);
      shapes_known = shapes_known && k.shape.has_value();
      step.call.tensors.emplace(name, placeholder(k));
      step.operands.emplace(name, value.get<std::string>());
    }
    if (j.contains("args"))
      for (const auto& [name, value] : j["args"].items()) {
        const ArgSpec* spec = op->arg(name);
        if (!spec) fail(join_path(at, "args." + name), op->id + " takes no argument " + excerpt(name));
        step.call.set_arg(name, arg_from_json(*spec, value, join_path(at, "args." + name)));
      }
    if (const std::optional<SignatureProblem> problem = bind_call(step.call)) {
      std::string f = problem->field;
      if (f.rfind("inputs.", 0) == 0) f = "operands." + f.substr(7);
      fail(join_path(at, f), problem->message);
    }
    if (!step.in_place()) define(join_path(at, "let"), step.let, result_of(*op, step.call, shapes_known, at));
    step.call.tensors.clear();
    return step;
  }

  // An out-of-place step's result: the op table's dtype and shape rules.
  Known result_of(const OpSpec& op, const OpCall& call, bool shapes_known, const std::string& at) const {
    Known k{call.tensors.at(op.output_dtype_of).dtype(), std::nullopt};
    if (!shapes_known) return k;
    k.shape = output_shape_of(op, call);
    if (k.shape) {
      const int64_t numel = checked_numel(*k.shape);
      if (numel < 0 || numel > kMaxOutputElements)
        fail(at, op.id + "'s output would have shape " + format_shape(*k.shape) + ", over the limit of " +
                     std::to_string(kMaxOutputElements) + " elements for an output");
    }
    return k;
  }

  ProgramStep read_view(const json& j, const std::string& at, ProgramStep step) {
    if (step.let.empty()) fail(join_path(at, "let"), "missing: a view step names the view it makes");
    const json& operands = j.at("operands");
    for (const auto& [name, value] : operands.items())
      if (name != "self") fail(join_path(at, "operands." + name), step.op + " has one operand, self");
    if (!operands.contains("self")) fail(join_path(at, "operands"), step.op + " needs its operand self");
    const Known base = operand_name(join_path(at, "operands.self"), operands["self"]);
    step.operands.emplace("self", operands["self"].get<std::string>());
    const std::vector<std::string> wanted = view_op_args(step.op);
    const json args = j.contains("args") ? j["args"] : json::object();
    for (const auto& [name, value] : args.items())
      if (std::find(wanted.begin(), wanted.end(), name) == wanted.end())
        fail(join_path(at, "args." + name), step.op + " takes no argument " + excerpt(name));
    for (const std::string& name : wanted) {
      if (!args.contains(name)) fail(join_path(at, "args"), step.op + " needs the int argument " + name);
      step.call.set_arg(name, Arg::of_int(json_int64(args[name], join_path(at, "args." + name))));
    }
    step.call.op = step.op;
    Known made{base.dtype, std::nullopt};
    if (base.shape) try {
        made.shape = apply_view(step, placeholder(base)).shape();
      } catch (const std::invalid_argument& e) {
        fail(join_path(at, "args"), e.what());
      }
    define(join_path(at, "let"), step.let, std::move(made));
    return step;
  }

  const json& p_;
  const std::string path_;
  std::map<std::string, Known> known_;
  std::string dialect_;
};

}  // namespace

LoadedProgram read_program(const json& p, const std::string& path, const InputBuilder& build_input) {
  return ProgramReader(p, path).read(build_input);
}

}  // namespace sp::spec_internal
