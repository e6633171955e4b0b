//===- RuntimeCore.cpp - mgpu* modules, launches, memory, streams ---------===//
//
// The entry points MLIR's gpu-to-llvm lowering (mlir 22.1) calls for GPU
// modules, kernel launches, streams, events and memory, implemented on the
// CUDA driver API. Their signatures are the ABI of that lowering (checked by
// test/NVVM against the LLVM IR it emits):
//
//   ptr  mgpuModuleLoad(ptr data, i64 size)          cubin / fatbin
//   ptr  mgpuModuleLoadJIT(ptr data, i32 optLevel)   PTX, JIT by the driver
//   void mgpuModuleUnload(ptr module)
//   ptr  mgpuModuleGetFunction(ptr module, ptr name)
//   void mgpuLaunchKernel(ptr fn, i64 gx, i64 gy, i64 gz, i64 bx, i64 by,
//                         i64 bz, i32 smem, ptr stream, ptr params,
//                         ptr extra, i64 paramsCount)
//   ptr  mgpuStreamCreate(), void mgpuStreamDestroy/Synchronize(ptr),
//   void mgpuStreamWaitEvent(ptr stream, ptr event)
//   ptr  mgpuEventCreate(), void mgpuEventDestroy/Synchronize(ptr),
//   void mgpuEventRecord(ptr event, ptr stream)
//   ptr  mgpuMemAlloc(i64 bytes, ptr stream, i8 hostShared)
//   void mgpuMemFree(ptr, ptr stream)
//   void mgpuMemcpy(ptr dst, ptr src, i64 bytes, ptr stream)
//   void mgpuMemset32(ptr, i32, i64 count, ptr stream), mgpuMemset16
//   void mgpuMemHostRegister(ptr, i64), mgpuMemHostUnregister(ptr)
//   void mgpuMemHostRegisterMemRef(i64 rank, ptr desc, i64 elementBytes),
//   void mgpuMemHostUnregisterMemRef(i64 rank, ptr desc, i64 elementBytes)
//   void mgpuSetDefaultDevice(i32)
//
// Memory is stream-ordered where the device supports it (cuMemAllocAsync /
// cuMemFreeAsync on the given stream, from the device's pool, so repeated
// calls of a kernel do not pay for cuMemAlloc); otherwise a free first waits
// for its stream. Every failure is reported (RuntimeSupport.h) and the entry
// point returns a null handle or does nothing.
//
//===----------------------------------------------------------------------===//

#include "RuntimeProfile.h"
#include "RuntimeSupport.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

using namespace sptune::cuda;

#define SPTUNE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

/// How a device pointer was allocated, to free it the same way.
enum class AllocKind { StreamOrdered, Plain, Managed };

struct Allocations {
  std::mutex mutex;
  std::unordered_map<void *, AllocKind> kinds;
};

Allocations &allocations() {
  static Allocations a;
  return a;
}

CUstream asStream(void *stream) { return reinterpret_cast<CUstream>(stream); }
CUdeviceptr asDevicePtr(void *ptr) {
  return reinterpret_cast<CUdeviceptr>(ptr);
}

/// Bytes of a densely packed memref of `rank` described by `desc`.
uint64_t memrefBytes(int64_t rank, StridedMemRefType<char, 1> *desc,
                     int64_t elementBytes) {
  const int64_t *sizes = desc->sizes;
  uint64_t count = 1;
  for (int64_t d = 0; d < rank; ++d)
    count *= static_cast<uint64_t>(sizes[d]);
  return count * static_cast<uint64_t>(elementBytes);
}

} // namespace

//===----------------------------------------------------------------------===//
// Modules and launches.
//===----------------------------------------------------------------------===//

SPTUNE_EXPORT void *mgpuModuleLoad(void *data, size_t size) {
  ScopedContext context("mgpuModuleLoad");
  if (!context.ok())
    return nullptr;
  (void)size; // cubin and fatbin images carry their own size
  CUmodule module = nullptr;
  if (!SPTUNE_CU(cuModuleLoadData(&module, data), "mgpuModuleLoad"))
    return nullptr;
  return module;
}

SPTUNE_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel) {
  ScopedContext context("mgpuModuleLoadJIT");
  if (!context.ok())
    return nullptr;
  std::vector<char> log(16384, '\0');
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {
      reinterpret_cast<void *>(static_cast<intptr_t>(
          optLevel < 0 ? 0 : (optLevel > 4 ? 4 : optLevel))),
      log.data(), reinterpret_cast<void *>(log.size() - 1)};
  CUmodule module = nullptr;
  CUresult result = cuModuleLoadDataEx(&module, data, 3, options, values);
  if (result != CUDA_SUCCESS) {
    SPTUNE_CU(result, "mgpuModuleLoadJIT");
    if (log[0])
      fail("mgpuModuleLoadJIT", std::string("PTX JIT log: ") + log.data());
    return nullptr;
  }
  return module;
}

