//===- NvvmGpuBench.cpp - sptune-gpu-bench: tuned vs cuSPARSE on a GPU ----===//
//
//   sptune-gpu-bench [options] MATRIX...
//
// For each matrix and kernel (SpMM, SDDMM): measures the cuSPARSE baseline
// (called directly), then a fixed set of NVVM schedules — MLIR's sparse GPU
// code generation with several thread counts, storages and loop orders, and
// the cuSPARSE path through sptune-lower-nvvm — and reports the fastest
// legal, correct one as "tuned" with its speedup over the baseline. The
// tuned choice is the best measured candidate of that set (an oracle over a
// small space; the NVVM cost model is trained from such measurements); the
// best of the code-generation candidates alone is reported as "codegen".
// Results are JSON lines: one per measurement, one summary per (matrix,
// kernel).
//
//   sptune-gpu-bench --emit-module --kernel=spmm --schedule="nvvm spmm, ..."
//                    --rows=R --cols=C
// prints the lowered bench module instead (no GPU needed).
//
// Exit status: 0 when every (matrix, kernel) has a baseline and a tuned
// time (individual candidates may fail and are reported), 1 on bad input,
// 2 when no GPU is usable, 3 when a baseline or every candidate failed.
//
//===----------------------------------------------------------------------===//

#include "nvvm/NvvmKnobs.h"
#include "nvvm/NvvmLegality.h"
#include "nvvm/NvvmMeasurer.h"
#include "nvvm/NvvmTarget.h"

#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Schedule/Schedule.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace sptune;
namespace cl = llvm::cl;

static cl::OptionCategory category("sptune-gpu-bench options");

static cl::list<std::string> matrices(cl::cat(category), cl::Positional,
                                      cl::desc("<matrix .mtx or gen: spec>"));
static cl::opt<std::string> kernels(cl::cat(category), "kernel",
                                    cl::desc("spmm, sddmm or all"),
                                    cl::init("all"));
static cl::opt<int64_t> freeSize(cl::cat(category), "free",
                                 cl::desc("N of SpMM, K of SDDMM"),
                                 cl::init(64));
static cl::opt<int> bits(cl::cat(category), "bits",
                         cl::desc("Element bits: 32 or 64"), cl::init(32));
static cl::opt<std::string> jsonPath(cl::cat(category), "json",
                                     cl::desc("Write JSON lines here"));
static cl::opt<double> minSeconds(cl::cat(category), "min-seconds",
                                  cl::desc("Minimum measured time"),
                                  cl::init(0.05));
static cl::opt<int> warmups(cl::cat(category), "warmups",
                            cl::desc("Untimed calls"), cl::init(3));
static cl::opt<int> minReps(cl::cat(category), "min-reps",
                            cl::desc("Minimum repetitions"), cl::init(10));
static cl::opt<int> maxReps(cl::cat(category), "max-reps",
                            cl::desc("Maximum repetitions"), cl::init(500));
static cl::opt<std::string> chip(cl::cat(category), "chip",
                                 cl::desc("sm_XY (default: the device's)"));
static cl::opt<std::string>
    schedules(cl::cat(category), "schedules",
              cl::desc("Measure these schedules (';'-separated) instead of "
                       "the built-in candidates"));
static cl::opt<bool> emitModule(cl::cat(category), "emit-module",
                                cl::desc("Print the lowered bench module of "
                                         "--schedule and exit"));
static cl::opt<std::string> schedule(cl::cat(category), "schedule",
                                     cl::desc("With --emit-module"));
static cl::opt<bool>
    jitOnly(cl::cat(category), "jit-only",
            cl::desc("Testing: also JIT the host code of --schedule against "
                     "the runtime (no device needed) and exit"),
            cl::Hidden);
static cl::opt<int64_t> rows(cl::cat(category), "rows",
                             cl::desc("With --emit-module"), cl::init(1024));
static cl::opt<int64_t> cols(cl::cat(category), "cols",
                             cl::desc("With --emit-module"), cl::init(1024));

