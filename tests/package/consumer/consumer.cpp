// Declares an op against the installed headers and library, then describes every op linked in
// (this one, and cuda_op.cu's where the consumer has a CUDA compiler).
#include <autoplugin/autoplugin.h>
#include <autoplugin/describe.h>

#include <iostream>

namespace ap = autoplugin;

void scale(ap::In<float> x, ap::Out<float> y, double factor, ap::Stream stream) {
  (void)x, (void)y, (void)factor, (void)stream;
}
ap::Shape same(ap::Shape x, double) { return x; }

AUTOPLUGIN_OP("pkg::scale(Tensor x, float factor=2.0) -> Tensor", same, scale);

int main() {
  for (const ap::Op& op : ap::registry().ops()) std::cout << ap::describe(op) << "\n";
  for (const std::string& error : ap::registry().errors()) std::cerr << error << "\n";
  return ap::registry().errors().empty() ? 0 : 1;
}
