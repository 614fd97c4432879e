// spec_loader.cc — libFuzzer target: any bytes given to the spec loader give
// cases or a SpecError naming the file, case and field; never a crash, a
// hang, another exception type, or a sanitizer report.
#include "harness/spec_loader.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    sp::load_spec_text(text, "<fuzz>");
  } catch (const sp::SpecError& e) {
    if (e.file() != "<fuzz>") std::abort();  // an error must name the file
  }
  // Lenient loading must not throw at all.
  sp::load_spec_text_lenient(text, "<fuzz>");
  return 0;
}