namespace {

/// The built-in candidate schedules of a kernel (filtered for legality).
std::vector<std::string> candidates(KernelType k) {
  if (k == KernelType::SpMM)
    return {
        "nvvm spmm, threads = 64",
        "nvvm spmm, threads = 128",
        "nvvm spmm, threads = 256",
        "nvvm spmm, threads = 1024",
        "nvvm spmm, widths = [32, 32], threads = 128",
        "nvvm spmm, order = [i, j, k], threads = 128",
        "nvvm spmm, order = [j, i, k], threads = 128",
        "nvvm spmm, levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : "
        "dense], split = [2, 2], threads = 128",
        "nvvm spmm, libgen = true",
        "nvvm spmm, widths = [32, 32], libgen = true",
    };
  return {
      "nvvm sddmm, order = [i, k, j], threads = 64",
      "nvvm sddmm, order = [i, k, j], threads = 256",
      "nvvm sddmm, order = [i, k, j], threads = 1024",
      "nvvm sddmm, order = [i, k, j], widths = [32, 32], threads = 256",
      "nvvm sddmm, order = [i, k, j], libgen = true",
      "nvvm sddmm, order = [i, k, j], widths = [32, 32], libgen = true",
      "nvvm sddmm, levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : "
      "dense], split = [2, 2], order = [k, i1, j1, i0, j0], libgen = true",
  };
}

std::string json(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20)
      out += c;
  }
  return out + "\"";
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::string measurementJson(const std::string &matrix, KernelType kernel,
                            const std::string &what, const Measurement &m) {
  return "{\"matrix\":" + json(matrix) +
         ",\"kernel\":" + json(toString(kernel)) +
         ",\"free\":" + std::to_string(freeSize) +
         ",\"bits\":" + std::to_string(bits) + ",\"what\":" + json(what) +
         ",\"status\":" + json(toString(m.status)) +
         ",\"reason\":" + json(m.reason) +
         ",\"median_s\":" + number(m.medianSeconds) +
         ",\"min_s\":" + number(m.minSeconds) +
         ",\"mad_s\":" + number(m.madSeconds) +
         ",\"reps\":" + std::to_string(m.reps) +
         ",\"compile_s\":" + number(m.compileSeconds) +
         ",\"details\":" + m.detailsJson + "}";
}

