//===- Passes.h - sptune passes ---------------------------------*- C++ -*-===//

#ifndef SPTUNE_TRANSFORMS_PASSES_H
#define SPTUNE_TRANSFORMS_PASSES_H

#include "sptune/CostModel/CostModel.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Support/ListingEnumParser.h"

#include "mlir/Pass/Pass.h"

SPTUNE_LISTING_ENUM_PARSER(::sptune::CostModelMode)

namespace mlir {
namespace sptune {

#define GEN_PASS_DECL
#include "sptune/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sptune/Transforms/Passes.h.inc"

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TRANSFORMS_PASSES_H
