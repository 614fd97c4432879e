// The reference, run as a backend: it materializes one allowed outcome (the
// reference's own visit order) so the whole path from case to report runs
// with it, storage guards included.
#include "backends/backend.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp {
namespace {

class ReferenceBackend final : public Backend {
 public:
  std::string name() const override { return "reference"; }
  std::string description() const override {
    return "the executable reference (reference/): plain loops, the documents' visit order";
  }
  bool implements(std::string_view op) const override { return is_known_op(op); }
  Outcome run(const OpCall& call) override {
    const Expectation e = evaluate(call);
    if (e.unspecified) return Outcome::unsupported("the document leaves this call undefined: " + e.unspecified_reason);
    if (!e.outputs) return Outcome::of_error(e.errors.front(), e.error_message);
    std::vector<Tensor> outs;
    const std::string written = written_operand(call);  // self in place, or a given out=
    for (const ExpectedTensor& x : *e.outputs) {
      const Tensor* self = written.empty() ? nullptr : call.tensor(written);
      if (self && x.name == output_name(call) && self->shape() == x.exact.shape()) {
        // Write into the caller's view, keeping its layout.
        Shape idx(self->shape().size(), 0);
        int64_t linear = 0;
        if (self->numel() > 0) {
          do {
            self->set_bits_at(idx, load_bits(x.exact.dtype(), x.exact.element_ptr(linear++)));
          } while (next_index(idx, self->shape()));
        }
        outs.push_back(*self);
      } else {
        outs.push_back(x.exact);
      }
    }
    return Outcome::of_outputs(std::move(outs));
  }
};

}  // namespace

void register_reference_backend() {
  register_backend("reference", "the executable reference (plain loops over the documented formulas)",
                   [](const std::string&, const BackendOptions&) { return std::make_unique<ReferenceBackend>(); });
}

}  // namespace sp
