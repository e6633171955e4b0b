//===- MixedStrategy.cpp - One strategy with a share of another -----------===//

#include "StrategySupport.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <unordered_set>

using namespace sptune;
using namespace sptune::learn;

namespace {
/// "main+other@share": the main strategy's ranking with every pick that
/// brings the other's picks to `share` of the prefix taken from the other's
/// ranking instead (evenly spaced, e.g. every fourth for 0.25), without
/// repeats. So any prefix the driver measures holds about `share` of the
/// other's choices: exploitation with an exploration share, say, which
/// keeps a greedy learner's data from collapsing onto the model's
/// favourites.
class MixedStrategy : public SelectionStrategy {
public:
  MixedStrategy(std::unique_ptr<SelectionStrategy> main,
                std::unique_ptr<SelectionStrategy> other, double share)
      : main(std::move(main)), other(std::move(other)), share(share) {}
  std::string name() const override {
    return llvm::formatv("{0}+{1}@{2}", main->name(), other->name(), share)
        .str();
  }
  bool needsModel() const override {
    return main->needsModel() || other->needsModel();
  }
  double epochFraction() const override { return main->epochFraction(); }
  llvm::Expected<std::vector<size_t>>
  rank(const SelectionContext &context) override {
    llvm::Expected<std::vector<size_t>> first = main->rank(context);
    if (!first)
      return first.takeError();
    SelectionContext otherContext = context;
    otherContext.seed = context.seed ^ 0x6d69786564ull;
    llvm::Expected<std::vector<size_t>> second = other->rank(otherContext);
    if (!second)
      return second.takeError();
    std::vector<size_t> out;
    out.reserve(first->size());
    std::unordered_set<size_t> taken;
    size_t i = 0, j = 0, fromOther = 0;
    auto next = [&](const std::vector<size_t> &list, size_t &at) {
      while (at < list.size() && taken.count(list[at]))
        ++at;
      return at < list.size();
    };
    while (true) {
      bool wantOther = static_cast<double>(fromOther + 1) <=
                       share * static_cast<double>(out.size() + 1) + 1e-9;
      bool haveMain = next(*first, i), haveOther = next(*second, j);
      if (!haveMain && !haveOther)
        break;
      bool useOther = haveOther && (wantOther || !haveMain);
      size_t c = useOther ? (*second)[j++] : (*first)[i++];
      fromOther += useOther;
      taken.insert(c);
      out.push_back(c);
    }
    return out;
  }

private:
  std::unique_ptr<SelectionStrategy> main, other;
  double share;
};
} // namespace

std::unique_ptr<SelectionStrategy>
learn::makeMixedStrategy(std::unique_ptr<SelectionStrategy> main,
                         std::unique_ptr<SelectionStrategy> other,
                         double share) {
  return std::make_unique<MixedStrategy>(std::move(main), std::move(other),
                                         share);
}
