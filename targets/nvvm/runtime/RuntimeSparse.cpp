//===- RuntimeSparse.cpp - mgpu* entry points of the cuSPARSE path --------===//
//
// What upstream's enable-gpu-libgen code calls after gpu-to-llvm (mlir
// 22.1), on cuSPARSE's generic API:
//
//   void mgpuCreateSparseEnv(), mgpuDestroySparseEnv()
//   ptr  mgpuCreateDnVec(i64 size, ptr values, i32 dtype, ptr stream)
//   ptr  mgpuCreateDnMat(i64 rows, i64 cols, ptr values, i32 dtype, ptr s)
//   ptr  mgpuCreateCoo(i64 rows, i64 cols, i64 nnz, ptr rowIdx, ptr colIdx,
//                      ptr values, i32 itype, i32 dtype, ptr stream)
//   ptr  mgpuCreateCsr(i64 rows, i64 cols, i64 nnz, ptr pos, ptr crd,
//                      ptr values, i32 ptype, i32 itype, i32 dtype, ptr s)
//   ptr  mgpuCreateCsc(...same as Csr, column-major...)
//   ptr  mgpuCreateBsr(i64 brows, i64 bcols, i64 bnnz, i64 rowBlock,
//                      i64 colBlock, ptr pos, ptr crd, ptr values,
//                      i32 ptype, i32 itype, i32 dtype, ptr stream)
//   void mgpuDestroyDnVec/DnMat/SpMat(ptr handle, ptr stream)
//   i64  mgpuSpMVBufferSize(i32 opA, ptr A, ptr x, ptr y, i32 ctype, ptr s)
//   void mgpuSpMV(i32 opA, ptr A, ptr x, ptr y, i32 ctype, ptr buf, ptr s)
//   i64  mgpuSpMMBufferSize(i32 opA, i32 opB, ptr A, ptr B, ptr C, i32 ctype,
//                           ptr stream)
//   void mgpuSpMM(i32 opA, i32 opB, ptr A, ptr B, ptr C, i32 ctype, ptr buf,
//                 ptr stream)
//   i64  mgpuSDDMMBufferSize / void mgpuSDDMM: same operands, A and B dense,
//        C sparse
//
// `dtype`/`ctype` are cudaDataType values and `ptype`/`itype`
// cusparseIndexType values, as the lowering encodes them. The operations
// compute with alpha = beta = 1 (C += A B, the semantics of the linalg ops
// upstream matches). One cuSPARSE handle serves the process; it is created
// on first use (explicit mgpuCreateSparseEnv calls are accepted) and bound
// to the stream of each call. Dense matrices are row-major. Unsupported data
// or index types are reported, never guessed.
//
//===----------------------------------------------------------------------===//

#include "RuntimeProfile.h"
#include "RuntimeSupport.h"

#include <cstdint>
#include <mutex>
#include <string>

using namespace sptune::cuda;

#define SPTUNE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

struct SparseEnv {
  std::mutex mutex; ///< guards the handle and its stream binding
  cusparseHandle_t handle = nullptr;
};

SparseEnv &env() {
  static SparseEnv e;
  return e;
}

/// The handle, created on first use; null after a reported failure. Call
/// with env().mutex held and a current context.
cusparseHandle_t handleLocked(const char *where) {
  SparseEnv &e = env();
  if (!e.handle && !SPTUNE_CU(cusparseCreate(&e.handle), where))
    e.handle = nullptr;
  return e.handle;
}

/// Checks a cudaDataType the runtime computes in.
bool dataType(int32_t dtype, cudaDataType &out, const char *where) {
  switch (dtype) {
  case CUDA_R_32F:
  case CUDA_R_64F:
    out = static_cast<cudaDataType>(dtype);
    return true;
  default:
    fail(where, "unsupported data type " + std::to_string(dtype) +
                    " (sptune's runtime computes in f32 and f64)");
    return false;
  }
}

/// Checks a cusparseIndexType.
bool indexType(int32_t itype, cusparseIndexType_t &out, const char *where) {
  switch (itype) {
  case CUSPARSE_INDEX_32I:
  case CUSPARSE_INDEX_64I:
    out = static_cast<cusparseIndexType_t>(itype);
    return true;
  default:
    fail(where, "unsupported index type " + std::to_string(itype) +
                    " (cuSPARSE's generic API takes 32- and 64-bit indices)");
    return false;
  }
}

bool operation(int32_t op, cusparseOperation_t &out, const char *where) {
  switch (op) {
  case CUSPARSE_OPERATION_NON_TRANSPOSE:
  case CUSPARSE_OPERATION_TRANSPOSE:
  case CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE:
    out = static_cast<cusparseOperation_t>(op);
    return true;
  default:
    fail(where, "unknown cuSPARSE operation " + std::to_string(op));
    return false;
  }
}

