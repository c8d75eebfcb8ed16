// Uses a Triton kernel embedded from an artefact through the installed package.
#include <iostream>

#include "triton_kernels/test_scale_add.h"

int main() {
  const autoplugin::triton::KernelImage& image = pkg::test_scale_add::image();
  std::cout << image.name << " " << image.parameters.size() << " parameters, BLOCK "
            << pkg::test_scale_add::BLOCK << "\n";
  return image.cubin.empty() ? 1 : 0;
}