SPTUNE_EXPORT void mgpuModuleUnload(void *module) {
  if (!module)
    return;
  ScopedContext context("mgpuModuleUnload");
  if (context.ok())
    SPTUNE_CU(cuModuleUnload(reinterpret_cast<CUmodule>(module)),
              "mgpuModuleUnload");
}

SPTUNE_EXPORT void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module) {
    fail("mgpuModuleGetFunction",
         std::string("no module for kernel '") + (name ? name : "?") +
             "' (loading the GPU binary failed)");
    return nullptr;
  }
  ScopedContext context("mgpuModuleGetFunction");
  if (!context.ok())
    return nullptr;
  CUfunction function = nullptr;
  if (!SPTUNE_CU(cuModuleGetFunction(&function,
                                     reinterpret_cast<CUmodule>(module), name),
                 "mgpuModuleGetFunction"))
    return nullptr;
  return function;
}

SPTUNE_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX,
                                    intptr_t gridY, intptr_t gridZ,
                                    intptr_t blockX, intptr_t blockY,
                                    intptr_t blockZ, int32_t smem,
                                    void *stream, void **params, void **extra,
                                    size_t /*paramsCount*/) {
  if (!function) {
    fail("mgpuLaunchKernel", "skipped: no kernel function (loading the GPU "
                             "binary or finding the kernel failed)");
    return;
  }
  ScopedContext context("mgpuLaunchKernel");
  if (!context.ok())
    return;
  ProfiledRegion region(asStream(stream), "mgpuLaunchKernel");
  SPTUNE_CU(cuLaunchKernel(reinterpret_cast<CUfunction>(function),
                           static_cast<unsigned>(gridX),
                           static_cast<unsigned>(gridY),
                           static_cast<unsigned>(gridZ),
                           static_cast<unsigned>(blockX),
                           static_cast<unsigned>(blockY),
                           static_cast<unsigned>(blockZ),
                           static_cast<unsigned>(smem), asStream(stream),
                           params, extra),
            "mgpuLaunchKernel");
}

//===----------------------------------------------------------------------===//
// Streams and events.
//===----------------------------------------------------------------------===//

SPTUNE_EXPORT void *mgpuStreamCreate() {
  ScopedContext context("mgpuStreamCreate");
  if (!context.ok())
    return nullptr;
  CUstream stream = nullptr;
  if (!SPTUNE_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
                 "mgpuStreamCreate"))
    return nullptr;
  return stream;
}

SPTUNE_EXPORT void mgpuStreamDestroy(void *stream) {
  if (!stream)
    return;
  ScopedContext context("mgpuStreamDestroy");
  if (context.ok())
    SPTUNE_CU(cuStreamDestroy(asStream(stream)), "mgpuStreamDestroy");
}

SPTUNE_EXPORT void mgpuStreamSynchronize(void *stream) {
  ScopedContext context("mgpuStreamSynchronize");
  if (context.ok())
    SPTUNE_CU(cuStreamSynchronize(asStream(stream)), "mgpuStreamSynchronize");
}

SPTUNE_EXPORT void mgpuStreamWaitEvent(void *stream, void *event) {
  if (!event) {
    fail("mgpuStreamWaitEvent", "skipped: null event");
    return;
  }
  ScopedContext context("mgpuStreamWaitEvent");
  if (context.ok())
    SPTUNE_CU(cuStreamWaitEvent(asStream(stream),
                                reinterpret_cast<CUevent>(event), 0),
              "mgpuStreamWaitEvent");
}

SPTUNE_EXPORT void *mgpuEventCreate() {
  ScopedContext context("mgpuEventCreate");
  if (!context.ok())
    return nullptr;
  CUevent event = nullptr;
  if (!SPTUNE_CU(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
                 "mgpuEventCreate"))
    return nullptr;
  return event;
}

SPTUNE_EXPORT void mgpuEventDestroy(void *event) {
  if (!event)
    return;
  ScopedContext context("mgpuEventDestroy");
  if (context.ok())
    SPTUNE_CU(cuEventDestroy(reinterpret_cast<CUevent>(event)),
              "mgpuEventDestroy");
}

SPTUNE_EXPORT void mgpuEventSynchronize(void *event) {
  if (!event) {
    fail("mgpuEventSynchronize", "skipped: null event");
    return;
  }
  ScopedContext context("mgpuEventSynchronize");
  if (context.ok())
    SPTUNE_CU(cuEventSynchronize(reinterpret_cast<CUevent>(event)),
              "mgpuEventSynchronize");
}

SPTUNE_EXPORT void mgpuEventRecord(void *event, void *stream) {
  if (!event) {
    fail("mgpuEventRecord", "skipped: null event");
    return;
  }
  ScopedContext context("mgpuEventRecord");
  if (context.ok())
    SPTUNE_CU(cuEventRecord(reinterpret_cast<CUevent>(event),
                            asStream(stream)),
              "mgpuEventRecord");
}

