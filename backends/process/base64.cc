// base64.cc — the line protocol's base64 codec (RFC 4648, with padding):
// tensor storages travel as base64 text (PROTOCOL.md). Decoding rejects a
// length that is not a multiple of 4, any byte outside the alphabet ('=' only
// as the last group's padding) and a storage over kMaxStorageBytes: the text
// comes from a process we do not trust.
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/process/protocol.h"

namespace sp::protocol {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Sextet value of each byte, or -1 for bytes outside the alphabet.
constexpr std::array<int8_t, 256> make_decode_table() {
  std::array<int8_t, 256> table{};
  for (auto& v : table) v = -1;
  for (int i = 0; i < 64; ++i) table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
  return table;
}
constexpr std::array<int8_t, 256> kDecodeTable = make_decode_table();

}  // namespace

std::string base64_encode(const void* data, size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= size; i += 3) {
    const uint32_t n = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  if (size - i == 1) {
    const uint32_t n = uint32_t{bytes[i]} << 16;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += "==";
  } else if (size - i == 2) {
    const uint32_t n = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += '=';
  }
  return out;
}

std::vector<std::byte> base64_decode(const std::string& text) {
  if (text.size() % 4 != 0)
    throw ProtocolError("base64 text length " + std::to_string(text.size()) + " is not a multiple of 4");
  size_t padding = 0;
  if (!text.empty() && text.back() == '=') padding = text[text.size() - 2] == '=' ? 2 : 1;
  const size_t decoded_size = text.size() / 4 * 3 - padding;
  if (decoded_size > kMaxStorageBytes)
    throw ProtocolError("storage of " + std::to_string(decoded_size) + " bytes exceeds the limit of " +
                        std::to_string(kMaxStorageBytes) + " bytes");
  std::vector<std::byte> out;
  out.reserve(decoded_size);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last_group = i + 4 == text.size();
    uint32_t n = 0;
    for (size_t k = 0; k < 4; ++k) {
      const char c = text[i + k];
      int8_t sextet = kDecodeTable[static_cast<unsigned char>(c)];
      if (c == '=' && last_group && k >= 4 - padding) sextet = 0;
      if (sextet < 0) throw ProtocolError("invalid base64 character at offset " + std::to_string(i + k));
      n = (n << 6) | static_cast<uint32_t>(sextet);
    }
    out.push_back(static_cast<std::byte>(n >> 16));
    if (!(last_group && padding == 2)) out.push_back(static_cast<std::byte>((n >> 8) & 0xff));
    if (!(last_group && padding >= 1)) out.push_back(static_cast<std::byte>(n & 0xff));
  }
  return out;
}

}  // namespace sp::protocol
