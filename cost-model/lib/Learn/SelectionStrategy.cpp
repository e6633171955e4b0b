//===- SelectionStrategy.cpp - Strategies by name -------------------------===//

#include "sptune/Learn/SelectionStrategy.h"

#include "StrategySupport.h"

using namespace sptune;
using namespace sptune::learn;

SelectionStrategy::~SelectionStrategy() = default;

const std::vector<std::string> &sptune::strategyNames() {
  static const std::vector<std::string> names = {
      "random", "rs2", "diversity", "uncertainty", "exploitation",
      "exploration"};
  return names;
}

llvm::Expected<std::unique_ptr<SelectionStrategy>>
sptune::createStrategy(std::string_view name, const StrategyOptions &o) {
  if (name == "random")
    return makeRandomStrategy();
  if (name == "rs2") {
    if (!(o.rs2Fraction > 0 && o.rs2Fraction <= 1))
      return failure("rs2: the fraction of problems per epoch must be in "
                     "(0, 1]");
    return makeRs2Strategy(o.rs2Fraction);
  }
  if (name == "diversity") {
    if (o.perMatrix < 1)
      return failure("diversity: at least one schedule per matrix");
    return makeDiversityStrategy(o.perMatrix);
  }
  if (name == "uncertainty") {
    if (o.ensembleSize < 2)
      return failure("uncertainty: an ensemble needs at least 2 models");
    return makeUncertaintyStrategy(o.ensembleSize);
  }
  if (name == "exploitation")
    return makeExploitationStrategy();
  if (name == "exploration") {
    if (!(o.farShare >= 0 && o.farShare <= 1))
      return failure("exploration: the far share must be in [0, 1]");
    return makeExplorationStrategy(o.farShare);
  }
  std::string valid;
  for (const std::string &n : strategyNames())
    valid += (valid.empty() ? "" : ", ") + n;
  return failure("unknown selection strategy '" + std::string(name) +
                 "' (expected one of: " + valid + ")");
}
