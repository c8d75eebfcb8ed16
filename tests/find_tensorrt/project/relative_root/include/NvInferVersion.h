// A stand-in for TensorRT's version header: FindTensorRT reads only these defines.
#define TRT_MAJOR_ENTERPRISE 10
#define TRT_MINOR_ENTERPRISE 99
#define TRT_PATCH_ENTERPRISE 1
