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

/// "main+other" or "main+other@share" (share in (0, 1); 0.25 by default).
static llvm::Expected<std::unique_ptr<SelectionStrategy>>
createMixedStrategy(llvm::StringRef name, const StrategyOptions &o) {
  auto [parts, shareText] = name.split('@');
  auto [mainName, otherName] = parts.split('+');
  double share = 0.25;
  if (!shareText.empty() &&
      (shareText.getAsDouble(share) || !(share > 0 && share < 1)))
    return failure("mixed strategy '" + name +
                   "': the share after '@' must be a number in (0, 1)");
  if (otherName.contains('+') || name.count('@') > 1 || mainName.empty() ||
      otherName.empty())
    return failure("mixed strategy '" + name +
                   "': expected main+other or main+other@share (two "
                   "strategies)");
  llvm::Expected<std::unique_ptr<SelectionStrategy>> main =
      createStrategy(mainName, o);
  if (!main)
    return main.takeError();
  llvm::Expected<std::unique_ptr<SelectionStrategy>> other =
      createStrategy(otherName, o);
  if (!other)
    return other.takeError();
  return makeMixedStrategy(std::move(*main), std::move(*other), share);
}

llvm::Expected<std::unique_ptr<SelectionStrategy>>
sptune::createStrategy(std::string_view name, const StrategyOptions &o) {
  if (llvm::StringRef(name.data(), name.size()).contains('+'))
    return createMixedStrategy(llvm::StringRef(name.data(), name.size()), o);
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
                 "' (expected one of: " + valid +
                 ", or main+other@share for a mix)");
}
