//===- FeaturizeMatrices.cpp - Features of the pool's matrices ------------===//

#include "sptune/Learn/LearningPool.h"

#include "sptune/Matrix/MeasuredOperand.h"
#include "sptune/Support/Error.h"

using namespace sptune;

std::map<std::string, MatrixFeatures> sptune::featurizeMatrices(
    const std::map<std::string, std::string> &matrices,
    std::vector<std::string> &unloadable,
    const std::function<void(size_t, size_t, const std::string &)> &onMatrix,
    const std::atomic<bool> *stop) {
  std::map<std::string, MatrixFeatures> out;
  size_t n = 0;
  for (const auto &[id, source] : matrices) {
    if (stop && stop->load())
      break;
    if (onMatrix)
      onMatrix(++n, matrices.size(), id);
    MeasuredOperand operand;
    std::string error;
    if (source.empty() ||
        takeErrorMessage(loadMeasuredOperand(source, operand), error)) {
      unloadable.push_back(
          id + " (" + (source.empty() ? "no source recorded" : error) + ")");
      continue;
    }
    out[id] = featurizeOperand(operand);
  }
  return out;
}
