//===- CusparseBaseline.cpp - cuSPARSE SpMM and SDDMM, timed --------------===//
//
// The library baseline sptune's GPU schedules are compared with: cuSPARSE's
// generic SpMM and SDDMM on CSR with the default algorithms, the data
// uploaded once, each call timed with CUDA events on its stream (device
// time, no transfers) — the same measure the profiler gives for generated
// kernels.
//
//===----------------------------------------------------------------------===//

#include "RuntimeSupport.h"
#include "SptuneCudaRuntime.h"

#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace sptune::cuda;

#define SPTUNE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

/// Resources of one baseline run, released in reverse order of creation.
class Session {
public:
  explicit Session(const char *where) : where(where), context(where) {}
  ~Session() {
    for (auto it = cleanups.rbegin(); it != cleanups.rend(); ++it)
      (*it)();
  }

  const char *where;
  ScopedContext context;
  std::string error;

  /// Records `what` failed unless `ok`; returns `ok`.
  bool require(bool ok, const std::string &what) {
    if (!ok && error.empty())
      error = what + ": " + lastThreadError();
    return ok;
  }
  void atExit(std::function<void()> f) { cleanups.push_back(std::move(f)); }

  /// Device copy of `bytes` host bytes (zeros when `host` is null); 0 on
  /// failure.
  CUdeviceptr upload(const void *host, size_t bytes) {
    CUdeviceptr ptr = 0;
    if (!require(SPTUNE_CU(cuMemAlloc(&ptr, bytes ? bytes : 1), where),
                 "device allocation"))
      return 0;
    atExit([ptr] { cuMemFree(ptr); });
    bool copied = !bytes ||
                  (host ? SPTUNE_CU(cuMemcpyHtoD(ptr, host, bytes), where)
                        : SPTUNE_CU(cuMemsetD8(ptr, 0, bytes), where));
    return require(copied, "upload") ? ptr : 0;
  }

private:
  std::vector<std::function<void()>> cleanups;
};

void writeError(const std::string &text, char *error, int64_t capacity) {
  if (error && capacity > 0) {
    std::strncpy(error, text.c_str(), static_cast<size_t>(capacity - 1));
    error[capacity - 1] = '\0';
  }
}

/// The CSR index arrays on the device: 32-bit when nnz allows, else 64-bit.
struct DeviceCsr {
  CUdeviceptr pos = 0, crd = 0;
  cusparseIndexType_t type = CUSPARSE_INDEX_32I;
};

bool uploadCsr(Session &s, int64_t rows, int64_t nnz, const int64_t *rowPtr,
               const int32_t *colIdx, DeviceCsr &out) {
  if (nnz < (int64_t(1) << 31)) {
    std::vector<int32_t> pos(rowPtr, rowPtr + rows + 1);
    out.type = CUSPARSE_INDEX_32I;
    out.pos = s.upload(pos.data(), pos.size() * sizeof(int32_t));
    out.crd = s.upload(colIdx, static_cast<size_t>(nnz) * sizeof(int32_t));
  } else {
    std::vector<int64_t> crd(colIdx, colIdx + nnz);
    out.type = CUSPARSE_INDEX_64I;
    out.pos = s.upload(rowPtr, static_cast<size_t>(rows + 1) * sizeof(int64_t));
    out.crd = s.upload(crd.data(), crd.size() * sizeof(int64_t));
  }
  return out.pos && out.crd;
}

/// Runs `call` warmups + reps times on `stream`, timing the reps.
bool timeCalls(Session &s, CUstream stream, int32_t warmups, int32_t reps,
               double *seconds, const std::function<bool()> &call) {
  CUevent start = nullptr, stop = nullptr;
  if (!s.require(SPTUNE_CU(cuEventCreate(&start, CU_EVENT_DEFAULT), s.where) &&
                     SPTUNE_CU(cuEventCreate(&stop, CU_EVENT_DEFAULT), s.where),
                 "event creation"))
    return false;
  s.atExit([start, stop] {
    cuEventDestroy(start);
    cuEventDestroy(stop);
  });
  for (int32_t w = 0; w < warmups; ++w)
    if (!call())
      return false;
  for (int32_t r = 0; r < reps; ++r) {
    float ms = 0;
    if (!s.require(SPTUNE_CU(cuEventRecord(start, stream), s.where),
                   "event record") ||
        !call() ||
        !s.require(SPTUNE_CU(cuEventRecord(stop, stream), s.where) &&
                       SPTUNE_CU(cuEventSynchronize(stop), s.where) &&
                       SPTUNE_CU(cuEventElapsedTime(&ms, start, stop),
                                 s.where),
                   "timing"))
      return false;
    seconds[r] = static_cast<double>(ms) * 1e-3;
  }
  return s.require(SPTUNE_CU(cuStreamSynchronize(stream), s.where),
                   "synchronization");
}

