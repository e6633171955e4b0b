//===- Rs2Strategy.cpp - Repeated random sampling -------------------------===//

#include "StrategySupport.h"

using namespace sptune;
using namespace sptune::learn;

namespace {
/// RS2 (repeated random sampling, with replacement between epochs): the
/// measurements are chosen uniformly, and training draws a new random
/// subset of the collected problems every epoch instead of passing over all
/// of them; the driver runs proportionally more epochs, so the number of
/// optimizer steps is the same as for the other strategies.
class Rs2Strategy : public SelectionStrategy {
public:
  explicit Rs2Strategy(double fraction) : fraction(fraction) {}
  std::string name() const override { return "rs2"; }
  llvm::Expected<std::vector<size_t>>
  rank(const SelectionContext &context) override {
    std::vector<size_t> order = context.pool.unmeasured();
    std::mt19937_64 rng(context.seed ^ 0x52533200ull);
    shuffle(order, rng);
    return order;
  }
  double epochFraction() const override { return fraction; }

private:
  double fraction;
};
} // namespace

std::unique_ptr<SelectionStrategy> learn::makeRs2Strategy(double fraction) {
  return std::make_unique<Rs2Strategy>(fraction);
}
