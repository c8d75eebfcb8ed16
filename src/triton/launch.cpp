// Loading and launching Triton kernels through the CUDA driver API. The driver is opened at the
// first launch (dlopen), not linked: plugin libraries stay loadable where there is no driver
// (build-phase checks on a CPU machine), and a launch there fails with an error, not a crash.
//
// A kernel is loaded into each CUDA context once, at its first launch there: the context of the
// launch's stream (for the default stream, the thread's current context). Each thread remembers
// the functions it launched last, so that a launch normally takes no lock.
#include <autoplugin/error.h>
#include <autoplugin/triton.h>

#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace autoplugin::triton {
namespace {

struct Driver {
  decltype(&cuGetErrorName) get_error_name = nullptr;
  decltype(&cuGetErrorString) get_error_string = nullptr;
  decltype(&cuCtxGetCurrent) ctx_get_current = nullptr;
  decltype(&cuCtxPushCurrent) ctx_push_current = nullptr;
  decltype(&cuCtxPopCurrent) ctx_pop_current = nullptr;
  decltype(&cuStreamGetCtx) stream_get_ctx = nullptr;
  decltype(&cuCtxGetDevice) ctx_get_device = nullptr;
  decltype(&cuDeviceGetAttribute) device_get_attribute = nullptr;
  decltype(&cuModuleLoadData) module_load_data = nullptr;
  decltype(&cuModuleGetFunction) module_get_function = nullptr;
  decltype(&cuModuleUnload) module_unload = nullptr;
  decltype(&cuFuncSetAttribute) func_set_attribute = nullptr;
  decltype(&cuLaunchKernel) launch_kernel = nullptr;
  // Newer (CUDA 12.0 and 12.4), used where the driver has them; declared here so that older
  // toolkits' headers compile this file.
  CUresult (*ctx_get_id)(CUcontext, unsigned long long*) = nullptr;
  CUresult (*func_get_param_info)(CUfunction, std::size_t, std::size_t*, std::size_t*) = nullptr;
  std::string unavailable;  // why the driver cannot be used; empty when it can
};

template <typename F>
bool resolve(void* library, const char* symbol, F& function) {
  function = reinterpret_cast<F>(dlsym(library, symbol));
  return function != nullptr;
}

Driver open_driver() {
  Driver driver;
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* reason = dlerror();
    driver.unavailable = "the CUDA driver library (libcuda.so.1) cannot be loaded: " +
                         std::string(reason != nullptr ? reason : "unknown reason");
    return driver;
  }
  const bool complete = resolve(library, "cuGetErrorName", driver.get_error_name) &&
                        resolve(library, "cuGetErrorString", driver.get_error_string) &&
                        resolve(library, "cuCtxGetCurrent", driver.ctx_get_current) &&
                        resolve(library, "cuCtxPushCurrent_v2", driver.ctx_push_current) &&
                        resolve(library, "cuCtxPopCurrent_v2", driver.ctx_pop_current) &&
                        resolve(library, "cuStreamGetCtx", driver.stream_get_ctx) &&
                        resolve(library, "cuCtxGetDevice", driver.ctx_get_device) &&
                        resolve(library, "cuDeviceGetAttribute", driver.device_get_attribute) &&
                        resolve(library, "cuModuleLoadData", driver.module_load_data) &&
                        resolve(library, "cuModuleGetFunction", driver.module_get_function) &&
                        resolve(library, "cuModuleUnload", driver.module_unload) &&
                        resolve(library, "cuFuncSetAttribute", driver.func_set_attribute) &&
                        resolve(library, "cuLaunchKernel", driver.launch_kernel);
  if (!complete) {
    const char* reason = dlerror();
    driver.unavailable = "the CUDA driver library lacks a function autoplugin needs (" +
                         std::string(reason != nullptr ? reason : "unknown") + ")";
    return driver;
  }
  resolve(library, "cuCtxGetId", driver.ctx_get_id);
  resolve(library, "cuFuncGetParamInfo", driver.func_get_param_info);
  return driver;  // the library stays open for the life of the process
}

const Driver& driver() {
  static const Driver instance = open_driver();
  return instance;
}

std::string describe(const Driver& driver, CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  driver.get_error_name(result, &name);
  driver.get_error_string(result, &text);
  std::string description = name != nullptr ? name : "CUDA error " + std::to_string(result);
  if (text != nullptr) description += " (" + std::string(text) + ")";
  return description;
}

[[noreturn]] void fail(const KernelImage& image, const std::string& what) {
  throw Error("Triton kernel '" + std::string(image.name) + "': " + what);
}

void check(const Driver& driver, const KernelImage& image, CUresult result, const char* call) {
  if (result != CUDA_SUCCESS)
    fail(image, std::string(call) + " failed: " + describe(driver, result));
}

