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
  int reps = opts.warmups + std::max(1, opts.minReps);
  while (true) {
    batch(reps, times);
    int skip = std::min<int>(opts.warmups, static_cast<int>(times.size()));
    samples.insert(samples.end(), times.begin() + skip, times.end());
    double total = 0;
    for (double s : samples)
      total += s;
    int have = static_cast<int>(samples.size());
    if ((have >= opts.minReps && total >= opts.minSeconds) ||
        have >= opts.maxReps || elapsed() > opts.timeoutSeconds / 2)
      break;
    // Enough repetitions for the remaining time, at the median so far.
    double med = std::max(median(samples), 1e-7);
    int more = static_cast<int>(std::ceil((opts.minSeconds - total) / med));
    more = std::max(more, opts.minReps - have);
    reps = opts.warmups + std::min(std::max(more, 1), opts.maxReps - have);
  }
  summarizeSamples(std::move(samples), m);
}