/// alpha = beta = 1 in the compute type.
struct Scalars {
  float f = 1.0f;
  double d = 1.0;
  const void *get(cudaDataType t) const {
    return t == CUDA_R_64F ? static_cast<const void *>(&d)
                           : static_cast<const void *>(&f);
  }
};

bool nonNull(std::initializer_list<const void *> handles, const char *where) {
  for (const void *h : handles)
    if (!h) {
      fail(where, "skipped: a null descriptor (its creation failed)");
      return false;
    }
  return true;
}

/// Creates a sparse matrix descriptor through `create` after checking types.
template <typename Create>
void *createSparse(const char *where, int32_t ptype, int32_t itype,
                   int32_t dtype, Create create) {
  ScopedContext context(where);
  cusparseIndexType_t p, i;
  cudaDataType d;
  if (!context.ok() || !indexType(ptype, p, where) ||
      !indexType(itype, i, where) || !dataType(dtype, d, where))
    return nullptr;
  cusparseSpMatDescr_t mat = nullptr;
  if (!check(create(&mat, p, i, d), "cusparseCreate*", where))
    return nullptr;
  return mat;
}

} // namespace

SPTUNE_EXPORT void mgpuCreateSparseEnv() {
  ScopedContext context("mgpuCreateSparseEnv");
  if (!context.ok())
    return;
  std::lock_guard<std::mutex> lock(env().mutex);
  handleLocked("mgpuCreateSparseEnv");
}

SPTUNE_EXPORT void mgpuDestroySparseEnv() {
  ScopedContext context("mgpuDestroySparseEnv");
  std::lock_guard<std::mutex> lock(env().mutex);
  if (context.ok() && env().handle)
    SPTUNE_CU(cusparseDestroy(env().handle), "mgpuDestroySparseEnv");
  env().handle = nullptr;
}

SPTUNE_EXPORT void *mgpuCreateDnVec(intptr_t size, void *values, int32_t dtype,
                                    void * /*stream*/) {
  const char *where = "mgpuCreateDnVec";
  ScopedContext context(where);
  cudaDataType d;
  if (!context.ok() || !dataType(dtype, d, where))
    return nullptr;
  cusparseDnVecDescr_t vec = nullptr;
  if (!SPTUNE_CU(cusparseCreateDnVec(&vec, size, values, d), where))
    return nullptr;
  return vec;
}

SPTUNE_EXPORT void mgpuDestroyDnVec(void *vec, void * /*stream*/) {
  if (!vec)
    return;
  ScopedContext context("mgpuDestroyDnVec");
  if (context.ok())
    SPTUNE_CU(cusparseDestroyDnVec(reinterpret_cast<cusparseDnVecDescr_t>(vec)),
              "mgpuDestroyDnVec");
}

SPTUNE_EXPORT void *mgpuCreateDnMat(intptr_t rows, intptr_t cols, void *values,
                                    int32_t dtype, void * /*stream*/) {
  const char *where = "mgpuCreateDnMat";
  ScopedContext context(where);
  cudaDataType d;
  if (!context.ok() || !dataType(dtype, d, where))
    return nullptr;
  cusparseDnMatDescr_t mat = nullptr;
  if (!SPTUNE_CU(cusparseCreateDnMat(&mat, rows, cols, /*ld=*/cols, values, d,
                                     CUSPARSE_ORDER_ROW),
                 where))
    return nullptr;
  return mat;
}

SPTUNE_EXPORT void mgpuDestroyDnMat(void *mat, void * /*stream*/) {
  if (!mat)
    return;
  ScopedContext context("mgpuDestroyDnMat");
  if (context.ok())
    SPTUNE_CU(cusparseDestroyDnMat(reinterpret_cast<cusparseDnMatDescr_t>(mat)),
              "mgpuDestroyDnMat");
}

SPTUNE_EXPORT void *mgpuCreateCoo(intptr_t rows, intptr_t cols, intptr_t nnz,
                                  void *rowIdx, void *colIdx, void *values,
                                  int32_t itype, int32_t dtype,
                                  void * /*stream*/) {
  return createSparse(
      "mgpuCreateCoo", itype, itype, dtype,
      [&](cusparseSpMatDescr_t *mat, cusparseIndexType_t, cusparseIndexType_t i,
          cudaDataType d) {
        return cusparseCreateCoo(mat, rows, cols, nnz, rowIdx, colIdx, values,
                                 i, CUSPARSE_INDEX_BASE_ZERO, d);
      });
}