std::string current_device_text(const Driver& driver) {
  CUdevice device = 0;
  int major = 0;
  int minor = 0;
  if (driver.ctx_get_device(&device) != CUDA_SUCCESS ||
      driver.device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) !=
          CUDA_SUCCESS ||
      driver.device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) !=
          CUDA_SUCCESS) {
    return "no current device";
  }
  return "compute capability " + std::to_string(major) + "." + std::to_string(minor);
}

// Checks the sizes of the parameters the metadata describes, where the driver can tell them: a
// metadata file that does not belong to its cubin would otherwise corrupt arguments. (That the
// kernel has no more parameters than described is checked when the artefact is embedded, against
// the PTX compiled with the cubin.) A parameter compiled as a value is not one of the kernel's.
void check_parameter_sizes(const Driver& driver, const KernelImage& image, CUfunction function) {
  if (driver.func_get_param_info == nullptr) return;
  std::vector<std::size_t> expected;
  for (const Parameter& parameter : image.parameters) {
    if (!parameter.compiled_value) expected.push_back(param_type_size(parameter.type));
  }
  expected.resize(expected.size() + static_cast<std::size_t>(image.scratch_parameters),
                  sizeof(void*));
  for (std::size_t i = 0; i < expected.size(); ++i) {
    std::size_t offset = 0;
    std::size_t size = 0;
    const CUresult result = driver.func_get_param_info(function, i, &offset, &size);
    if (result == CUDA_ERROR_NOT_SUPPORTED) return;
    if (result == CUDA_ERROR_INVALID_VALUE) {
      fail(image, "the kernel in the cubin has " + std::to_string(i) +
                      " parameters; its metadata describes " + std::to_string(expected.size()) +
                      " (the .json does not belong to the .cubin: regenerate the artefact)");
    }
    check(driver, image, result, "cuFuncGetParamInfo");
    if (size != expected[i]) {
      fail(image, "parameter " + std::to_string(i) + " of the kernel in the cubin has " +
                      std::to_string(size) + " bytes; its metadata says " +
                      std::to_string(expected[i]) +
                      " (the .json does not belong to the .cubin: regenerate the artefact)");
    }
  }
}

