//===- CandidateMeasurer.cpp - The process's default candidate measurer ---===//

#include "sptune/Tune/CandidateMeasurer.h"

#include <mutex>

using namespace sptune;

CandidateMeasurer::~CandidateMeasurer() = default;

namespace {
struct DefaultFactory {
  std::mutex mutex;
  CandidateMeasurerFactory factory;
  static DefaultFactory &get() {
    static DefaultFactory d;
    return d;
  }
};
} // namespace

void sptune::setDefaultCandidateMeasurer(CandidateMeasurerFactory factory) {
  DefaultFactory &d = DefaultFactory::get();
  std::lock_guard<std::mutex> lock(d.mutex);
  d.factory = std::move(factory);
}

std::unique_ptr<CandidateMeasurer> sptune::createDefaultCandidateMeasurer() {
  CandidateMeasurerFactory factory;
  {
    DefaultFactory &d = DefaultFactory::get();
    std::lock_guard<std::mutex> lock(d.mutex);
    factory = d.factory;
  }
  return factory ? factory() : nullptr;
}
