// Must not compile: a mutable lambda as a launcher (it would change state across contexts).
#include <autoplugin/autoplugin.h>

namespace ap = autoplugin;

ap::Shape shape(ap::Shape x) { return x; }

AUTOPLUGIN_OP("compile_fail::op(Tensor x) -> Tensor", shape,
              [calls = 0](ap::In<float> x, ap::Out<float> y, ap::Stream s) mutable {
                ++calls;
                (void)x, (void)y, (void)s;
              });
