// Tests of the LibTorch backend's device variants (backends/libtorch/
// libtorch_device.h, docs/gpu.md): `libtorch@cpu` runs the copying device
// path on the CPU (each storage copied once, the results, in-place writes and
// errors' partial writes copied back), names its device, and a device this
// LibTorch cannot use is unavailable with the reason.
// Built only when the backend is (SP_HAVE_LIBTORCH).
#ifdef SP_HAVE_LIBTORCH

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "harness/comparator.h"
#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::f32;
using test::i64;
using test::values_of;

std::unique_ptr<Backend> backend(const std::string& name, std::string* why) {
  return make_backend(name, BackendOptions{}, why);
}

OpCall call_of(std::string op, std::map<std::string, Tensor> tensors) {
  OpCall c;
  c.op = std::move(op);
  c.set_arg("dim", Arg::of_int(0));
  c.tensors = std::move(tensors);
  return c;
}

TEST(LibTorchDevice, CpuVariantNamesItsDeviceAndWritesInPlaceThroughTheCopy) {
  std::string why;
  auto b = backend("libtorch@cpu", &why);
  ASSERT_TRUE(b) << why;
  EXPECT_NE(b->version().find(" on cpu"), std::string::npos) << b->version();
  EXPECT_EQ(b->device(), "");  // the host's CPU: no accelerator to key on
  // self is a transposed view with an offset into a larger storage: the copy
  // keeps the layout, and only self's positions change in the caller's bytes.
  const Tensor base = f32({2, 4}, {0, 0, 0, 0, 0, 0, 0, 9});
  const Tensor self = Tensor::view(DType::Float32, {3, 2}, {1, 4}, 0, base.storage());
  OpCall call =
      call_of("torch.scatter_", {{"self", self}, {"index", i64({1, 2}, {2, 0})}, {"src", f32({1, 2}, {5, 7})}});
  const OpCall before = call.deep_copy();
  const Outcome out = b->run(call);
  ASSERT_EQ(out.kind, Outcome::Kind::Outputs) << out.message;
  EXPECT_EQ(values_of(base), (std::vector<double>{0, 0, 5, 0, 7, 0, 0, 9}));
  EXPECT_EQ(judge(before, evaluate(before), out, call).kind, Verdict::Kind::Pass);
}

TEST(LibTorchDevice, CpuVariantAnswersOutOfPlaceResultsAndErrorsAsThePlainBackend) {
  std::string why;
  auto plain = backend("libtorch", &why);
  auto on_cpu = backend("libtorch@cpu", &why);
  ASSERT_TRUE(plain && on_cpu) << why;
  const OpCall gather =
      call_of("torch.gather", {{"input", f32({2, 2}, {1, 2, 3, 4})}, {"index", i64({2, 2}, {1, 0, 0, 1})}});
  OpCall a = gather.deep_copy(), b = gather.deep_copy();
  const Outcome x = plain->run(a), y = on_cpu->run(b);
  ASSERT_EQ(y.kind, Outcome::Kind::Outputs) << y.message;
  EXPECT_EQ(values_of(y.outputs.at(0)), values_of(x.outputs.at(0)));
  EXPECT_EQ(values_of(y.outputs.at(0)), (std::vector<double>{3, 2, 1, 4}));
  // An error after the fresh output was made (dim out of range): the same
  // category, and nothing written into freed memory by the copy back.
  OpCall bad = call_of("torch.gather", {{"input", f32({2, 2}, {1, 2, 3, 4})}, {"index", i64({2, 2}, {0, 0, 0, 0})}});
  bad.set_arg("dim", Arg::of_int(2));
  const Outcome e = on_cpu->run(bad);
  ASSERT_EQ(e.kind, Outcome::Kind::Error) << e.message;
  EXPECT_EQ(*e.error, ErrorCategory::DimOutOfRange) << e.message;
}

TEST(LibTorchDevice, UnusableDevicesAreUnavailableWithTheReason) {
  std::string why;
  // Debian's LibTorch (this in-process backend) is built without CUDA.
  EXPECT_FALSE(backend("libtorch@cuda", &why));
  EXPECT_NE(why.find("no CUDA kernels"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(backend("libtorch@cuda:3", &why));
  EXPECT_NE(why.find("no CUDA kernels"), std::string::npos) << why;
}

}  // namespace
}  // namespace sp

#endif  // SP_HAVE_LIBTORCH
