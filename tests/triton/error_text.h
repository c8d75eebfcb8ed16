// Shared by the Triton tests: what autoplugin::Error a piece of code throws.
#pragma once

#include <autoplugin/error.h>

#include <functional>
#include <string>

// The message of the autoplugin::Error `body` throws; empty when it throws none.
inline std::string error_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const autoplugin::Error& e) {
    return e.what();
  }
  return {};
}
