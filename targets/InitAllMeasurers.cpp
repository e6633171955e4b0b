//===- InitAllMeasurers.cpp - The built-in targets' measurers -------------===//

#include "sptune/InitAllTargets.h"

#include "cpu/CpuTarget.h"
#include "nvvm/NvvmTarget.h"
#include "spade/SpadeTarget.h"

void sptune::registerAllMeasurers() {
  registerAllTargets();
  registerCpuMeasurer();
  registerSpadeMeasurer();
#if SPTUNE_HAVE_CUDA
  registerNvvmMeasurer();
#endif
}
