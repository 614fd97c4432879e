// replay_main.cc — runs a libFuzzer target's entry point over files, so a
// build without libFuzzer (GCC) replays the seed corpus and every saved
// crash as a regression test. Arguments: files or directories (searched
// recursively; a missing directory is skipped). Exit 0 when every input ran;
// a target that finds a bug aborts, failing the test.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

int run_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  int ran = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path p(argv[i]);
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(p))
        if (e.is_regular_file() && e.path().filename().string()[0] != '.') ran += run_file(e.path());
    } else if (std::filesystem::exists(p)) {
      ran += run_file(p);
    }
  }
  std::printf("replayed %d input(s)\n", ran);
  return 0;
}
