//===- Measurer.cpp - Measurer interface ----------------------------------===//

#include "sptune/Target/Measurer.h"

#include <algorithm>
#include <chrono>
#include <cmath>

using namespace sptune;

Measurer::~Measurer() = default;

Measurement Measurer::measureBaseline(std::string_view name, const CsrMatrix &,
                                      const KernelSpec &,
                                      const MeasureOptions &) {
  Measurement m;
  m.status = MeasureStatus::Illegal;
  m.reason = "baseline '" + std::string(name) + "' does not exist for target '" +
             toString(target()) + "'";
  return m;
}

std::string Measurer::baselineSchedule(std::string_view,
                                       const KernelSpec &) const {
  return "";
}

std::string sptune::whyKernelNotMeasured(KernelType kernel) {
  if (kernel == KernelType::MTTKRP)
    return "MTTKRP kernels are not measured on a matrix: an MTTKRP's sparse "
           "operand is a 3-D tensor (sptune-measure, sptune-collect, "
           "sptune-learn and sptune-autotune measure one on a gen3: spec or "
           "a .tns file)";
  if (kernel == KernelType::BatchedSpMM)
    return "batched SpMM kernels are not measured on a matrix: a batched "
           "SpMM's sparse operand is a 3-D tensor, its batches the first "
           "dimension (sptune-measure, sptune-collect, sptune-learn and "
           "sptune-autotune measure one on a gen3: spec or a .tns file)";
  return "";
}

std::string sptune::whyNotMeasuredOn(KernelType kernel, bool isTensor,
                                     const std::string &id) {
  bool wantsTensor = isMeasuredOnTensor(kernel);
  if (wantsTensor && !isTensor)
    return std::string(kernel == KernelType::MTTKRP ? "an MTTKRP"
                                                    : "a batched SpMM") +
           " is measured on a 3-D tensor (a gen3: spec or a .tns file), not "
           "on matrix '" +
           id + "'";
  if (!wantsTensor && isTensor)
    return std::string("3-D tensor '") + id +
           "' is measured for MTTKRP and batched SpMM kernels only, not for " +
           toString(kernel);
  return "";
}

Measurement Measurer::measureTensor(const CooTensor &, const KernelSpec &spec,
                                    const Schedule &, const MeasureOptions &) {
  Measurement m;
  m.status = MeasureStatus::Illegal;
  m.reason = std::string("target '") + toString(target()) +
             "' measures no kernel on a 3-D tensor (asked for '" +
             toString(spec.kernel) + "')";
  return m;
}

double sptune::measurementBytes(const KernelSpec &spec, int64_t rows,
                                int64_t cols, int64_t nnz) {
  double element = spec.elementBits / 8.0, free = double(spec.free);
  double r = double(rows), c = double(cols), n = double(nnz);
  if (spec.kernel == KernelType::SpGEMM) {
    // A A's result (a coordinate and a value per entry) and the one-pass
    // kernel's capacity beyond it, taken as as many, and a dense workspace of
    // 17 bytes per column on each of two threads. Its entries are at most its
    // products, sum_k |column k| |row k|, estimated as nnz^2 / rows (rows of
    // equal length; skewed rows make more), and at most rows x cols.
    double products = r > 0 ? n * n / r : 0;
    double entries = std::min(products, r * c);
    return 2 * entries * (8 + element) + 2 * 17 * c;
  }
  switch (productShape(spec.kernel)) {
  case ProductShape::MatrixMatrix:
    // B (cols x N), C and its reference (rows x N).
    return (c + 2 * r) * free * element;
  case ProductShape::SampledMatrixMatrix:
    // A (rows x K), B (K x cols), 2 x the sampled values.
    return ((r + c) * free + 2 * n) * element;
  case ProductShape::MatrixVector:
    // x, y and its reference.
    return (c + 2 * r) * element;
  default:
    break;
  }
  // Another form (the Hadamard product, a type added at run time): each
  // dense operand of its canonical form (the output twice, with its reference),
  // sized by the loops it reads.
  double bytes = 0;
  const KernelTypeInfo &info = kernelTypeInfo(spec.kernel);
  if (info.pattern)
    for (const KernelOperand &o : info.pattern->operands) {
      if (o.sparse())
        continue;
      double elements = o.output() ? 2 : 1;
      for (unsigned d : o.dims) {
        std::optional<Role> role = parseRole(info.pattern->loops[d].name);
        elements *= role == info.row ? r : role == info.col ? c : free;
      }
      bytes += elements * element;
    }
  return bytes;
}

