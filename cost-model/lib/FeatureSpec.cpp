//===- FeatureSpec.cpp - Identity of the feature specification ------------===//

#include "sptune/CostModel/FeatureSpec.h"
#include "sptune/CostModel/ConfigurationMapper.h"
#include "sptune/CostModel/MatrixFeatures.h"

using namespace sptune;

uint64_t sptune::fnv1a64(std::string_view bytes, uint64_t seed) {
  uint64_t h = seed;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string sptune::featureSpecString(const FeatureLayout &layout) {
  std::string s = "revision=" + std::to_string(kFeatureRevision) + ";images=";
  for (int size : MatrixFeatures::kImageSizes)
    s += std::to_string(size) + ",";
  s += ";hist=log2x" + std::to_string(MatrixFeatures::kHistBins) + ";scalars=";
  for (const std::string &n : scalarFeatureNames())
    s += n + ",";
  // A model of a kernel on a 3-D tensor (MTTKRP, batched SpMM) reads three
  // scalars of a tensor where a matrix has others (featurizeTensor): part of
  // its identity, absent from the others'.
  if (layout.hasKernel(KernelType::MTTKRP) ||
      layout.hasKernel(KernelType::BatchedSpMM)) {
    s += ";tensor_scalars=";
    for (const std::string &n : tensorScalarFeatureNames())
      s += n + ",";
  }
  s += ";common=";
  for (const std::string &n : layout.commonNames())
    s += n + ",";
  for (size_t slot = 0; slot < layout.numTargets(); ++slot) {
    s += ";knobs." + layout.targetNames()[slot] + "=";
    for (const std::string &n : knobFeatureNames(layout.targetAt(slot)))
      s += n + ",";
  }
  return s;
}

uint64_t sptune::featureSpecHash(const FeatureLayout &layout) {
  return fnv1a64(featureSpecString(layout));
}
