//===- KernelReport.h - JSON report of extracted kernels --------*- C++ -*-===//
//
// Part of sptune. Writes the kernels found by `sptune-extract-kernels` as JSON
// (schema: docs/kernel-report.md).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_ANALYSIS_KERNELREPORT_H
#define SPTUNE_ANALYSIS_KERNELREPORT_H

#include "sptune/IR/SptuneAttrs.h"

#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace sptune {

/// Version of the report schema; bump on incompatible changes.
constexpr int kKernelReportVersion = 1;

/// One recognized kernel: the op it annotates and its description.
struct ReportedKernel {
  Operation *op;
  KernelAttr kernel;
  /// What the op computes (KernelDescriptor::str()).
  std::string descriptor;
};

/// A sparse op the matcher did not recognize: why, and what it computes
/// when that can be described (`shape`: KernelDescriptor::shapeName()).
struct UnrecognizedKernel {
  Operation *op;
  std::string reason;
  std::string shape;
  std::string descriptor;
};

/// Writes the report for `kernels` (and the sparse ops passed through
/// untuned) to `os` as one JSON document.
void writeKernelReport(llvm::raw_ostream &os,
                       llvm::ArrayRef<ReportedKernel> kernels,
                       llvm::ArrayRef<UnrecognizedKernel> unrecognized = {});

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_ANALYSIS_KERNELREPORT_H
