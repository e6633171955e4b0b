/*===- SptuneCudaRuntime.h - sptune's CUDA runtime, C API --------*- C -*-===//
 *
 * Part of sptune. libsptune_cuda_runtime.so implements the `mgpu*` entry
 * points that MLIR's gpu-to-llvm lowering calls (modules, launches, memory,
 * streams, events, and the cuSPARSE ones of the sparse library path) against
 * the CUDA driver API and cuSPARSE. Besides those, it exports this small C
 * API for sptune's GPU measurer, which loads the library with dlopen (so
 * that tools linking the measurer start on machines without a CUDA driver):
 * device probing, error state, a profiler of device time, and the cuSPARSE
 * baseline kernels. No CUDA types appear here.
 *
 * Errors never abort silently: every failing CUDA or cuSPARSE call prints one
 * line to stderr ("sptune-cuda-runtime: <entry point>: <call> failed: <name>:
 * <description>") and is recorded; the first message stays readable through
 * sptuneCudaLastError until sptuneCudaResetErrors. Set
 * SPTUNE_CUDA_ABORT_ON_ERROR=1 to abort after the message instead.
 *
 *===----------------------------------------------------------------------===*/

#ifndef SPTUNE_TARGETS_NVVM_RUNTIME_SPTUNECUDARUNTIME_H
#define SPTUNE_TARGETS_NVVM_RUNTIME_SPTUNECUDARUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Version of this C API; bumped whenever a signature below changes.
#define SPTUNE_CUDA_RUNTIME_API_VERSION 1
int32_t sptuneCudaRuntimeApiVersion(void);

/// Initializes the driver and the primary context of the default device.
/// Returns 0 when a device is usable; otherwise nonzero, with the reason in
/// `message` (NUL-terminated, at most `capacity` bytes). On success `message`
/// holds the device name and compute capability ("NVIDIA H200, sm_90").
int32_t sptuneCudaProbe(char *message, int64_t capacity);

/// Number of CUDA/cuSPARSE errors since the last reset.
int64_t sptuneCudaErrorCount(void);
/// The first error message since the last reset ("" when none). The pointer
/// stays valid until the next reset.
const char *sptuneCudaLastError(void);
void sptuneCudaResetErrors(void);

/// Starts recording the device time of every kernel launch and every
/// cuSPARSE compute call (SpMV, SpMM, SDDMM; not their buffer-size queries
/// or descriptor set-up), with CUDA events around each on its stream.
void sptuneCudaProfileBegin(void);
/// Stops recording, waits for the recorded work, and writes the durations
/// in seconds, in call order, to `seconds` (at most `capacity`). Returns the
/// number of intervals recorded (possibly more than `capacity`), or -1 when
/// an interval could not be timed (the error is recorded).
int64_t sptuneCudaProfileEnd(double *seconds, int64_t capacity);

/// The cuSPARSE baselines. The matrix is CSR on the host (row pointers of
/// rows + 1 entries, column indices, values as float or double per
/// `elementBits`); dense operands are row-major on the host. Everything is
/// uploaded once, then `warmups` untimed and `reps` timed calls run; the
/// device time of each timed call goes to `seconds[0..reps)`, and the result
/// of the last call is copied to `out`. Returns 0 on success, else nonzero
/// with the reason in `error`.
///
/// SpMM: out (rows x n) = A (rows x cols) * B (cols x n).
int32_t sptuneCusparseSpMM(int64_t rows, int64_t cols, int64_t nnz,
                           const int64_t *rowPtr, const int32_t *colIdx,
                           const void *values, int32_t elementBits, int64_t n,
                           const void *b, void *out, int32_t warmups,
                           int32_t reps, double *seconds, char *error,
                           int64_t errorCapacity);
/// SDDMM, the sampled product: out[e] = (A B)(i, j) for each stored entry e
/// = (i, j) of the pattern (values of the sparse matrix are not used;
/// cusparseSDDMM with beta = 0). A is rows x k, B is k x cols; out has nnz
/// entries in CSR order.
int32_t sptuneCusparseSDDMM(int64_t rows, int64_t cols, int64_t nnz,
                            const int64_t *rowPtr, const int32_t *colIdx,
                            int32_t elementBits, int64_t k, const void *a,
                            const void *b, void *out, int32_t warmups,
                            int32_t reps, double *seconds, char *error,
                            int64_t errorCapacity);

#ifdef __cplusplus
}
#endif

#endif /* SPTUNE_TARGETS_NVVM_RUNTIME_SPTUNECUDARUNTIME_H */
