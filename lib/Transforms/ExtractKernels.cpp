//===- ExtractKernels.cpp - sptune-extract-kernels ------------------------===//
//
// Thin pass over the KernelMatcher analysis: annotate each recognized kernel
// with #sptune.kernel, remark on sparse ops that are not recognized, and
// optionally write the JSON report.
//
//===----------------------------------------------------------------------===//

#include "sptune/Analysis/KernelMatcher.h"
#include "sptune/Analysis/KernelReport.h"
#include "sptune/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_EXTRACTKERNELS
#include "sptune/Transforms/Passes.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;

namespace {
struct ExtractKernelsPass
    : public mlir::sptune::impl::ExtractKernelsBase<ExtractKernelsPass> {
  using ExtractKernelsBase::ExtractKernelsBase;

  void runOnOperation() override {
    SmallVector<ReportedKernel> kernels;
    SmallVector<UnrecognizedKernel> unrecognized;
    getOperation()->walk([&](linalg::LinalgOp op) {
      KernelMatch match = matchSparseKernel(op);
      if (!match.isSparse)
        return;
      std::string descriptor =
          match.descriptor ? match.descriptor->str() : std::string();
      if (!match.recognized()) {
        std::string shape =
            match.descriptor ? match.descriptor->shapeName() : std::string();
        if (emitRemarks) {
          InFlightDiagnostic remark =
              op->emitRemark("sptune: not a recognized sparse kernel: ")
              << match.reason;
          // What it computes, so that the user sees which kernel passed
          // through untuned (an SpGEMM, an MTTKRP, ...).
          if (match.descriptor)
            remark << "; seen as " << (shape.empty() ? "" : shape + ": ")
                   << descriptor;
        }
        unrecognized.push_back({op, match.reason, shape, descriptor});
        return;
      }
      op->setAttr(SptuneDialect::kKernelAttrName, match.kernel);
      kernels.push_back({op, match.kernel, descriptor});
    });
    if (!reportFile.empty() && failed(writeReport(kernels, unrecognized)))
      return signalPassFailure();
  }

  LogicalResult writeReport(ArrayRef<ReportedKernel> kernels,
                            ArrayRef<UnrecognizedKernel> unrecognized) {
    if (reportFile == "-") {
      writeKernelReport(llvm::outs(), kernels, unrecognized);
      llvm::outs().flush();
      return success();
    }
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> out =
        openOutputFile(reportFile, &error);
    if (!out)
      return mlir::emitError(getOperation().getLoc(),
                             "sptune: cannot write report '")
             << reportFile << "': " << error;
    writeKernelReport(out->os(), kernels, unrecognized);
    out->keep();
    return success();
  }
};
} // namespace