SPTUNE_EXPORT void *mgpuCreateCsr(intptr_t rows, intptr_t cols, intptr_t nnz,
                                  void *pos, void *crd, void *values,
                                  int32_t ptype, int32_t itype, int32_t dtype,
                                  void * /*stream*/) {
  return createSparse(
      "mgpuCreateCsr", ptype, itype, dtype,
      [&](cusparseSpMatDescr_t *mat, cusparseIndexType_t p,
          cusparseIndexType_t i, cudaDataType d) {
        return cusparseCreateCsr(mat, rows, cols, nnz, pos, crd, values, p, i,
                                 CUSPARSE_INDEX_BASE_ZERO, d);
      });
}

SPTUNE_EXPORT void *mgpuCreateCsc(intptr_t rows, intptr_t cols, intptr_t nnz,
                                  void *pos, void *crd, void *values,
                                  int32_t ptype, int32_t itype, int32_t dtype,
                                  void * /*stream*/) {
  return createSparse(
      "mgpuCreateCsc", ptype, itype, dtype,
      [&](cusparseSpMatDescr_t *mat, cusparseIndexType_t p,
          cusparseIndexType_t i, cudaDataType d) {
        return cusparseCreateCsc(mat, rows, cols, nnz, pos, crd, values, p, i,
                                 CUSPARSE_INDEX_BASE_ZERO, d);
      });
}

SPTUNE_EXPORT void *mgpuCreateBsr(intptr_t blockRows, intptr_t blockCols,
                                  intptr_t blockNnz, intptr_t rowBlock,
                                  intptr_t colBlock, void *pos, void *crd,
                                  void *values, int32_t ptype, int32_t itype,
                                  int32_t dtype, void * /*stream*/) {
  // MLIR's BSR levels (i / b, j / b, i mod b, j mod b) store each block
  // row-major.
  return createSparse(
      "mgpuCreateBsr", ptype, itype, dtype,
      [&](cusparseSpMatDescr_t *mat, cusparseIndexType_t p,
          cusparseIndexType_t i, cudaDataType d) {
        return cusparseCreateBsr(mat, blockRows, blockCols, blockNnz,
                                 rowBlock, colBlock, pos, crd, values, p, i,
                                 CUSPARSE_INDEX_BASE_ZERO, d,
                                 CUSPARSE_ORDER_ROW);
      });
}

SPTUNE_EXPORT void mgpuDestroySpMat(void *mat, void * /*stream*/) {
  if (!mat)
    return;
  ScopedContext context("mgpuDestroySpMat");
  if (context.ok())
    SPTUNE_CU(cusparseDestroySpMat(reinterpret_cast<cusparseSpMatDescr_t>(mat)),
              "mgpuDestroySpMat");
}

//===----------------------------------------------------------------------===//
// Operations.
//===----------------------------------------------------------------------===//

namespace {
/// Runs `body(handle, computeType, alpha, beta)` on `stream` with the handle
/// bound to it; returns false (after reporting) when anything is missing.
template <typename Body>
bool withHandle(const char *where, void *stream, int32_t ctype, Body body) {
  ScopedContext context(where);
  cudaDataType c;
  if (!context.ok() || !dataType(ctype, c, where))
    return false;
  std::lock_guard<std::mutex> lock(env().mutex);
  cusparseHandle_t handle = handleLocked(where);
  if (!handle ||
      !SPTUNE_CU(cusparseSetStream(handle, reinterpret_cast<cudaStream_t>(
                                               stream)),
                 where))
    return false;
  Scalars one;
  return body(handle, c, one.get(c), one.get(c));
}
} // namespace

SPTUNE_EXPORT intptr_t mgpuSpMVBufferSize(int32_t opA, void *a, void *x,
                                          void *y, int32_t ctype,
                                          void *stream) {
  const char *where = "mgpuSpMVBufferSize";
  size_t size = 0;
  cusparseOperation_t op;
  if (!operation(opA, op, where) || !nonNull({a, x, y}, where))
    return 0;
  withHandle(where, stream, ctype,
             [&](cusparseHandle_t h, cudaDataType c, const void *alpha,
                 const void *beta) {
               return SPTUNE_CU(
                   cusparseSpMV_bufferSize(
                       h, op, alpha, reinterpret_cast<cusparseSpMatDescr_t>(a),
                       reinterpret_cast<cusparseDnVecDescr_t>(x), beta,
                       reinterpret_cast<cusparseDnVecDescr_t>(y), c,
                       CUSPARSE_SPMV_ALG_DEFAULT, &size),
                   where);
             });
  return static_cast<intptr_t>(size);
}

SPTUNE_EXPORT void mgpuSpMV(int32_t opA, void *a, void *x, void *y,
                            int32_t ctype, void *buffer, void *stream) {
  const char *where = "mgpuSpMV";
  cusparseOperation_t op;
  if (!operation(opA, op, where) || !nonNull({a, x, y}, where))
    return;
  withHandle(where, stream, ctype,
             [&](cusparseHandle_t h, cudaDataType c, const void *alpha,
                 const void *beta) {
               ProfiledRegion region(reinterpret_cast<CUstream>(stream), where);
               return SPTUNE_CU(
                   cusparseSpMV(h, op, alpha,
                                reinterpret_cast<cusparseSpMatDescr_t>(a),
                                reinterpret_cast<cusparseDnVecDescr_t>(x),
                                beta,
                                reinterpret_cast<cusparseDnVecDescr_t>(y), c,
                                CUSPARSE_SPMV_ALG_DEFAULT, buffer),
                   where);
             });
}