// Loads the kernel into the current context: the cubin, else the PTX (JIT-compiled).
CUfunction load(const Driver& driver, const KernelImage& image) {
  CUmodule module = nullptr;
  CUresult result = image.cubin.empty() ? CUDA_ERROR_INVALID_IMAGE
                                        : driver.module_load_data(&module, image.cubin.data());
  if (result != CUDA_SUCCESS) {
    const std::string cubin_error = describe(driver, result);
    result = image.ptx.empty() ? CUDA_ERROR_INVALID_IMAGE
                               : driver.module_load_data(&module, image.ptx.data());
    if (result != CUDA_SUCCESS) {
      fail(image, "the kernel does not load on this GPU (" + current_device_text(driver) +
                      "; it was compiled for sm_" + std::to_string(image.arch) +
                      "): cubin: " + cubin_error + "; PTX: " + describe(driver, result) +
                      ". Compile it for this GPU (ARCH of autoplugin_add_triton_kernel)");
    }
  }
  // A loaded module is never unloaded: it lives as long as its context, which may already be
  // gone when static destructors run at process exit. One that fails the checks below is.
  try {
    CUfunction function = nullptr;
    check(driver, image, driver.module_get_function(&function, module, image.function),
          "cuModuleGetFunction");
    check_parameter_sizes(driver, image, function);
    if (image.shared_bytes > 48 * 1024) {
      // Above 48 KiB a kernel must opt in to dynamic shared memory.
      check(driver, image,
            driver.func_set_attribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      static_cast<int>(image.shared_bytes)),
            "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    }
    return function;
  } catch (...) {
    driver.module_unload(module);
    throw;
  }
}

// Which context to load into and launch in: the stream's (the thread's current one for the
// default stream), made current for the launch when it is not.
class LaunchContext {
 public:
  LaunchContext(const Driver& driver, const KernelImage& image, CUstream stream) : driver_(driver) {
    CUcontext current = nullptr;
    check(driver, image, driver.ctx_get_current(&current), "cuCtxGetCurrent");
    context_ = current;
    if (stream != nullptr) {
      check(driver, image, driver.stream_get_ctx(stream, &context_), "cuStreamGetCtx");
    }
    if (context_ == nullptr) {
      fail(image,
           "no CUDA context is current on the launching thread and the launch is on the "
           "default stream (make a context current, e.g. with any CUDA runtime call)");
    }
    if (driver.ctx_get_id != nullptr) {
      check(driver, image, driver.ctx_get_id(context_, &id_), "cuCtxGetId");
    }
    // Last: nothing may throw after the push, or the destructor would not pop it.
    if (context_ != current) {
      check(driver, image, driver.ctx_push_current(context_), "cuCtxPushCurrent");
      pushed_ = true;
    }
  }
  ~LaunchContext() {
    CUcontext popped = nullptr;
    if (pushed_) driver_.ctx_pop_current(&popped);
  }
  LaunchContext(const LaunchContext&) = delete;
  LaunchContext& operator=(const LaunchContext&) = delete;

  CUcontext context() const { return context_; }
  // A context's address can be reused after it is destroyed; the driver's context ID cannot.
  unsigned long long id() const { return id_; }

 private:
  const Driver& driver_;
  CUcontext context_ = nullptr;
  unsigned long long id_ = 0;
  bool pushed_ = false;
};

// The code a kernel is loaded from: its cubin, or its PTX when it has no cubin.
const void* code_of(const KernelImage& image) {
  return image.cubin.empty() ? static_cast<const void*>(image.ptx.data())
                             : static_cast<const void*>(image.cubin.data());
}

// A kernel is known by its code and entry point (images may be copied, so not by address).
struct LoadedFunction {
  const void* code = nullptr;
  const char* name = nullptr;
  CUcontext context = nullptr;
  unsigned long long context_id = 0;
  CUfunction function = nullptr;
  bool matches(const KernelImage& image, const LaunchContext& launch) const {
    return code == code_of(image) && context == launch.context() && context_id == launch.id() &&
           std::strcmp(name, image.function) == 0;
  }
};

// The kernel's function in the launch's context, loading it there at its first launch.
CUfunction function_for(const Driver& driver, const KernelImage& image,
                        const LaunchContext& launch) {
  thread_local std::array<LoadedFunction, 8> recent{};
  thread_local std::size_t next_slot = 0;
  for (const LoadedFunction& entry : recent) {
    if (entry.code != nullptr && entry.matches(image, launch)) return entry.function;
  }
  // Never destroyed: other threads' caches point into them until the process ends.
  static auto& mutex = *new std::mutex;
  static auto& loaded = *new std::vector<LoadedFunction>;
  static auto& names = *new std::vector<std::unique_ptr<char[]>>;
  const std::lock_guard lock(mutex);
  auto found = std::find_if(loaded.begin(), loaded.end(), [&](const LoadedFunction& entry) {
    return entry.matches(image, launch);
  });
  if (found == loaded.end()) {
    const CUfunction function = load(driver, image);
    // The name is copied: an image's strings need not outlive the cache (its code must).
    const std::size_t length = std::strlen(image.function) + 1;
    names.push_back(std::make_unique<char[]>(length));
    std::memcpy(names.back().get(), image.function, length);
    loaded.push_back({code_of(image), names.back().get(), launch.context(), launch.id(), function});
    found = loaded.end() - 1;
  }
  recent[next_slot++ % recent.size()] = *found;
  return found->function;
}

void launch_image(const KernelImage& image, Grid grid, Stream stream,
                  std::initializer_list<Argument> arguments, Workspace scratch) {
  PackedArguments packed(image, arguments, grid, scratch);
  if (grid.programs() == 0) return;
  const Driver& cuda = driver();
  if (!cuda.unavailable.empty()) fail(image, cuda.unavailable);
  const auto cu_stream = reinterpret_cast<CUstream>(stream);
  const LaunchContext context(cuda, image, cu_stream);
  const CUresult result =
      cuda.launch_kernel(function_for(cuda, image, context), grid.x, grid.y, grid.z,
                         static_cast<unsigned int>(32 * image.num_warps), 1, 1, image.shared_bytes,
                         cu_stream, packed.kernel_params(), nullptr);
  if (result != CUDA_SUCCESS) {
    fail(image, "cuLaunchKernel failed for grid [" + std::to_string(grid.x) + ", " +
                    std::to_string(grid.y) + ", " + std::to_string(grid.z) + "], " +
                    std::to_string(32 * image.num_warps) +
                    " threads per program: " + describe(cuda, result));
  }
}

}  // namespace

bool fits_device(const KernelImage& image, Stream stream) {
  if (image.shared_bytes <= 48 * 1024) return true;  // every GPU since sm_50 gives 48 KiB
  const Driver& cuda = driver();
  if (!cuda.unavailable.empty()) fail(image, cuda.unavailable);
  const LaunchContext context(cuda, image, reinterpret_cast<CUstream>(stream));
  CUdevice device = 0;
  check(cuda, image, cuda.ctx_get_device(&device), "cuCtxGetDevice");
  int limit = 0;
  check(cuda, image,
        cuda.device_get_attribute(&limit, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                  device),
        "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)");
  return image.shared_bytes <= static_cast<std::uint32_t>(limit);
}

void launch(const KernelImage& image, Grid grid, Stream stream,
            std::initializer_list<Argument> arguments, Workspace scratch) {
  const KernelImage& specialized = specialization_for(image, arguments, grid, scratch);
  const bool use_specialized =
      &specialized == &image || grid.programs() == 0 || fits_device(specialized, stream);
  launch_image(use_specialized ? specialized : image, grid, stream, arguments, scratch);
}

}  // namespace autoplugin::triton
