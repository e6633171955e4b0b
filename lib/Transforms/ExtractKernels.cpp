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
    getOperation()->walk([&](linalg::LinalgOp op) {
      KernelMatch match = matchSparseKernel(op);
      if (!match.isSparse)
        return;
      if (!match.recognized()) {
        if (emitRemarks)
          op->emitRemark("sptune: not a recognized sparse kernel: ")
              << match.reason;
        return;
      }
      op->setAttr(SptuneDialect::kKernelAttrName, match.kernel);
      kernels.push_back({op, match.kernel});
    });
    if (!reportFile.empty() && failed(writeReport(kernels)))
      return signalPassFailure();
  }

  LogicalResult writeReport(ArrayRef<ReportedKernel> kernels) {
    if (reportFile == "-") {
      writeKernelReport(llvm::outs(), kernels);
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
    writeKernelReport(out->os(), kernels);
    out->keep();
    return success();
  }
};
} // namespace
