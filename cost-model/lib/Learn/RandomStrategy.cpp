//===- RandomStrategy.cpp - Uniform selection -----------------------------===//

#include "StrategySupport.h"

using namespace sptune;
using namespace sptune::learn;

namespace {
/// Every unmeasured candidate, in a seeded uniform random order.
class RandomStrategy : public SelectionStrategy {
public:
  std::string name() const override { return "random"; }
  llvm::Expected<std::vector<size_t>>
  rank(const SelectionContext &context) override {
    std::vector<size_t> order = context.pool.unmeasured();
    std::mt19937_64 rng(context.seed);
    shuffle(order, rng);
    return order;
  }
};
} // namespace

std::unique_ptr<SelectionStrategy> learn::makeRandomStrategy() {
  return std::make_unique<RandomStrategy>();
}
