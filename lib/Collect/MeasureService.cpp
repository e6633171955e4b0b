//===- MeasureService.cpp - The worker side of measurements ---------------===//

#include "sptune/Collect/WorkerProtocol.h"

#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Matrix/MeasuredOperand.h"
#include "sptune/Matrix/TensorSource.h"
#include "sptune/Support/Error.h"
#include "sptune/Support/MemoryBudget.h"
#include "sptune/Target/Target.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <istream>
#include <map>
#include <mutex>
#include <thread>

using namespace sptune;

struct MeasureService::Impl {
  std::string loadedSource;
  CsrMatrix matrix;
  /// The 3-D tensor of an MTTKRP or a batched SpMM (measured by
  /// Measurer::measureTensor).
  std::string loadedTensorSource;
  CooTensor tensor;
  MatrixInfo tensorInfo;
  MatrixInfo info;
  MatrixStats stats;
  /// One measurer per target, created on first use (they keep JIT and
  /// simulator state between requests).
  std::map<TargetKind, std::unique_ptr<Measurer>> measurers;
  Measurer *lastUsed = nullptr;
  bool faultCrash = false;
  std::string faultText;

  bool load(const std::string &source, std::string &error) {
    if (source == loadedSource)
      return true;
    CooMatrix coo;
    if (takeErrorMessage(loadMatrix(source, coo, info), error))
      return false;
    matrix = CsrMatrix::fromCoo(std::move(coo));
    stats = computeStats(matrix);
    loadedSource = source;
    return true;
  }

  bool loadTensor(const std::string &source, std::string &error) {
    if (source == loadedTensorSource)
      return true;
    loadedTensorSource.clear();
    if (takeErrorMessage(sptune::loadTensor(source, tensor, tensorInfo), error))
      return false;
    loadedTensorSource = source;
    return true;
  }

  Measurer *measurerFor(const Target &target, std::string &error) {
    std::unique_ptr<Measurer> &slot = measurers[target.kind()];
    if (!slot) {
      llvm::Expected<std::unique_ptr<Measurer>> created =
          TargetRegistry::createMeasurer(target.kind());
      if (!created) {
        error = llvm::toString(created.takeError());
        return nullptr;
      }
      slot = std::move(*created);
    }
    lastUsed = slot.get();
    return lastUsed;
  }
};

MeasureService::MeasureService() : impl(std::make_unique<Impl>()) {}
MeasureService::~MeasureService() = default;

void MeasureService::injectFault(bool crash, std::string text) {
  impl->faultCrash = crash;
  impl->faultText = std::move(text);
}

std::string MeasureService::lastModule() const {
  return impl->lastUsed ? impl->lastUsed->lastModule() : std::string();
}

