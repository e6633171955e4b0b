//===- RuntimeSupport.cpp - Errors and context of the CUDA runtime --------===//

#include "RuntimeSupport.h"

#include "SptuneCudaRuntime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

using namespace sptune::cuda;

namespace {

/// The recorded error state. Messages after the first few are counted but
/// not printed, so a broken context does not flood the log.
struct ErrorState {
  std::mutex mutex;
  int64_t count = 0;
  std::string first;
};

/// The last message reported by this thread (for sptuneCudaProbe).
thread_local std::string lastOfThread;

ErrorState &errors() {
  static ErrorState state;
  return state;
}

constexpr int64_t kPrintedErrors = 20;

void record(const std::string &message) {
  lastOfThread = message;
  ErrorState &s = errors();
  bool print;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.count == 0)
      s.first = message;
    ++s.count;
    print = s.count <= kPrintedErrors;
    if (s.count == kPrintedErrors + 1)
      std::fprintf(stderr, "sptune-cuda-runtime: further errors are counted "
                           "but not printed\n");
  }
  if (print)
    std::fprintf(stderr, "sptune-cuda-runtime: %s\n", message.c_str());
  static const bool abortOnError = [] {
    const char *v = std::getenv("SPTUNE_CUDA_ABORT_ON_ERROR");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  if (abortOnError) {
    std::fprintf(stderr, "sptune-cuda-runtime: aborting "
                         "(SPTUNE_CUDA_ABORT_ON_ERROR is set)\n");
    std::fflush(stderr);
    std::abort();
  }
}

/// The context state: one primary context per process.
struct ContextState {
  std::mutex mutex;
  bool initialized = false;
  bool usable = false;
  std::string failure; ///< why the context could not be created
  int ordinal = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;
  bool pools = false;
};

ContextState &contextState() {
  static ContextState state;
  return state;
}

/// Initializes the driver and retains the primary context, once.
bool initialize(const char *where) {
  ContextState &s = contextState();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.initialized)
    return s.usable;
  s.initialized = true;
  if (!SPTUNE_CU(cuInit(0), where) ||
      !SPTUNE_CU(cuDeviceGet(&s.device, s.ordinal), where) ||
      !SPTUNE_CU(cuDevicePrimaryCtxRetain(&s.context, s.device), where)) {
    s.failure = lastOfThread;
    return false;
  }
  int pools = 0;
  if (cuDeviceGetAttribute(&pools, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
                           s.device) == CUDA_SUCCESS)
    s.pools = pools != 0;
  if (s.pools) {
    // Keep freed memory in the pool across synchronizations (the default
    // threshold 0 returns it to the OS at each one), so that repeated calls
    // of a kernel reuse their buffers.
    CUmemoryPool pool = nullptr;
    cuuint64_t keep = ~cuuint64_t(0);
    if (SPTUNE_CU(cuDeviceGetDefaultMemPool(&pool, s.device), where))
      SPTUNE_CU(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                                      &keep),
                where);
  }
  s.usable = true;
  return true;
}


/// Names of the errors a missing or stub driver gives, for when the driver
/// cannot name them itself.
const char *knownName(CUresult result, const char **text) {
  switch (result) {
  case CUDA_ERROR_STUB_LIBRARY:
    *text = "the CUDA driver library is the toolkit's stub; no NVIDIA driver "
            "is installed";
    return "CUDA_ERROR_STUB_LIBRARY";
  case CUDA_ERROR_NO_DEVICE:
    *text = "no CUDA-capable device is detected";
    return "CUDA_ERROR_NO_DEVICE";
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    *text = "the NVIDIA kernel driver and the CUDA driver library differ";
    return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
  default:
    *text = "no description";
    return "unknown CUresult";
  }
}

} // namespace

bool sptune::cuda::check(CUresult result, const char *call,
                         const char *where) {
  if (result == CUDA_SUCCESS)
    return true;
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name ||
      cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
    name = knownName(result, &text);
  record(std::string(where) + ": " + call + " failed: " + name + " (" +
         std::to_string(static_cast<int>(result)) + "): " + text);
  return false;
}

bool sptune::cuda::check(cusparseStatus_t status, const char *call,
                         const char *where) {
  if (status == CUSPARSE_STATUS_SUCCESS)
    return true;
  const char *name = cusparseGetErrorName(status);
  const char *text = cusparseGetErrorString(status);
  record(std::string(where) + ": " + call + " failed: " +
         (name ? name : "unknown cusparseStatus_t") + " (" +
         std::to_string(static_cast<int>(status)) + "): " +
         (text ? text : "no description"));
  return false;
}

void sptune::cuda::fail(const char *where, const std::string &message) {
  record(std::string(where) + ": " + message);
}

const std::string &sptune::cuda::lastThreadError() { return lastOfThread; }

ScopedContext::ScopedContext(const char *where) {
  ContextState &s = contextState();
  bool first;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    first = !s.initialized;
  }
  if (!initialize(where)) {
    // The first attempt reported the failed call; later entry points say
    // that they did nothing.
    if (!first)
      fail(where, "skipped: no usable CUDA context (" + s.failure + ")");
    return;
  }
  pushed = SPTUNE_CU(cuCtxPushCurrent(contextState().context), where);
}

ScopedContext::~ScopedContext() {
  if (pushed)
    SPTUNE_CU(cuCtxPopCurrent(nullptr), "ScopedContext");
}

CUdevice sptune::cuda::currentDevice() { return contextState().device; }

void sptune::cuda::setDefaultDevice(int ordinal) {
  ContextState &s = contextState();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.initialized && ordinal != s.ordinal) {
    fail("mgpuSetDefaultDevice", "the context of device " +
                                     std::to_string(s.ordinal) +
                                     " is already in use; device " +
                                     std::to_string(ordinal) + " is ignored");
    return;
  }
  s.ordinal = ordinal;
}

bool sptune::cuda::hasMemoryPools() { return contextState().pools; }

//===----------------------------------------------------------------------===//
// C API: version, probe, errors.
//===----------------------------------------------------------------------===//

extern "C" int32_t sptuneCudaRuntimeApiVersion(void) {
  return SPTUNE_CUDA_RUNTIME_API_VERSION;
}

extern "C" int32_t sptuneCudaProbe(char *message, int64_t capacity) {
  auto write = [&](const std::string &text) {
    if (message && capacity > 0) {
      std::strncpy(message, text.c_str(), static_cast<size_t>(capacity - 1));
      message[capacity - 1] = '\0';
    }
  };
  lastOfThread.clear();
  ScopedContext context("sptuneCudaProbe");
  if (!context.ok()) {
    write(lastOfThread.empty() ? "the CUDA context could not be created"
                               : lastOfThread);
    return 1;
  }
  char name[256] = {0};
  int major = 0, minor = 0;
  CUdevice device = currentDevice();
  cuDeviceGetName(name, sizeof(name) - 1, device);
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                       device);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                       device);
  write(std::string(name) + ", sm_" + std::to_string(major) +
        std::to_string(minor));
  return 0;
}

extern "C" int64_t sptuneCudaErrorCount(void) {
  ErrorState &s = errors();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.count;
}

extern "C" const char *sptuneCudaLastError(void) {
  ErrorState &s = errors();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.first.c_str();
}

extern "C" void sptuneCudaResetErrors(void) {
  ErrorState &s = errors();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.count = 0;
  s.first.clear();
}
