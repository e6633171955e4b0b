//===- MeasureService.cpp - The worker side of measurements ---------------===//

#include "sptune/Collect/WorkerProtocol.h"

#include "cpu/CpuMeasurer.h"
#include "cpu/EigenBaseline.h"
#include "cpu/RsbBaseline.h"
#include "spade/SpadeMeasurer.h"
#if SPTUNE_HAVE_CUDA
#include "nvvm/NvvmMeasurer.h"
#endif
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Schedule/DefaultSchedule.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <csignal>
#include <istream>
#include <thread>

using namespace sptune;

struct MeasureService::Impl {
  std::string loadedSource;
  CsrMatrix matrix;
  MatrixInfo info;
  MatrixStats stats;
  std::unique_ptr<CpuMeasurer> cpu;
  std::unique_ptr<SpadeMeasurer> spade;
#if SPTUNE_HAVE_CUDA
  std::unique_ptr<NvvmMeasurer> nvvm;
#endif
  bool faultCrash = false;
  std::string faultText;

  bool load(const std::string &source, std::string &error) {
    if (source == loadedSource)
      return true;
    CooMatrix coo;
    if (!loadMatrix(source, coo, info, error))
      return false;
    matrix = CsrMatrix::fromCoo(std::move(coo));
    stats = computeStats(matrix);
    loadedSource = source;
    return true;
  }
};

MeasureService::MeasureService() : impl(std::make_unique<Impl>()) {}
MeasureService::~MeasureService() = default;

void MeasureService::injectFault(bool crash, std::string text) {
  impl->faultCrash = crash;
  impl->faultText = std::move(text);
}

std::string MeasureService::lastModule() const {
  return impl->cpu ? impl->cpu->lastModule() : std::string();
}

MeasureResponse MeasureService::handle(const MeasureRequest &request) {
  MeasureResponse response;
  response.id = request.id;
  Measurement &m = response.measurement;
  std::string error;
  if (!request.validate(error)) {
    m.status = MeasureStatus::Error;
    m.reason = error;
    return response;
  }
  if (!impl->faultText.empty() &&
      (request.baseline + " " + request.schedule).find(impl->faultText) !=
          std::string::npos) {
    if (impl->faultCrash)
      std::raise(SIGSEGV);
    while (true)
      std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  if (!impl->load(request.matrix, error)) {
    m.status = MeasureStatus::Error;
    m.reason = error;
    return response;
  }
  const CsrMatrix &matrix = impl->matrix;
  response.matrix = impl->info;
  response.rows = matrix.rows;
  response.cols = matrix.cols;
  response.nnz = matrix.nnz();
  KernelSpec spec;
  spec.kernel = *parseKernelType(request.kernel);
  spec.free = spec.kernel == KernelType::SpMV ? 1 : request.free;
  spec.elementBits = request.elementBits;

  if (request.target == "spade") {
    if (!impl->spade)
      impl->spade = std::make_unique<SpadeMeasurer>();
    if (!request.baseline.empty() && request.baseline != "heuristic") {
      m.status = MeasureStatus::Illegal;
      m.reason = "baseline '" + request.baseline + "' does not exist for SPADE";
      return response;
    }
    Schedule schedule = request.baseline == "heuristic"
                            ? defaultSchedule(TargetKind::SPADE, spec.kernel)
                            : *parseSchedule(request.schedule);
    response.schedule = schedule.str();
    m = impl->spade->measure(matrix, spec, schedule, request.options);
    return response;
  }
  if (request.target == "nvvm") {
#if SPTUNE_HAVE_CUDA
    if (!impl->nvvm)
      impl->nvvm = std::make_unique<NvvmMeasurer>();
    if (request.baseline == "cusparse") {
      m = impl->nvvm->measureCusparse(matrix, spec, request.options);
      return response;
    }
    Schedule schedule =
        request.baseline == "heuristic"
            ? defaultSchedule(TargetKind::NVVM, spec.kernel, &impl->stats,
                              spec.free)
            : *parseSchedule(request.schedule);
    response.schedule = schedule.str();
    m = impl->nvvm->measure(matrix, spec, schedule, request.options);
#else
    m.status = MeasureStatus::Error;
    m.reason = "this sptune was built without CUDA: no NVVM measurements";
#endif
    return response;
  }
  if (request.target != "cpu") {
    m.status = MeasureStatus::Error;
    m.reason = "target '" + request.target + "' is not available in this worker";
    return response;
  }
  if (!impl->cpu)
    impl->cpu = std::make_unique<CpuMeasurer>();
  if (request.baseline == "eigen") {
    m = measureEigen(matrix, spec, request.options);
    return response;
  }
  if (request.baseline == "rsb") {
    m = measureRsb(matrix, spec, request.options);
    return response;
  }
  if (request.baseline == "mlir-default") {
    response.schedule = mlirDefaultSchedule(TargetKind::CPU, spec.kernel).str();
    m = impl->cpu->measureUpstreamDefault(matrix, spec, request.options);
    return response;
  }
  Schedule schedule =
      request.baseline == "heuristic"
          ? defaultSchedule(TargetKind::CPU, spec.kernel, &impl->stats, spec.free)
          : *parseSchedule(request.schedule);
  response.schedule = schedule.str();
  m = impl->cpu->measure(matrix, spec, schedule, request.options);
  return response;
}

int MeasureService::serve(std::istream &in, llvm::raw_ostream &out) {
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty())
      continue;
    MeasureRequest request;
    std::string error;
    MeasureResponse response;
    if (!MeasureRequest::fromJson(line, request, error)) {
      response.measurement.status = MeasureStatus::Error;
      response.measurement.reason = error;
    } else {
      response = handle(request);
    }
    out << response.toJson() << "\n";
    out.flush();
  }
  return 0;
}