/// Stream and cuSPARSE handle of a session.
bool setUp(Session &s, CUstream &stream, cusparseHandle_t &handle) {
  if (!s.context.ok()) {
    s.error = "no usable CUDA device: " + lastThreadError();
    return false;
  }
  if (!s.require(SPTUNE_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
                           s.where),
                 "stream creation"))
    return false;
  s.atExit([stream] { cuStreamDestroy(stream); });
  if (!s.require(SPTUNE_CU(cusparseCreate(&handle), s.where),
                 "cuSPARSE handle creation"))
    return false;
  s.atExit([handle] { cusparseDestroy(handle); });
  return s.require(SPTUNE_CU(cusparseSetStream(
                                 handle, reinterpret_cast<cudaStream_t>(stream)),
                             s.where),
                   "cusparseSetStream");
}

bool checkArguments(Session &s, int32_t elementBits, int32_t reps,
                    double *seconds) {
  if (elementBits != 32 && elementBits != 64)
    s.error = "element bits must be 32 or 64";
  else if (reps < 0 || (reps > 0 && !seconds))
    s.error = "reps must be non-negative, with room for the times";
  return s.error.empty();
}

} // namespace

SPTUNE_EXPORT int32_t sptuneCusparseSpMM(
    int64_t rows, int64_t cols, int64_t nnz, const int64_t *rowPtr,
    const int32_t *colIdx, const void *values, int32_t elementBits, int64_t n,
    const void *b, void *out, int32_t warmups, int32_t reps, double *seconds,
    char *error, int64_t errorCapacity) {
  Session s("sptuneCusparseSpMM");
  CUstream stream = nullptr;
  cusparseHandle_t handle = nullptr;
  auto finish = [&] {
    writeError(s.error, error, errorCapacity);
    return s.error.empty() ? 0 : 1;
  };
  if (!checkArguments(s, elementBits, reps, seconds) ||
      !setUp(s, stream, handle))
    return finish();
  size_t elem = elementBits / 8;
  cudaDataType type = elementBits == 64 ? CUDA_R_64F : CUDA_R_32F;
  DeviceCsr csr;
  if (!uploadCsr(s, rows, nnz, rowPtr, colIdx, csr))
    return finish();
  CUdeviceptr vals = s.upload(values, static_cast<size_t>(nnz) * elem);
  CUdeviceptr dB = s.upload(b, static_cast<size_t>(cols * n) * elem);
  CUdeviceptr dC = s.upload(nullptr, static_cast<size_t>(rows * n) * elem);
  if (!vals || !dB || !dC)
    return finish();

  cusparseSpMatDescr_t matA = nullptr;
  cusparseDnMatDescr_t matB = nullptr, matC = nullptr;
  if (!s.require(SPTUNE_CU(cusparseCreateCsr(
                               &matA, rows, cols, nnz,
                               reinterpret_cast<void *>(csr.pos),
                               reinterpret_cast<void *>(csr.crd),
                               reinterpret_cast<void *>(vals), csr.type,
                               csr.type, CUSPARSE_INDEX_BASE_ZERO, type),
                           s.where),
                 "CSR descriptor"))
    return finish();
  s.atExit([matA] { cusparseDestroySpMat(matA); });
  if (!s.require(SPTUNE_CU(cusparseCreateDnMat(&matB, cols, n, n,
                                               reinterpret_cast<void *>(dB),
                                               type, CUSPARSE_ORDER_ROW),
                           s.where),
                 "dense B descriptor"))
    return finish();
  s.atExit([matB] { cusparseDestroyDnMat(matB); });
  if (!s.require(SPTUNE_CU(cusparseCreateDnMat(&matC, rows, n, n,
                                               reinterpret_cast<void *>(dC),
                                               type, CUSPARSE_ORDER_ROW),
                           s.where),
                 "dense C descriptor"))
    return finish();
  s.atExit([matC] { cusparseDestroyDnMat(matC); });

  float alphaF = 1, betaF = 0;
  double alphaD = 1, betaD = 0;
  const void *alpha = elementBits == 64 ? static_cast<const void *>(&alphaD)
                                        : static_cast<const void *>(&alphaF);
  const void *beta = elementBits == 64 ? static_cast<const void *>(&betaD)
                                       : static_cast<const void *>(&betaF);
  size_t bufferSize = 0;
  if (!s.require(SPTUNE_CU(cusparseSpMM_bufferSize(
                               handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                               CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, matA,
                               matB, beta, matC, type,
                               CUSPARSE_SPMM_ALG_DEFAULT, &bufferSize),
                           s.where),
                 "SpMM buffer size"))
    return finish();
  CUdeviceptr buffer = s.upload(nullptr, bufferSize);
  if (!buffer)
    return finish();
  auto call = [&] {
    return s.require(
        SPTUNE_CU(cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                               CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, matA,
                               matB, beta, matC, type,
                               CUSPARSE_SPMM_ALG_DEFAULT,
                               reinterpret_cast<void *>(buffer)),
                  s.where),
        "cusparseSpMM");
  };
  if (!timeCalls(s, stream, warmups, reps, seconds, call))
    return finish();
  if (out)
    s.require(SPTUNE_CU(cuMemcpyDtoH(out, dC,
                                     static_cast<size_t>(rows * n) * elem),
                        s.where),
              "download");
  return finish();
}

