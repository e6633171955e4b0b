//===- SptuneAttrs.td - sptune attributes ------------------*- tablegen -*-===//

#ifndef SPTUNE_IR_SPTUNEATTRS_TD
#define SPTUNE_IR_SPTUNEATTRS_TD

include "sptune/IR/SptuneDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

// The kernel kind and the loop roles are the plain vocabulary's
// (sptune/Schedule/Vocabulary.h: ::sptune::KernelType, ::sptune::Role),
// named KernelKind and LoopRole in the dialect (SptuneAttrs.h).

def Sptune_OperandKind : I32EnumAttr<"OperandKind", "role of a kernel operand", [
    I32EnumAttrCase<"Sparse", 0, "sparse">,
    I32EnumAttrCase<"Dense", 1, "dense">,
    I32EnumAttrCase<"Out", 2, "out">,
    I32EnumAttrCase<"SparseOut", 3, "sparse_out">
  ]> {
  let cppNamespace = "::mlir::sptune";
  let genSpecializedAttr = 0;
}

class Sptune_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Sptune_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// KernelAttr
//===----------------------------------------------------------------------===//

def Sptune_KernelAttr : Sptune_Attr<"Kernel", "kernel"> {
  let summary = "A recognized sparse kernel";
  let description = [{
    Describes a `linalg` operation recognized as a sparse kernel:

    ```mlir
    #sptune.kernel<spmm, loops = [i : 1024, j : 64, k : ?],
                   operands = [sparse(i, k), dense(k, j), out(i, j)],
                   type = f64,
                   encoding = #sparse_tensor.encoding<{...}>>
    ```

    - the kind (`spmm`, `sddmm`, `spmv`, `spgemm`, `mttkrp`, `batched_spmm`,
      `hadamard`, or a kind added at run time);
    - `loops`: the iteration dimensions of the op in their current order
      (`d0` first), each with its canonical role and its static size (`?` when
      dynamic); the order of the roles is the kernel's current loop order;
    - `operands`: one entry per operand of the op (inputs then outputs): its
      kind (`sparse`, `dense`, `out`, or `sparse_out` for a sparse output: an
      SDDMM's that shares the sampling pattern, an SpGEMM's) and the roles indexing its dimensions, in order —
      `dense(j, k)` is a transposed dense operand; an MTTKRP's are
      `sparse(i, k, l), dense(k, j), dense(l, j), out(i, j)`, a batched
      SpMM's `sparse(b, i, k), dense(b, k, j), out(b, i, j)`;
    - `type`: the element type;
    - `encoding`: the current `#sparse_tensor.encoding` of the sparse operand
      (an SpGEMM's A(i, k); an MTTKRP's 3-D B(i, k, l), a batched SpMM's 3-D
      A(b, i, k); every other kind's sparse operand is a matrix).
  }];
  let parameters = (ins
    "::mlir::sptune::KernelKind":$kind,
    ArrayRefParameter<"::mlir::sptune::LoopRole", "loop roles">:$loopRoles,
    ArrayRefParameter<"int64_t", "loop sizes">:$loopSizes,
    ArrayRefParameter<"::mlir::sptune::OperandKind", "operand kinds">:$operandKinds,
    /// Flattened roles of each operand's dimensions; operandRanks splits it.
    ArrayRefParameter<"::mlir::sptune::LoopRole", "operand dims">:$operandDims,
    ArrayRefParameter<"int64_t", "operand ranks">:$operandRanks,
    "::mlir::Type":$elementType,
    "::mlir::sparse_tensor::SparseTensorEncodingAttr":$encoding
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getNumOperands() const { return getOperandKinds().size(); }
    /// Roles of the dimensions of operand `idx`.
    ::llvm::SmallVector<LoopRole> getOperandRoles(unsigned idx) const;
    /// Index of the (sampling) sparse input operand; an SpGEMM's A(i, k).
    unsigned getSparseOperand() const;
    /// Position of the loop with `role` in the current loop order, or -1.
    int getLoopPosition(LoopRole role) const;
    /// Size of the loop with `role` (ShapedType::kDynamic when dynamic).
    int64_t getLoopSize(LoopRole role) const;
  }];
}

//===----------------------------------------------------------------------===//
// ScheduleAttr
//===----------------------------------------------------------------------===//

def Sptune_ScheduleAttr : Sptune_Attr<"Schedule", "schedule"> {
  let summary = "A sparse format + loop schedule for a kernel";
  let description = [{
    The printed form of the plain C++ `sptune::Schedule`
    (include/sptune/Schedule/Schedule.h), 1:1: the same grammar is parsed by
    `sptune::parseSchedule` and by this attribute. Example:

    ```mlir
    #sptune.schedule<cpu spmm, levels = [i1 : dense, k1 : compressed,
        i0 : dense, k0 : dense], split = [4, 4], order = [i1, k1, j, i0, k0],
        widths = [32, 32], tile = 0, parallel = outer, threads = 0,
        omp = dynamic, chunk = 16, vl = 8, simd32 = false>
    ```

    Keys that are left out take their defaults (CSR, natural loop order,
    no parallelism, no vectorization). The verifier rejects illegal schedules
    (`sptune::whyIllegal`) with the reason.
  }];
  let parameters = (ins
    AttrParameter<"::sptune::Schedule", "the schedule">:$schedule
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // SPTUNE_IR_SPTUNEATTRS_TD
