//===- CudaRuntimeLoader.cpp - Load sptune's CUDA runtime at run time -----===//

#include "nvvm/CudaRuntimeLoader.h"

#include "nvvm/runtime/SptuneCudaRuntime.h"
#include "sptune/Support/Error.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <type_traits>
#include <unistd.h>

using namespace sptune;

/// libsptune_cuda_runtime.so in ../lib next to the running executable: where
/// both the build tree and an installed prefix put it. Empty if absent.
static std::string runtimeNextToExecutable() {
  char exe[4096];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0)
    return "";
  std::string dir(exe, static_cast<size_t>(n));
  size_t slash = dir.rfind('/');
  if (slash == std::string::npos)
    return "";
  dir.resize(slash);
  std::string candidate = dir + "/../lib/libsptune_cuda_runtime.so";
  return ::access(candidate.c_str(), R_OK) == 0 ? candidate : "";
}

std::string sptune::defaultCudaRuntimePath() {
  if (const char *path = std::getenv("SPTUNE_CUDA_RUNTIME"); path && *path)
    return path;
  if (std::string installed = runtimeNextToExecutable(); !installed.empty())
    return installed;
  return SPTUNE_CUDA_RUNTIME_PATH;
}

/// loadCudaRuntime's work: null with the message in `error`.
static const CudaRuntimeApi *loadCudaRuntimeOnce(const std::string &path,
                                                 std::string &error) {
  static std::mutex mutex;
  static CudaRuntimeApi api;
  static bool loaded = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (loaded) {
    if (api.path == path)
      return &api;
    error = "the CUDA runtime " + api.path +
            " is already loaded; cannot also load " + path;
    return nullptr;
  }
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle) {
    const char *why = dlerror();
    error = "cannot load sptune's CUDA runtime " + path + ": " +
            (why ? why : "unknown error") +
            " (a CUDA driver, libcuda.so.1, is needed to run on a GPU)";
    return nullptr;
  }
  bool ok = true;
  std::string missing;
  auto get = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
        dlsym(handle, name));
    if (!fn) {
      ok = false;
      missing += std::string(missing.empty() ? "" : ", ") + name;
    }
  };
  int32_t (*version)() = nullptr;
  get(version, "sptuneCudaRuntimeApiVersion");
  get(api.probe, "sptuneCudaProbe");
  get(api.errorCount, "sptuneCudaErrorCount");
  get(api.lastError, "sptuneCudaLastError");
  get(api.resetErrors, "sptuneCudaResetErrors");
  get(api.profileBegin, "sptuneCudaProfileBegin");
  get(api.profileEnd, "sptuneCudaProfileEnd");
  get(api.cusparseSpMM, "sptuneCusparseSpMM");
  get(api.cusparseSDDMM, "sptuneCusparseSDDMM");
  if (!ok) {
    error = path + " is not sptune's CUDA runtime (missing " + missing + ")";
    dlclose(handle);
    return nullptr;
  }
  if (version() != SPTUNE_CUDA_RUNTIME_API_VERSION) {
    error = path + " has API version " + std::to_string(version()) +
            ", this sptune expects " +
            std::to_string(SPTUNE_CUDA_RUNTIME_API_VERSION) +
            " (rebuild sptune_cuda_runtime)";
    dlclose(handle);
    return nullptr;
  }
  api.path = path;
  loaded = true;
  return &api;
}

llvm::Expected<const CudaRuntimeApi *>
sptune::loadCudaRuntime(const std::string &path) {
  std::string error;
  if (const CudaRuntimeApi *api = loadCudaRuntimeOnce(path, error))
    return api;
  return makeError(error);
}