SPTUNE_EXPORT int32_t sptuneCusparseSDDMM(
    int64_t rows, int64_t cols, int64_t nnz, const int64_t *rowPtr,
    const int32_t *colIdx, int32_t elementBits, int64_t k, const void *a,
    const void *b, void *out, int32_t warmups, int32_t reps, double *seconds,
    char *error, int64_t errorCapacity) {
  Session s("sptuneCusparseSDDMM");
  CUstream stream = nullptr;
  cusparseHandle_t handle = nullptr;
  auto finish = [&] {
    writeError(s.error, error, errorCapacity);
    return s.error.empty() ? 0 : 1;
  };
  if (!checkArguments(s, elementBits, reps, seconds) ||
      !setUp(s, stream, handle))
    return finish();
  size_t elem = elementBits / 8;
  cudaDataType type = elementBits == 64 ? CUDA_R_64F : CUDA_R_32F;
  DeviceCsr csr;
  if (!uploadCsr(s, rows, nnz, rowPtr, colIdx, csr))
    return finish();
  CUdeviceptr vals = s.upload(nullptr, static_cast<size_t>(nnz) * elem);
  CUdeviceptr dA = s.upload(a, static_cast<size_t>(rows * k) * elem);
  CUdeviceptr dB = s.upload(b, static_cast<size_t>(k * cols) * elem);
  if (!vals || !dA || !dB)
    return finish();

  cusparseDnMatDescr_t matA = nullptr, matB = nullptr;
  cusparseSpMatDescr_t matC = nullptr;
  if (!s.require(SPTUNE_CU(cusparseCreateDnMat(&matA, rows, k, k,
                                               reinterpret_cast<void *>(dA),
                                               type, CUSPARSE_ORDER_ROW),
                           s.where),
                 "dense A descriptor"))
    return finish();
  s.atExit([matA] { cusparseDestroyDnMat(matA); });
  if (!s.require(SPTUNE_CU(cusparseCreateDnMat(&matB, k, cols, cols,
                                               reinterpret_cast<void *>(dB),
                                               type, CUSPARSE_ORDER_ROW),
                           s.where),
                 "dense B descriptor"))
    return finish();
  s.atExit([matB] { cusparseDestroyDnMat(matB); });
  if (!s.require(SPTUNE_CU(cusparseCreateCsr(
                               &matC, rows, cols, nnz,
                               reinterpret_cast<void *>(csr.pos),
                               reinterpret_cast<void *>(csr.crd),
                               reinterpret_cast<void *>(vals), csr.type,
                               csr.type, CUSPARSE_INDEX_BASE_ZERO, type),
                           s.where),
                 "CSR descriptor"))
    return finish();
  s.atExit([matC] { cusparseDestroySpMat(matC); });

  float alphaF = 1, betaF = 0;
  double alphaD = 1, betaD = 0;
  const void *alpha = elementBits == 64 ? static_cast<const void *>(&alphaD)
                                        : static_cast<const void *>(&alphaF);
  const void *beta = elementBits == 64 ? static_cast<const void *>(&betaD)
                                       : static_cast<const void *>(&betaF);
  auto opN = CUSPARSE_OPERATION_NON_TRANSPOSE;
  size_t bufferSize = 0;
  if (!s.require(SPTUNE_CU(cusparseSDDMM_bufferSize(
                               handle, opN, opN, alpha, matA, matB, beta,
                               matC, type, CUSPARSE_SDDMM_ALG_DEFAULT,
                               &bufferSize),
                           s.where),
                 "SDDMM buffer size"))
    return finish();
  CUdeviceptr buffer = s.upload(nullptr, bufferSize);
  if (!buffer ||
      !s.require(SPTUNE_CU(cusparseSDDMM_preprocess(
                               handle, opN, opN, alpha, matA, matB, beta,
                               matC, type, CUSPARSE_SDDMM_ALG_DEFAULT,
                               reinterpret_cast<void *>(buffer)),
                           s.where),
                 "SDDMM preprocessing"))
    return finish();
  auto call = [&] {
    return s.require(SPTUNE_CU(cusparseSDDMM(handle, opN, opN, alpha, matA,
                                             matB, beta, matC, type,
                                             CUSPARSE_SDDMM_ALG_DEFAULT,
                                             reinterpret_cast<void *>(buffer)),
                               s.where),
                     "cusparseSDDMM");
  };
  if (!timeCalls(s, stream, warmups, reps, seconds, call))
    return finish();
  if (out)
    s.require(SPTUNE_CU(cuMemcpyDtoH(out, vals,
                                     static_cast<size_t>(nnz) * elem),
                        s.where),
              "download");
  return finish();
}