std::vector<std::string> split(const std::string &text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(sep, start);
    if (end == std::string::npos)
      end = text.size();
    std::string part = text.substr(start, end - start);
    if (part.find_first_not_of(" \t") != std::string::npos)
      out.push_back(part);
    start = end + 1;
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerNvvmTarget(); // prints and parses nvvm schedules
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "sptune GPU benchmark: tuned vs cuSPARSE\n");
  auto errs = [](const std::string &msg) {
    llvm::errs() << "sptune-gpu-bench: error: " << msg << "\n";
  };
  if (bits != 32 && bits != 64) {
    errs("--bits must be 32 or 64");
    return 1;
  }
  std::vector<KernelType> kinds;
  if (kernels == "all")
    kinds = {KernelType::SpMM, KernelType::SDDMM};
  else if (auto k = parseKernelType(kernels); k && *k != KernelType::SpMV)
    kinds = {*k};
  else {
    errs("--kernel must be spmm, sddmm or all");
    return 1;
  }
  NvvmMeasurerOptions options;
  options.chip = chip;
  NvvmMeasurer measurer(options);

  if (emitModule || jitOnly) {
    std::string parseError;
    std::optional<Schedule> s = parseSchedule(schedule, &parseError);
    if (!s) {
      errs("--schedule: " + parseError);
      return 1;
    }
    KernelSpec spec;
    spec.kernel = s->kernel;
    spec.free = freeSize;
    spec.elementBits = bits;
    std::string error;
    bool ok = jitOnly ? measurer.jitOnly(spec, rows, cols, *s, error)
                      : measurer.compileOnly(spec, rows, cols, *s, error);
    if (!ok) {
      errs(error);
      return 1;
    }
    if (jitOnly)
      llvm::outs() << "sptune-gpu-bench: JIT-compiled, entry points found\n";
    else
      llvm::outs() << measurer.lastModule();
    return 0;
  }

  if (matrices.empty()) {
    errs("no matrix given");
    return 1;
  }
  std::string device;
  if (std::string why = measurer.whyUnavailable(&device); !why.empty()) {
    errs(why);
    return 2;
  }
  llvm::errs() << "sptune-gpu-bench: device " << device << "\n";

  std::unique_ptr<llvm::raw_fd_ostream> jsonFile;
  if (!jsonPath.empty()) {
    std::error_code ec;
    jsonFile = std::make_unique<llvm::raw_fd_ostream>(jsonPath, ec,
                                                      llvm::sys::fs::OF_Text);
    if (ec) {
      errs("cannot write " + jsonPath + ": " + ec.message());
      return 1;
    }
  }
  auto emit = [&](const std::string &line) {
    if (jsonFile) {
      *jsonFile << line << "\n";
      jsonFile->flush();
    }
  };

  MeasureOptions mopts;
  mopts.warmups = warmups;
  mopts.minReps = minReps;
  mopts.maxReps = maxReps;
  mopts.minSeconds = minSeconds;
  mopts.timeoutSeconds = 60;
  int failures = 0;
  for (const std::string &source : matrices) {
    CooMatrix coo;
    MatrixInfo info;
    std::string error;
    if (!loadMatrix(source, coo, info, error)) {
      errs(error);
      ++failures;
      continue;
    }
    CsrMatrix m = CsrMatrix::fromCoo(std::move(coo));
    for (KernelType kernel : kinds) {
      KernelSpec spec;
      spec.kernel = kernel;
      spec.free = freeSize;
      spec.elementBits = bits;
      Measurement base = measurer.measureCusparse(m, spec, mopts);
      emit(measurementJson(info.id, kernel, "cusparse", base));
      llvm::errs() << info.id << " " << toString(kernel)
                   << " cusparse: " << toString(base.status) << " "
                   << base.medianSeconds * 1e6 << " us " << base.reason << "\n";
      std::vector<std::string> list =
          schedules.empty() ? candidates(kernel) : split(schedules, ';');
      std::string bestText, codegenText;
      Measurement best, codegen;
      for (const std::string &text : list) {
        std::string parseError;
        std::optional<Schedule> s = parseSchedule(text, &parseError);
        Measurement r;
        if (!s) {
          r.status = MeasureStatus::Illegal;
          r.reason = parseError;
        } else if (s->kernel != kernel) {
          continue;
        } else {
          r = measurer.measure(m, spec, *s, mopts);
        }
        emit(measurementJson(info.id, kernel, text, r));
        llvm::errs() << info.id << " " << toString(kernel) << " [" << text
                     << "]: " << toString(r.status) << " "
                     << r.medianSeconds * 1e6 << " us " << r.reason << "\n";
        if (r.ok() && (!best.ok() || r.medianSeconds < best.medianSeconds)) {
          best = r;
          bestText = text;
        }
        if (r.ok() && !gpuKnobs(*s).libgen &&
            (!codegen.ok() || r.medianSeconds < codegen.medianSeconds)) {
          codegen = r;
          codegenText = text;
        }
      }
      std::string summary =
          "{\"matrix\":" + json(info.id) +
          ",\"kernel\":" + json(toString(kernel)) +
          ",\"rows\":" + std::to_string(m.rows) +
          ",\"cols\":" + std::to_string(m.cols) +
          ",\"nnz\":" + std::to_string(m.nnz()) +
          ",\"free\":" + std::to_string(freeSize) +
          ",\"bits\":" + std::to_string(bits) + ",\"device\":" + json(device) +
          ",\"summary\":true" + ",\"cusparse_s\":" +
          (base.ok() ? number(base.medianSeconds) : "null") +
          ",\"tuned_s\":" + (best.ok() ? number(best.medianSeconds) : "null") +
          ",\"tuned_schedule\":" + json(bestText) + ",\"codegen_s\":" +
          (codegen.ok() ? number(codegen.medianSeconds) : "null") +
          ",\"codegen_schedule\":" + json(codegenText) + ",\"speedup\":" +
          (base.ok() && best.ok() && best.medianSeconds > 0
               ? number(base.medianSeconds / best.medianSeconds)
               : "null") +
          "}";
      emit(summary);
      llvm::outs() << summary << "\n";
      if (!base.ok() || !best.ok())
        ++failures;
    }
  }
  return failures ? 3 : 0;
}
