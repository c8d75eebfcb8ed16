// Declares an op against the installed headers and library, then describes it.
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
  const auto& ops = ap::registry().ops();
  if (ops.size() != 1 || ops.front().qualified_name() != "pkg::scale") return 1;
  std::cout << ap::describe(ops.front());
  return ap::registry().errors().empty() ? 0 : 1;
}