SPTUNE_EXPORT intptr_t mgpuSpMMBufferSize(int32_t opA, int32_t opB, void *a,
                                          void *b, void *c, int32_t ctype,
                                          void *stream) {
  const char *where = "mgpuSpMMBufferSize";
  size_t size = 0;
  cusparseOperation_t oa, ob;
  if (!operation(opA, oa, where) || !operation(opB, ob, where) ||
      !nonNull({a, b, c}, where))
    return 0;
  withHandle(where, stream, ctype,
             [&](cusparseHandle_t h, cudaDataType t, const void *alpha,
                 const void *beta) {
               return SPTUNE_CU(
                   cusparseSpMM_bufferSize(
                       h, oa, ob, alpha,
                       reinterpret_cast<cusparseSpMatDescr_t>(a),
                       reinterpret_cast<cusparseDnMatDescr_t>(b), beta,
                       reinterpret_cast<cusparseDnMatDescr_t>(c), t,
                       CUSPARSE_SPMM_ALG_DEFAULT, &size),
                   where);
             });
  return static_cast<intptr_t>(size);
}

SPTUNE_EXPORT void mgpuSpMM(int32_t opA, int32_t opB, void *a, void *b,
                            void *c, int32_t ctype, void *buffer,
                            void *stream) {
  const char *where = "mgpuSpMM";
  cusparseOperation_t oa, ob;
  if (!operation(opA, oa, where) || !operation(opB, ob, where) ||
      !nonNull({a, b, c}, where))
    return;
  withHandle(where, stream, ctype,
             [&](cusparseHandle_t h, cudaDataType t, const void *alpha,
                 const void *beta) {
               ProfiledRegion region(reinterpret_cast<CUstream>(stream), where);
               return SPTUNE_CU(
                   cusparseSpMM(h, oa, ob, alpha,
                                reinterpret_cast<cusparseSpMatDescr_t>(a),
                                reinterpret_cast<cusparseDnMatDescr_t>(b),
                                beta,
                                reinterpret_cast<cusparseDnMatDescr_t>(c), t,
                                CUSPARSE_SPMM_ALG_DEFAULT, buffer),
                   where);
             });
}

SPTUNE_EXPORT intptr_t mgpuSDDMMBufferSize(int32_t opA, int32_t opB, void *a,
                                           void *b, void *c, int32_t ctype,
                                           void *stream) {
  const char *where = "mgpuSDDMMBufferSize";
  size_t size = 0;
  cusparseOperation_t oa, ob;
  if (!operation(opA, oa, where) || !operation(opB, ob, where) ||
      !nonNull({a, b, c}, where))
    return 0;
  withHandle(where, stream, ctype,
             [&](cusparseHandle_t h, cudaDataType t, const void *alpha,
                 const void *beta) {
               return SPTUNE_CU(
                   cusparseSDDMM_bufferSize(
                       h, oa, ob, alpha,
                       reinterpret_cast<cusparseDnMatDescr_t>(a),
                       reinterpret_cast<cusparseDnMatDescr_t>(b), beta,
                       reinterpret_cast<cusparseSpMatDescr_t>(c), t,
                       CUSPARSE_SDDMM_ALG_DEFAULT, &size),
                   where);
             });
  return static_cast<intptr_t>(size);
}

SPTUNE_EXPORT void mgpuSDDMM(int32_t opA, int32_t opB, void *a, void *b,
                             void *c, int32_t ctype, void *buffer,
                             void *stream) {
  const char *where = "mgpuSDDMM";
  cusparseOperation_t oa, ob;
  if (!operation(opA, oa, where) || !operation(opB, ob, where) ||
      !nonNull({a, b, c}, where))
    return;
  withHandle(where, stream, ctype,
             [&](cusparseHandle_t h, cudaDataType t, const void *alpha,
                 const void *beta) {
               ProfiledRegion region(reinterpret_cast<CUstream>(stream), where);
               return SPTUNE_CU(
                   cusparseSDDMM(h, oa, ob, alpha,
                                 reinterpret_cast<cusparseDnMatDescr_t>(a),
                                 reinterpret_cast<cusparseDnMatDescr_t>(b),
                                 beta,
                                 reinterpret_cast<cusparseSpMatDescr_t>(c), t,
                                 CUSPARSE_SDDMM_ALG_DEFAULT, buffer),
                   where);
             });
}
