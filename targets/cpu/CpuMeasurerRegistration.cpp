//===- CpuMeasurerRegistration.cpp - The CPU measurer and its baselines ---===//

#include "cpu/CpuMeasurer.h"
#include "cpu/CpuTarget.h"
#include "cpu/EigenBaseline.h"
#include "cpu/ReferenceBaseline.h"
#include "cpu/RsbBaseline.h"
#include "cpu/TorchBaseline.h"
#include "sptune/Target/DefaultSchedule.h"
#include "sptune/Target/Target.h"

using namespace sptune;

Measurement CpuMeasurer::measureBaseline(std::string_view name,
                                         const CsrMatrix &matrix,
                                         const KernelSpec &spec,
                                         const MeasureOptions &options) {
  if (name == "mlir-default")
    return measureUpstreamDefault(matrix, spec, options);
  if (name == "eigen")
    return measureEigen(matrix, spec, options);
  if (name == "rsb")
    return measureRsb(matrix, spec, options);
  if (name == "reference")
    return measureReference(matrix, spec, options);
  if (name == "torch")
    return measureTorch(matrix, spec, options);
  return Measurer::measureBaseline(name, matrix, spec, options);
}

std::string CpuMeasurer::baselineSchedule(std::string_view name,
                                          const KernelSpec &spec) const {
  return name == "mlir-default"
             ? referenceSchedule(TargetKind::CPU, spec.kernel).str()
             : std::string();
}

void sptune::registerCpuMeasurer() {
  TargetRegistry::addMeasurer(TargetKind::CPU,
                              [] { return std::make_unique<CpuMeasurer>(); });
}