MeasureResponse MeasureService::handle(const MeasureRequest &request) {
  MeasureResponse response;
  response.id = request.id;
  Measurement &m = response.measurement;
  std::string error;
  if (takeErrorMessage(request.validate(), error)) {
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
  if (isMeasuredOnTensor(*parseKernelType(request.kernel)))
    return handleTensor(request);
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
  spec.free = Schedule::freeLoopSize(spec.kernel, request.free);
  spec.elementBits = request.elementBits;
  spec.transposedB = request.transposedB;
  spec.descriptor = request.descriptor;

  llvm::Expected<const Target &> target = TargetRegistry::get(request.target);
  if (!target) {
    m.status = MeasureStatus::Error;
    m.reason = llvm::toString(target.takeError());
    return response;
  }
  // A request whose dense operands do not fit the memory budget is refused
  // before anything is allocated (it aborted "out of memory").
  if (std::string why = whyOverMemoryBudget(
          measurementBytes(spec, matrix.rows, matrix.cols, matrix.nnz()),
          "the dense operands of this " + request.kernel + " (free = " +
              std::to_string(spec.free) + ")");
      !why.empty()) {
    m.status = MeasureStatus::Illegal;
    m.reason = why;
    return response;
  }
  Measurer *measurer = impl->measurerFor(*target, error);
  if (!measurer) {
    m.status = MeasureStatus::Error;
    m.reason = error;
    return response;
  }
  if (!request.baseline.empty() && request.baseline != "heuristic") {
    std::vector<std::string> known = target->baselines();
    if (std::find(known.begin(), known.end(), request.baseline) ==
        known.end()) {
      m.status = MeasureStatus::Illegal;
      m.reason = "baseline '" + request.baseline + "' does not exist for " +
                 "target '" + request.target + "'";
      return response;
    }
    response.schedule = measurer->baselineSchedule(request.baseline, spec);
    m = measurer->measureBaseline(request.baseline, matrix, spec,
                                  request.options);
    return response;
  }
  // An empty operand has no kernel to schedule (extract-kernels takes no
  // zero-sized shapes): say so, not "the bench kernel was not recognized".
  // The library baselines above still run on it.
  if (matrix.rows == 0 || matrix.cols == 0) {
    m.status = MeasureStatus::Illegal;
    m.reason = "the sparse operand is empty (" + std::to_string(matrix.rows) +
               " x " + std::to_string(matrix.cols) +
               "): there is no kernel to schedule";
    return response;
  }
  Schedule schedule =
      request.baseline == "heuristic"
          ? target->heuristicSchedule(spec.kernel, &impl->stats, spec.free)
          : llvm::cantFail(parseSchedule(request.schedule)); // validated
  response.schedule = schedule.str();
  m = measurer->measure(matrix, spec, schedule, request.options);
  return response;
}

MeasureResponse MeasureService::handleTensor(const MeasureRequest &request) {
  MeasureResponse response;
  response.id = request.id;
  Measurement &m = response.measurement;
  auto fail = [&](MeasureStatus status, std::string why) {
    m.status = status;
    m.reason = std::move(why);
    return response;
  };
  std::string error;
  KernelType kernel = *parseKernelType(request.kernel); // validated
  bool batched = kernel == KernelType::BatchedSpMM;
  if (!isTensorSource(request.matrix))
    return fail(MeasureStatus::Error,
                std::string(batched ? "a batched SpMM" : "an MTTKRP") +
                    " is measured on a 3-D tensor: give a gen3: spec or a "
                    "FROSTT .tns file, not '" +
                    request.matrix + "'");
  if (!request.baseline.empty() && request.baseline != "heuristic")
    return fail(MeasureStatus::Illegal,
                batched ? "batched SpMM kernels have no library baseline here "
                          "(bench/batched-spmm.py times Eigen's SpMMs over "
                          "the batches)"
                        : "MTTKRP kernels have no library baseline here (the "
                          "hand kernel is bench/mttkrp.py's)");
  if (!impl->loadTensor(request.matrix, error))
    return fail(MeasureStatus::Error, error);
  const CooTensor &b = impl->tensor;
  response.matrix = impl->tensorInfo;
  response.rows = b.dims[0];
  response.cols = b.dims[1];
  response.nnz = b.nnz();
  KernelSpec spec;
  spec.kernel = kernel;
  spec.free = request.free;
  spec.elementBits = request.elementBits;
  spec.descriptor = request.descriptor;
  llvm::Expected<const Target &> target = TargetRegistry::get(request.target);
  if (!target)
    return fail(MeasureStatus::Error, llvm::toString(target.takeError()));
  // The tensor's entries (loaded, as COO and in the kernel's storage: three
  // coordinates and a value each), the dense inputs (an MTTKRP's C and D, a
  // batched SpMM's B: each generated in f32, then copied into the element
  // type, both held at once), and the output's six copies (the kernel's, the
  // checked one, the reference's values and bounds, the compared).
  double element = spec.elementBits / 8.0;
  double denseRows = batched ? double(b.dims[0]) * double(b.dims[2])
                             : double(b.dims[1]) + double(b.dims[2]);
  double outRows =
      batched ? double(b.dims[0]) * double(b.dims[1]) : double(b.dims[0]);
  double bytes = double(b.nnz()) * (20 + 2 * (3 * 8 + element)) +
                 denseRows * double(spec.free) * (4 + element) +
                 6 * outRows * double(spec.free) * 8;
  if (std::string why =
          whyOverMemoryBudget(bytes, "the operands of this " + request.kernel +
                                         (batched ? " (N " : " (rank ") +
                                         std::to_string(spec.free) + ")");
      !why.empty())
    return fail(MeasureStatus::Illegal, why);
  if (b.dims[0] == 0 || b.dims[1] == 0 || b.dims[2] == 0)
    return fail(MeasureStatus::Illegal,
                "the tensor is empty: there is no kernel to schedule");
  Measurer *measurer = impl->measurerFor(*target, error);
  if (!measurer)
    return fail(MeasureStatus::Error, error);
  // The heuristic reads the tensor's stored entries (a batched SpMM's
  // threshold of one thread).
  Schedule schedule = [&] {
    if (request.baseline != "heuristic")
      return llvm::cantFail(parseSchedule(request.schedule)); // validated
    MatrixStats stats = tensorHeuristicStats(b);
    return target->heuristicSchedule(spec.kernel, &stats, spec.free);
  }();
  response.schedule = schedule.str();
  m = measurer->measureTensor(b, spec, schedule, request.options);
  return response;
}

namespace {
/// Answers `timeout` for a request still running past its timeout_s and
/// ends the process: a compile or a kernel call that does not return cannot
/// be stopped from another thread. Until disarmed, at most one answer is
/// written for a request: the watchdog's or the measurement's.
class RequestWatchdog {
public:
  RequestWatchdog(llvm::raw_ostream &out, std::mutex &outMutex)
      : out(out), outMutex(outMutex), thread([this] { watch(); }) {}
  ~RequestWatchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      quit = true;
    }
    wake.notify_all();
    thread.join();
  }
  void arm(int64_t requestId, double timeoutSeconds) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      armed = true;
      id = requestId;
      seconds = timeoutSeconds;
      deadline =
          std::chrono::steady_clock::now() +
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
              std::chrono::duration<double>(timeoutSeconds));
    }
    wake.notify_all();
  }
  /// Blocks (for good) when the watchdog has begun to answer.
  void disarm() {
    std::lock_guard<std::mutex> lock(mutex);
    armed = false;
  }

