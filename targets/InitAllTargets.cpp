//===- InitAllTargets.cpp - The built-in targets, one line each -----------===//

#include "sptune/InitAllTargets.h"

#include "cpu/CpuTarget.h"
#include "nvvm/NvvmTarget.h"
#include "spade/SpadeTarget.h"

void sptune::registerAllTargets() {
  registerCpuTarget();
  registerNvvmTarget();
  registerSpadeTarget();
}
