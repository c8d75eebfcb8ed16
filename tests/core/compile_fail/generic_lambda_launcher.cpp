// Must not compile: a generic lambda as a launcher (its parameter types are not fixed).
#include <autoplugin/autoplugin.h>

namespace ap = autoplugin;

ap::Shape shape(ap::Shape x) { return x; }

AUTOPLUGIN_OP("compile_fail::op(Tensor x) -> Tensor", shape,
              [](auto x, ap::Out<float> y, ap::Stream s) { (void)x, (void)y, (void)s; });
