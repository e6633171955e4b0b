//===- WorkerCandidateMeasurer.cpp - Tuner measurements in workers --------===//

#include "sptune/Collect/WorkerCandidateMeasurer.h"

using namespace sptune;

std::vector<Measurement> WorkerCandidateMeasurer::measure(
    const std::string &matrixSource, const KernelSpec &kernel,
    const std::vector<Schedule> &schedules, const MeasureOptions &measure) {
  std::vector<Measurement> out(schedules.size());
  std::vector<MeasureRequest> requests;
  for (size_t n = 0; n < schedules.size(); ++n) {
    MeasureRequest r;
    r.id = static_cast<int64_t>(n);
    r.target = toString(schedules[n].target);
    r.matrix = matrixSource;
    r.kernel = toString(kernel.kernel);
    r.free = Schedule::freeLoopSize(kernel.kernel, kernel.free);
    r.elementBits = kernel.elementBits;
    r.transposedB = kernel.transposedB;
    r.descriptor = kernel.descriptor;
    r.schedule = schedules[n].str();
    r.options = measure;
    requests.push_back(std::move(r));
  }
  WorkerOptions workerOptions = options;
  workerOptions.timeoutSeconds = measure.timeoutSeconds;
  WorkerPool pool(workerOptions, 1);
  pool.run(requests,
           [&](const MeasureRequest &q, const MeasureResponse &response) {
             out[static_cast<size_t>(q.id)] = response.measurement;
           });
  return out;
}

void sptune::registerWorkerCandidateMeasurer(WorkerOptions options) {
  setDefaultCandidateMeasurer([options] {
    return std::make_unique<WorkerCandidateMeasurer>(options);
  });
}
