// bench/traffic.h: the bytes-moved models of the whole-row reductions,
// computed by hand here for one small call each, the cell's choice between
// a measured and a modelled number, and the LLC-miss counter either
// counting or saying why not.
#include <gtest/gtest.h>

#include <vector>

#include "bench/traffic.h"
#include "reference/tensor.h"

namespace sp {
namespace {

using bench::Algorithm;

// scatter_add_ dim 0: self [S, L] f32, index [K, L] int64 expanded along rows
// (strides [1, 0]) with the given values, src [K, L].
OpCall scatter_add_rows(int64_t S, int64_t L, const std::vector<int64_t>& rows, DType index_dtype = DType::Int64) {
  const auto K = static_cast<int64_t>(rows.size());
  Tensor values = Tensor::zeros(index_dtype, {K});
  for (int64_t k = 0; k < K; ++k) values.set_bits_at({k}, bits_from_value(index_dtype, Value::of_int(rows[k])));
  OpCall call;
  call.op = "torch.scatter_add_";
  call.tensors.emplace("self", Tensor::zeros(DType::Float32, {S, L}));
  call.tensors.emplace("index", Tensor::view(index_dtype, {K, L}, {1, 0}, 0, values.storage()));
  call.tensors.emplace("src", Tensor::zeros(DType::Float32, {K, L}));
  call.set_arg("dim", Arg::of_int(0));
  return call;
}

TEST(BenchTraffic, OurModelCountsEachPassOnce) {
  // K = 6 rows of L = 16 floats into S = 10 targets, 3 of them named.
  const OpCall call = scatter_add_rows(10, 16, {1, 4, 4, 9, 1, 1});
  const auto t = bench::modelled_traffic(call, Algorithm::Ours, 2);
  ASSERT_TRUE(t);
  const double K = 6, L = 16, S = 10, P = 2, targeted = 3;
  const double sort = 2 * K * 8 + 8 * K + 7 * P * S * 8 + 8 * S;
  const double reduce = 8 * K + 8 * S + K * L * 4 + 2 * targeted * L * 4;
  EXPECT_DOUBLE_EQ(t->bytes, sort + reduce);
  EXPECT_NE(t->how.find("counting sort"), std::string::npos);
}

TEST(BenchTraffic, ATenModelSortsKeysAndRowIdsInEightBitPasses) {
  // 300 targets need 9 bits: two radix passes.
  const OpCall call = scatter_add_rows(300, 16, {0, 299, 7, 7});
  const auto t = bench::modelled_traffic(call, Algorithm::ATen2, 2);
  ASSERT_TRUE(t);
  const double K = 4, L = 16, targeted = 3;
  const double want =
      (K * 8 + 16 * K) + 2 * 40 * K + (8 * K + 8 * targeted) + (8 * K + K * L * 4 + 2 * targeted * L * 4);
  EXPECT_DOUBLE_EQ(t->bytes, want);
  EXPECT_NE(t->how.find("2 passes"), std::string::npos);
}

TEST(BenchTraffic, ATenIndexAddWithAnInt32IndexAddsARowAtATime) {
  Tensor index = Tensor::zeros(DType::Int32, {5});
  OpCall call;
  call.op = "torch.index_add_";
  call.tensors.emplace("self", Tensor::zeros(DType::Float32, {8, 32}));
  call.tensors.emplace("index", index);
  call.tensors.emplace("source", Tensor::zeros(DType::Float32, {5, 32}));
  call.set_arg("dim", Arg::of_int(0));
  const auto t = bench::modelled_traffic(call, Algorithm::ATen2, 2);
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->bytes, 5 * 4 + 5 * 32 * 4 + 2 * 5 * 32 * 4);
  // With an int64 index and alpha 1 it goes through scatter_add_'s sorted path.
  call.tensors.at("index") = Tensor::zeros(DType::Int64, {5});
  EXPECT_NE(bench::modelled_traffic(call, Algorithm::ATen2, 2)->how.find("radix"), std::string::npos);
}

TEST(BenchTraffic, OtherCallsAreNotModelled) {
  OpCall call = scatter_add_rows(10, 16, {1, 2});
  call.set_arg("dim", Arg::of_int(1));
  EXPECT_FALSE(bench::modelled_traffic(call, Algorithm::Ours, 2));
  OpCall gather;
  gather.op = "torch.gather";
  EXPECT_FALSE(bench::modelled_traffic(gather, Algorithm::ATen2, 2));
}

TEST(BenchTraffic, CellPrefersTheMeasuredBytesAndKeepsBoth) {
  const OpCall call = scatter_add_rows(10, 16, {1, 4});
  const auto modelled = bench::traffic_cell(std::nullopt, "no PMU", call, Algorithm::Ours, 2);
  EXPECT_EQ(modelled.text.back(), '*');
  EXPECT_EQ(modelled.json["measured_unavailable"], "no PMU");
  const auto measured = bench::traffic_cell(12e6, "", call, Algorithm::Ours, 2);
  EXPECT_EQ(measured.text, "12");
  EXPECT_TRUE(measured.json.contains("modelled"));
  EXPECT_EQ(bench::traffic_cell(std::nullopt, "no PMU", call, std::nullopt, 2).text, "-");
}

TEST(BenchTraffic, MissCounterCountsOrSaysWhyNot) {
  bench::MissCounter c;
  c.begin();
  std::vector<char> big(64 << 20, 1);  // 64 MiB: past any LLC here
  long sum = 0;
  for (size_t i = 0; i < big.size(); i += 64) sum += big[i];
  c.end();
  EXPECT_GT(sum, 0);
  if (c.bytes())
    EXPECT_GT(*c.bytes(), 0);
  else
    EXPECT_NE(c.why().find("perf_event_open"), std::string::npos) << c.why();
}

}  // namespace
}  // namespace sp
