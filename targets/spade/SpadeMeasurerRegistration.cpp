//===- SpadeMeasurerRegistration.cpp - The simulator as SPADE's measurer --===//

#include "spade/SpadeMeasurer.h"
#include "spade/SpadeTarget.h"
#include "sptune/Target/Target.h"

using namespace sptune;

void sptune::registerSpadeMeasurer() {
  TargetRegistry::addMeasurer(TargetKind::SPADE,
                              [] { return std::make_unique<SpadeMeasurer>(); });
}