private:
  void watch() {
    std::unique_lock<std::mutex> lock(mutex);
    while (!quit) {
      if (!armed) {
        wake.wait(lock);
        continue;
      }
      if (wake.wait_until(lock, deadline) != std::cv_status::timeout ||
          !armed || std::chrono::steady_clock::now() < deadline)
        continue;
      MeasureResponse response;
      response.id = id;
      response.measurement.status = MeasureStatus::Timeout;
      response.measurement.reason =
          "no result within timeout_s = " +
          llvm::formatv("{0}", seconds).str() +
          " s (the compile or a kernel call did not return); the worker ends";
      std::lock_guard<std::mutex> writing(outMutex);
      out << response.toJson() << "\n";
      out.flush();
      std::_Exit(kWorkerTimedOutExit);
    }
  }

  llvm::raw_ostream &out;
  std::mutex &outMutex;
  std::mutex mutex;
  std::condition_variable wake;
  bool armed = false, quit = false;
  int64_t id = 0;
  double seconds = 0;
  std::chrono::steady_clock::time_point deadline;
  std::thread thread;
};
} // namespace

MeasureResponse MeasureService::handleWithin(const MeasureRequest &request,
                                             llvm::raw_ostream &out) {
  std::mutex outMutex;
  RequestWatchdog watchdog(out, outMutex);
  watchdog.arm(request.id, request.options.timeoutSeconds);
  MeasureResponse response = handle(request);
  watchdog.disarm();
  return response;
}

int MeasureService::serve(std::istream &in, llvm::raw_ostream &out) {
  std::mutex outMutex;
  RequestWatchdog watchdog(out, outMutex);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty())
      continue;
    MeasureRequest request;
    std::string error;
    MeasureResponse response;
    if (takeErrorMessage(MeasureRequest::fromJson(line, request), error)) {
      response.id = request.id; // parsed first when it is an integer
      response.measurement.status = MeasureStatus::Error;
      response.measurement.reason = error;
    } else {
      watchdog.arm(request.id, request.options.timeoutSeconds);
      response = handle(request);
      watchdog.disarm();
    }
    std::lock_guard<std::mutex> writing(outMutex);
    out << response.toJson() << "\n";
    out.flush();
  }
  return 0;
}
