// Must not compile: a generic lambda as a shape function.
#include <autoplugin/autoplugin.h>

namespace ap = autoplugin;

void launcher(ap::In<float> x, ap::Out<float> y, ap::Stream s) { (void)x, (void)y, (void)s; }

AUTOPLUGIN_OP(
    "compile_fail::op(Tensor x) -> Tensor", [](auto x) { return x; }, launcher);
