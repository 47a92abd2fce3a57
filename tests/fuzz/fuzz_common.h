// Shared by the libFuzzer targets (tests/fuzz/README.md). A target feeds the bytes to one
// parser; what the parser may answer with is an InputError (bad input, exit 2 in the CLI) or,
// for JSON text that is not JSON at all, nlohmann's parse_error (also exit 2). Anything else,
// an internal error (exit 3), a crash, a sanitizer report, a hang, is a finding: the
// exception escapes and libFuzzer stops with the input that caused it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/json_reader.h"

namespace gw::fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Runs `f`; returns normally when it succeeded or refused the input as bad input.
template <typename F>
void expect_refusal_or_success(F&& f) {
  try {
    f();
  } catch (const InputError&) {
  } catch (const nlohmann::json::parse_error&) {
  }
}

// A property every input must keep: abort (a finding) when it does not.
inline void require(bool ok) {
  if (!ok) {
    std::abort();
  }
}

}  // namespace gw::fuzz
