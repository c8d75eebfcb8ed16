// Error types thrown by the core. Everything TensorRT calls catches these at the boundary.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace autoplugin {

// Base of every error the library throws on purpose; the message is complete and user-facing.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A malformed schema string. `column` is 1-based and points at the offending character.
class SchemaError : public Error {
 public:
  SchemaError(const std::string& message, std::size_t column) : Error(message), column_(column) {}
  std::size_t column() const noexcept { return column_; }

 private:
  std::size_t column_;
};

// A launcher or shape function that does not fit its schema (all mismatches in one message).
class BindingError : public Error {
 public:
  using Error::Error;
};

// A plugin field (attribute) that is missing, of the wrong type or length, or otherwise invalid.
class FieldError : public Error {
 public:
  using Error::Error;
};

// A shape function failure: a failed require(), division by zero, overflow, a symbolic branch.
class ShapeError : public Error {
 public:
  using Error::Error;
};

// A tensor whose dtype, rank or presence does not match what the launcher expects.
class TensorError : public Error {
 public:
  using Error::Error;
};

}  // namespace autoplugin