//===----------------------------------------------------------------------===//
// Memory.
//===----------------------------------------------------------------------===//

SPTUNE_EXPORT void *mgpuMemAlloc(uint64_t bytes, void *stream,
                                 bool hostShared) {
  if (bytes == 0)
    return nullptr; // nothing to allocate; a free of null does nothing
  ScopedContext context("mgpuMemAlloc");
  if (!context.ok())
    return nullptr;
  CUdeviceptr ptr = 0;
  AllocKind kind;
  if (hostShared) {
    kind = AllocKind::Managed;
    if (!SPTUNE_CU(cuMemAllocManaged(&ptr, bytes, CU_MEM_ATTACH_GLOBAL),
                   "mgpuMemAlloc"))
      return nullptr;
  } else if (hasMemoryPools()) {
    kind = AllocKind::StreamOrdered;
    if (!SPTUNE_CU(cuMemAllocAsync(&ptr, bytes, asStream(stream)),
                   "mgpuMemAlloc"))
      return nullptr;
  } else {
    kind = AllocKind::Plain;
    if (!SPTUNE_CU(cuMemAlloc(&ptr, bytes), "mgpuMemAlloc"))
      return nullptr;
  }
  void *result = reinterpret_cast<void *>(ptr);
  std::lock_guard<std::mutex> lock(allocations().mutex);
  allocations().kinds[result] = kind;
  return result;
}

SPTUNE_EXPORT void mgpuMemFree(void *ptr, void *stream) {
  if (!ptr)
    return;
  AllocKind kind;
  {
    std::lock_guard<std::mutex> lock(allocations().mutex);
    auto it = allocations().kinds.find(ptr);
    if (it == allocations().kinds.end()) {
      fail("mgpuMemFree", "skipped: pointer was not allocated by "
                          "mgpuMemAlloc (or was freed already)");
      return;
    }
    kind = it->second;
    allocations().kinds.erase(it);
  }
  ScopedContext context("mgpuMemFree");
  if (!context.ok())
    return;
  if (kind == AllocKind::StreamOrdered) {
    SPTUNE_CU(cuMemFreeAsync(asDevicePtr(ptr), asStream(stream)),
              "mgpuMemFree");
    return;
  }
  // Not stream-ordered: wait until the stream's work that may use it is
  // done.
  if (stream)
    SPTUNE_CU(cuStreamSynchronize(asStream(stream)), "mgpuMemFree");
  SPTUNE_CU(cuMemFree(asDevicePtr(ptr)), "mgpuMemFree");
}

SPTUNE_EXPORT void mgpuMemcpy(void *dst, void *src, size_t bytes,
                              void *stream) {
  if (bytes == 0)
    return;
  ScopedContext context("mgpuMemcpy");
  if (!context.ok())
    return;
  if (!dst || !src) {
    fail("mgpuMemcpy", "skipped: null pointer (an allocation failed)");
    return;
  }
  SPTUNE_CU(cuMemcpyAsync(asDevicePtr(dst), asDevicePtr(src), bytes,
                          asStream(stream)),
            "mgpuMemcpy");
}

SPTUNE_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                                void *stream) {
  if (count == 0)
    return;
  ScopedContext context("mgpuMemset32");
  if (context.ok())
    SPTUNE_CU(cuMemsetD32Async(asDevicePtr(dst), value, count,
                               asStream(stream)),
              "mgpuMemset32");
}

SPTUNE_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                                void *stream) {
  if (count == 0)
    return;
  ScopedContext context("mgpuMemset16");
  if (context.ok())
    SPTUNE_CU(cuMemsetD16Async(asDevicePtr(dst), value, count,
                               asStream(stream)),
              "mgpuMemset16");
}

SPTUNE_EXPORT void mgpuMemHostRegister(void *ptr, uint64_t bytes) {
  if (!ptr || bytes == 0)
    return;
  ScopedContext context("mgpuMemHostRegister");
  if (context.ok())
    SPTUNE_CU(cuMemHostRegister(ptr, bytes, 0), "mgpuMemHostRegister");
}

SPTUNE_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank,
                                             StridedMemRefType<char, 1> *desc,
                                             int64_t elementBytes) {
  char *data = desc->data + desc->offset * elementBytes;
  mgpuMemHostRegister(data, memrefBytes(rank, desc, elementBytes));
}

SPTUNE_EXPORT void mgpuMemHostUnregister(void *ptr) {
  if (!ptr)
    return;
  ScopedContext context("mgpuMemHostUnregister");
  if (context.ok())
    SPTUNE_CU(cuMemHostUnregister(ptr), "mgpuMemHostUnregister");
}

SPTUNE_EXPORT void mgpuMemHostUnregisterMemRef(int64_t /*rank*/,
                                               StridedMemRefType<char, 1> *desc,
                                               int64_t elementBytes) {
  mgpuMemHostUnregister(desc->data + desc->offset * elementBytes);
}

SPTUNE_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  setDefaultDevice(device);
}
