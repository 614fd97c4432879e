// scatterproof-serve (backends/process/serve_main.cc): a built-in backend of
// this build served over the line protocol, run as "process:" backend —
// its hello passes the backend's version and framework through, its answers
// are the in-process backend's, and an unknown backend is refused with the
// reason at the handshake (exit 3, as the plugin host).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "backends/backend.h"
#include "tests/test_paths.h"
#include "tests/test_support.h"

namespace sp {
namespace {

std::unique_ptr<Backend> served(const std::string& backend, std::string* why) {
  return make_backend("process:" + sp::test::serve_binary() + " " + backend, BackendOptions{}, why);
}

OpCall gather_call() {
  OpCall c;
  c.op = "torch.gather";
  c.set_arg("dim", Arg::of_int(1));
  c.tensors = {{"input", test::f32({2, 3}, {1, 2, 3, 4, 5, 6})}, {"index", test::i64({2, 2}, {2, 0, 1, 1})}};
  return c;
}

TEST(Serve, AnswersAsTheBackendInProcessAndSaysItsVersion) {
  std::string why;
  const std::unique_ptr<Backend> out_of_process = served("cpu", &why);
  ASSERT_TRUE(out_of_process) << why;
  const std::unique_ptr<Backend> in_process = make_backend("cpu", BackendOptions{}, &why);
  ASSERT_TRUE(in_process) << why;
  EXPECT_EQ(out_of_process->version(), in_process->version());
  EXPECT_FALSE(out_of_process->framework().has_value());  // cpu implements the documents
  EXPECT_TRUE(out_of_process->implements("torch.gather"));
  const Outcome a = run_backend(*out_of_process, gather_call());
  const Outcome b = run_backend(*in_process, gather_call());
  ASSERT_EQ(a.kind, Outcome::Kind::Outputs) << a.message;
  ASSERT_EQ(b.kind, Outcome::Kind::Outputs) << b.message;
  EXPECT_EQ(a.outputs.at(0).to_bits(), b.outputs.at(0).to_bits());

  OpCall bad = gather_call();
  bad.set_arg("dim", Arg::of_int(5));
  const Outcome error = run_backend(*out_of_process, bad);
  EXPECT_EQ(error.kind, Outcome::Kind::Error);
  EXPECT_EQ(error.error, run_backend(*in_process, bad).error);
}

#ifdef SP_HAVE_LIBTORCH
TEST(Serve, PassesTheFrameworkThrough) {
  std::string why;
  const std::unique_ptr<Backend> out_of_process = served("libtorch", &why);
  ASSERT_TRUE(out_of_process) << why;
  const std::unique_ptr<Backend> in_process = make_backend("libtorch", BackendOptions{}, &why);
  ASSERT_TRUE(in_process) << why;
  EXPECT_EQ(out_of_process->version(), in_process->version());  // "LibTorch 1.13.1"
  ASSERT_TRUE(in_process->framework().has_value());
  ASSERT_TRUE(out_of_process->framework().has_value());
  EXPECT_EQ(out_of_process->framework()->name, "torch");
  EXPECT_EQ(out_of_process->framework()->version, in_process->framework()->version);
}
#endif

TEST(Serve, AnUnknownBackendIsRefusedWithTheReason) {
  testing::internal::CaptureStderr();
  std::string why;
  EXPECT_FALSE(served("no-such-backend", &why));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("unknown backend 'no-such-backend'"), std::string::npos) << err;
}

TEST(Serve, LibTorchCurrentIsListedAndExplainsItselfWhenNotBuilt) {
  bool listed = false;
  for (const BackendInfo& b : registered_backends()) listed = listed || b.name == "libtorch-current";
  EXPECT_TRUE(listed);
  std::string why;
  if (!make_backend("libtorch-current", BackendOptions{}, &why))
    EXPECT_NE(why.find("scripts/setup-libtorch-current.sh"), std::string::npos) << why;
}

}  // namespace
}  // namespace sp
