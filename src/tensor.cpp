// The out-of-line failures of the tensor views in tensor.h.
#include <autoplugin/error.h>
#include <autoplugin/tensor.h>

#include <string>

namespace autoplugin {

void throw_dtype_mismatch(DType expected, DType actual) {
  throw TensorError("tensor has dtype " + std::string(dtype_name(actual)) +
                    " but the launcher expects " + std::string(dtype_name(expected)));
}

void throw_missing_tensor(DType expected) {
  throw TensorError("no tensor given where the launcher expects one of dtype " +
                    std::string(dtype_name(expected)));
}

}  // namespace autoplugin
