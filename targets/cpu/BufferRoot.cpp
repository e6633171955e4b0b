//===- BufferRoot.cpp - The buffer a memref value is a view of ------------===//

#include "cpu/BufferRoot.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

Value mlir::sptune::bufferRoot(Value memref) {
  while (Operation *def = memref.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      memref = view.getViewSource();
      continue;
    }
    if (auto cast = dyn_cast<memref::CastOp>(def)) {
      memref = cast.getSource();
      continue;
    }
    break;
  }
  return memref;
}
