//===- FilledOutput.cpp - An output that starts from a fill ---------------===//

#include "cpu/FilledOutput.h"

#include "mlir/Interfaces/DestinationStyleOpInterface.h"

using namespace mlir;

void mlir::sptune::eraseUnusedFill(RewriterBase &rewriter, Operation *fill) {
  Operation *fresh =
      cast<DestinationStyleOpInterface>(fill).getDpsInits()[0].getDefiningOp();
  for (Operation *dead : {fill, fresh})
    if (dead && dead->use_empty())
      rewriter.eraseOp(dead);
}
