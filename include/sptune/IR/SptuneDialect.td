//===- SptuneDialect.td - sptune dialect definition --------*- tablegen -*-===//
//
// The sptune dialect holds the attributes sptune attaches to sparse kernels:
// what a kernel is (#sptune.kernel) and how it is to be scheduled
// (#sptune.schedule).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_IR_SPTUNEDIALECT_TD
#define SPTUNE_IR_SPTUNEDIALECT_TD

include "mlir/IR/DialectBase.td"

def Sptune_Dialect : Dialect {
  let name = "sptune";
  let cppNamespace = "::mlir::sptune";
  let summary = "Attributes of the sptune sparse autotuner";
  let description = [{
    `sptune` describes recognized sparse kernels (SpMM, SDDMM, SpMV) and the
    format + loop schedule chosen for them. It has no operations: its
    attributes annotate `linalg` operations on `#sparse_tensor` types.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::sparse_tensor::SparseTensorDialect"];
  let extraClassDeclaration = [{
    /// Name of the discardable attribute holding the #sptune.kernel.
    static constexpr ::llvm::StringLiteral kKernelAttrName = "sptune.kernel";
    /// Name of the discardable attribute holding the #sptune.schedule.
    static constexpr ::llvm::StringLiteral kScheduleAttrName = "sptune.schedule";
    /// Name of the argument attribute naming the matrix bound to an argument.
    static constexpr ::llvm::StringLiteral kMatrixAttrName = "sptune.matrix";
    /// Name of the unit attribute on the sparse copies of
    /// sptune/Transforms/ConvertStorage.h (the one that widens narrow
    /// storage before a conversion, the one that keeps a blocked result's
    /// sample entries): part of the scheduled kernel, not a kernel of its
    /// own.
    static constexpr ::llvm::StringLiteral kStorageCopyAttrName =
        "sptune.storage_copy";
  private:
    void registerAttributes();
  public:
  }];
}

#endif // SPTUNE_IR_SPTUNEDIALECT_TD
