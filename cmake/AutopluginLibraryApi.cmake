# The core's library entry points (include/autoplugin/library_api.h) are linked into every op
# library, TensorRT's or PyTorch's, even though nothing in the library calls them.
set(AUTOPLUGIN_LIBRARY_API_LINK_OPTIONS
  "LINKER:--undefined=autoplugin_library_v1_ops" "LINKER:--undefined=autoplugin_library_v1_describe"
  "LINKER:--undefined=autoplugin_library_v1_shape_program"
  "LINKER:--undefined=autoplugin_library_v1_decode_fields")
