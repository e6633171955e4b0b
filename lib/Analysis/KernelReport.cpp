//===- KernelReport.cpp - JSON report of extracted kernels ----------------===//

#include "sptune/Analysis/KernelReport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::sptune;

template <typename T> static std::string printToString(const T &value) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << value;
  return s;
}

static std::string locationString(Location loc) {
  if (auto fl = loc->findInstanceOf<FileLineColLoc>())
    return (fl.getFilename().strref() + ":" + llvm::Twine(fl.getLine()) + ":" +
            llvm::Twine(fl.getColumn()))
        .str();
  return printToString(loc);
}

static void writeShape(llvm::json::OStream &j, ArrayRef<int64_t> shape) {
  j.array([&] {
    for (int64_t d : shape) {
      if (ShapedType::isDynamic(d))
        j.value(nullptr);
      else
        j.value(d);
    }
  });
}

void mlir::sptune::writeKernelReport(
    llvm::raw_ostream &os, ArrayRef<ReportedKernel> kernels,
    ArrayRef<UnrecognizedKernel> unrecognized) {
  llvm::json::OStream j(os, /*IndentSize=*/2);
  j.object([&] {
    j.attribute("version", kKernelReportVersion);
    j.attributeArray("kernels", [&] {
      for (const ReportedKernel &rk : kernels) {
        KernelAttr k = rk.kernel;
        auto func = rk.op->getParentOfType<func::FuncOp>();
        j.object([&] {
          j.attribute("function", func ? func.getSymName().str() : "");
          j.attribute("location", locationString(rk.op->getLoc()));
          j.attribute("op", rk.op->getName().getStringRef().str());
          j.attribute("kind", stringifyKernelKind(k.getKind()).str());
          j.attribute("descriptor", rk.descriptor);
          j.attribute("element_type", printToString(k.getElementType()));
          j.attributeArray("loops", [&] {
            for (auto [role, size] :
                 llvm::zip(k.getLoopRoles(), k.getLoopSizes()))
              j.object([&] {
                j.attribute("role", stringifyLoopRole(role).str());
                if (ShapedType::isDynamic(size))
                  j.attribute("size", nullptr);
                else
                  j.attribute("size", size);
              });
          });
          j.attributeArray("loop_order", [&] {
            for (LoopRole role : k.getLoopRoles())
              j.value(stringifyLoopRole(role).str());
          });
          j.attribute("sparse_operand", k.getSparseOperand());
          j.attribute("encoding", printToString(k.getEncoding()));
          j.attributeArray("operands", [&] {
            for (unsigned o = 0; o < k.getNumOperands(); ++o) {
              // The kernel comes from the matcher, so its operands are the
              // op's ranked tensors; stay safe should an attribute written
              // by hand disagree with its op.
              Type type = o < rk.op->getNumOperands()
                              ? rk.op->getOperand(o).getType()
                              : Type();
              auto tensor = dyn_cast_or_null<RankedTensorType>(type);
              j.object([&] {
                j.attribute("index", o);
                j.attribute("kind",
                            stringifyOperandKind(k.getOperandKinds()[o]).str());
                j.attributeArray("dims", [&] {
                  for (LoopRole r : k.getOperandRoles(o))
                    j.value(stringifyLoopRole(r).str());
                });
                if (tensor) {
                  j.attributeBegin("shape");
                  writeShape(j, tensor.getShape());
                  j.attributeEnd();
                } else {
                  j.attribute("shape", nullptr);
                }
                if (type)
                  j.attribute("type", printToString(type));
                else
                  j.attribute("type", nullptr);
              });
            }
          });
        });
      }
    });
    j.attributeArray("unrecognized", [&] {
      for (const UnrecognizedKernel &u : unrecognized) {
        auto func = u.op->getParentOfType<func::FuncOp>();
        j.object([&] {
          j.attribute("function", func ? func.getSymName().str() : "");
          j.attribute("location", locationString(u.op->getLoc()));
          j.attribute("op", u.op->getName().getStringRef().str());
          j.attribute("reason", u.reason);
          j.attribute("shape", u.shape);
          j.attribute("descriptor", u.descriptor);
        });
      }
    });
  });
  os << "\n";
}