const char *sptune::toString(MeasureStatus s) {
  switch (s) {
  case MeasureStatus::Ok:
    return "ok";
  case MeasureStatus::Illegal:
    return "illegal";
  case MeasureStatus::CompileError:
    return "compile_error";
  case MeasureStatus::Crash:
    return "crash";
  case MeasureStatus::Timeout:
    return "timeout";
  case MeasureStatus::WrongResult:
    return "wrong_result";
  case MeasureStatus::Error:
    return "error";
  }
  return "error";
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  if (n == 0)
    return 0;
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void sptune::summarizeSamples(std::vector<double> samples, Measurement &m) {
  m.status = MeasureStatus::Ok;
  m.reps = static_cast<int>(samples.size());
  if (samples.empty()) {
    m.status = MeasureStatus::Error;
    m.reason = "no timed repetition";
    return;
  }
  m.medianSeconds = median(samples);
  // A median of no time (or a negative or non-finite one) is no
  // measurement: a time of 0 would rank above everything.
  if (!(m.medianSeconds > 0) || !std::isfinite(m.medianSeconds)) {
    m.status = MeasureStatus::Error;
    m.reason = "the timer measured no time (median " +
               std::to_string(m.medianSeconds) + " s)";
    return;
  }
  m.minSeconds = *std::min_element(samples.begin(), samples.end());
  m.maxSeconds = *std::max_element(samples.begin(), samples.end());
  for (double &s : samples)
    s = std::fabs(s - m.medianSeconds);
  m.madSeconds = median(samples);
}

void sptune::timeEachCall(const MeasureOptions &options,
                          const std::function<bool()> &call, Measurement &m) {
  bool stopped = false;
  repeatAndSummarize(
      options,
      [&](int reps, std::vector<double> &times) {
        times.clear();
        for (int r = 0; r < reps && !stopped; ++r) {
          auto t0 = std::chrono::steady_clock::now();
          stopped = !call();
          times.push_back(std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - t0)
                              .count());
        }
      },
      m);
}

void sptune::repeatAndSummarize(
    const MeasureOptions &opts,
    const std::function<void(int, std::vector<double> &)> &batch,
    Measurement &m) {
  std::vector<double> samples, times;
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  // The first batch is small: its median sizes the next ones, so that no
  // batch runs past the time budget (half the timeout). A first batch of
  // all of min_reps ran 10^7 repetitions for minutes past timeout_s (issue
  // 13 probe).
  constexpr int kFirstBatch = 100;
  int reps = opts.warmups + std::clamp(opts.minReps, 1, kFirstBatch);
  bool settling = true;
  while (true) {
    double batchStart = elapsed();
    batch(reps, times);
    // What a repetition costs on the wall clock (the timed kernel plus what
    // the bench does around it): the budget is wall-clock time.
    double perRep = (elapsed() - batchStart) / std::max(reps, 1);
    int skip = std::min<int>(opts.warmups, static_cast<int>(times.size()));
    // A first batch whose median is over kUnsettled times its fastest
    // repetition was still warming up (memory touched for the first time:
    // on a VM, an MTTKRP's fresh 128 MB output took 10x its steady time for
    // its first repetitions, and min_seconds was reached on those alone):
    // it is dropped, once, and the repetitions start again.
    constexpr double kUnsettled = 2.0;
    // (Only a whole batch: a batch cut short by a failing call is all the
    // times there will be.)
    if (settling && static_cast<int>(times.size()) == reps && reps > skip + 1 &&
        elapsed() < opts.timeoutSeconds / 4) {
      settling = false;
      std::vector<double> first(times.begin() + skip, times.end());
      double fastest = *std::min_element(first.begin(), first.end());
      if (median(first) > kUnsettled * fastest)
        continue;
    }
    settling = false;
    samples.insert(samples.end(), times.begin() + skip, times.end());
    double total = 0;
    for (double s : samples)
      total += s;
    int have = static_cast<int>(samples.size());
    if ((have >= opts.minReps && total >= opts.minSeconds) ||
        have >= opts.maxReps || elapsed() > opts.timeoutSeconds / 2)
      break;
    // Enough repetitions for the remaining time, at the median so far, and
    // no more than fit in what is left of the budget (counted in double:
    // seconds over a tiny median overflow an int).
    double med = std::max(median(samples), 1e-7);
    double more = std::ceil((opts.minSeconds - total) / med);
    more = std::max(more, static_cast<double>(opts.minReps - have));
    double affordable =
        (opts.timeoutSeconds / 2 - elapsed()) / std::max({perRep, med, 1e-9});
    // Batches grow at most tenfold, each sized again from the last.
    more = std::min({more, affordable, 10.0 * std::max(reps, 1),
                     static_cast<double>(opts.maxReps - have)});
    reps = opts.warmups + static_cast<int>(std::max(more, 1.0));
  }
  summarizeSamples(std::move(samples), m);
}
