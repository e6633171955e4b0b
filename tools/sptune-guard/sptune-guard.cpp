//===- sptune-guard.cpp - A model file's guard ----------------------------===//
//
//   sptune-guard --model M.pt --member A.pt --member B.pt ...
//                (--calibration CALIB.json | --z Z)
//                [--other-machine-calibration CALIB.json [--per-kernel] |
//                 --z-other-machine Z]
//                [--machine CPU]... --out GUARDED.pt
//   sptune-guard --show M.pt
//   sptune-guard --remove --model M.pt --out UNGUARDED.pt
//
// The guard (sptune/CostModel/ModelGuard.h) lets release mode keep the
// heuristic when the model is not sure its pick is faster. Its members are
// model files trained like M on the same data from other seeds; its
// thresholds come from `python -m sptune.guard_calibrate` (the "z" of its
// JSON, which the file keeps) or are given: one for the machines M was
// trained on (by default those the calibration's data came from), one for
// any other machine (calibrated on another machine's measurements), and with
// --per-kernel the other machine's calibration of each kernel type on its
// own ("z_by_kernel"), where a model transfers to another CPU for some
// kernels and not for others. A threshold is a number of spreads >= 0, or
// "never" (the heuristic is always kept).
//
//===----------------------------------------------------------------------===//

#include "sptune/CostModel/ModelFile.h"
#include "sptune/CostModel/ModelGuard.h"
#include "sptune/InitAllTargets.h"
#include "sptune/Support/Error.h"
#include "sptune/Support/Files.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace sptune;
namespace cl = llvm::cl;

static cl::OptionCategory category("sptune-guard options");
static cl::opt<std::string> modelPath(cl::cat(category), "model",
                                      cl::desc("the model to guard"));
static cl::list<std::string>
    memberPaths(cl::cat(category), "member",
                cl::desc("a member: a model trained like --model from another "
                         "seed (repeatable, at least 2)"));
static cl::opt<std::string> calibrationPath(
    cl::cat(category), "calibration",
    cl::desc("the JSON of sptune.guard_calibrate: its z is the threshold"));
static cl::opt<std::string>
    zOption(cl::cat(category), "z",
            cl::desc("the threshold, instead of --calibration (in spreads, "
                     ">= 0, or never)"));
static cl::opt<std::string> otherCalibrationPath(
    cl::cat(category), "other-machine-calibration",
    cl::desc("the JSON of sptune.guard_calibrate on another machine's "
             "measurements: its z is the threshold on machines the model was "
             "not trained on"));
static cl::opt<std::string>
    zOtherOption(cl::cat(category), "z-other-machine",
                 cl::desc("the threshold on other machines, instead of "
                          "--other-machine-calibration (in spreads, >= 0, or "
                          "never)"));
static cl::opt<bool> perKernelOption(
    cl::cat(category), "per-kernel",
    cl::desc("on other machines, each kernel type's own threshold from "
             "--other-machine-calibration (its z_by_kernel), the calibration's "
             "z for kernel types it does not list"));
static cl::list<std::string>
    machineNames(cl::cat(category), "machine",
                 cl::desc("a CPU the model was trained on, as records name it "
                          "(machine.cpu; repeatable; default: the machines "
                          "of --calibration's data)"));
static cl::opt<std::string> outPath(cl::cat(category), "out",
                                    cl::desc("the guarded model file"));
static cl::opt<std::string> showPath(cl::cat(category), "show",
                                     cl::desc("print the guard of this model"));
static cl::opt<bool> removeOption(cl::cat(category), "remove",
                                  cl::desc("write --model to --out without its "
                                           "guard (the model alone)"));

static int fail(const std::string &message) {
  llvm::errs() << "sptune-guard: error: " << message << "\n";
  return 1;
}

/// A threshold as --show prints it: "%g", or "never".
static std::string shown(double z) {
  if (z == kNeverTrust)
    return "never";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", z);
  return text;
}

static int show() {
  llvm::Expected<std::string> bytes = readFileBytes(showPath);
  if (!bytes)
    return fail(llvm::toString(bytes.takeError()));
  llvm::Expected<std::optional<GuardSettings>> settings =
      readGuardSettings(*bytes, showPath);
  if (!settings)
    return fail(llvm::toString(settings.takeError()));
  if (!*settings) {
    llvm::outs() << showPath << ": no guard (the model decides alone)\n";
    return 0;
  }
  const GuardSettings &g = **settings;
  llvm::outs() << showPath << ": guard of " << g.members
               << " members, z = " << shown(g.z);
  if (g.zOtherMachine)
    llvm::outs() << ", on other machines " << shown(*g.zOtherMachine);
  for (const auto &[kernel, z] : g.zOtherMachineByKernel)
    llvm::outs() << ", " << kernel << " " << shown(z);
  llvm::outs() << "\ntrained on:";
  for (const std::string &m : g.machines)
    llvm::outs() << " '" << m << "'";
  llvm::outs() << (g.machines.empty() ? " unknown machines\n" : "\n")
               << "calibration: " << g.calibration << "\n";
  if (g.zOtherMachine)
    llvm::outs() << "calibration on another machine: "
                 << g.otherMachineCalibration << "\n";
  return 0;
}

/// The threshold option `name`'s value `text`.
static llvm::Expected<double> thresholdOption(const char *name,
                                              const std::string &text) {
  if (std::optional<double> z = thresholdFromText(text))
    return *z;
  return makeError(std::string("--") + name + ": '" + text +
                   "' is not a threshold (" + kThresholdRule + ")");
}

/// The settings from the options.
static llvm::Expected<GuardSettings> settingsFromOptions() {
  GuardSettings s;
  if (!zOption.empty())
    if (llvm::Error e = thresholdOption("z", zOption).moveInto(s.z))
      return std::move(e);
  s.machines.assign(machineNames.begin(), machineNames.end());
  if (!calibrationPath.empty()) {
    llvm::Expected<GuardCalibration> c = readGuardCalibration(calibrationPath);
    if (!c)
      return c.takeError();
    s.z = c->z;
    s.calibration = std::move(c->text);
    if (s.machines.empty())
      s.machines = std::move(c->machines);
  }
  if (!zOtherOption.empty()) {
    double zOther;
    if (llvm::Error e =
            thresholdOption("z-other-machine", zOtherOption).moveInto(zOther))
      return std::move(e);
    s.zOtherMachine = zOther;
  }
  if (!otherCalibrationPath.empty()) {
    llvm::Expected<GuardCalibration> c =
        readGuardCalibration(otherCalibrationPath);
    if (!c)
      return c.takeError();
    s.zOtherMachine = c->z;
    s.otherMachineCalibration = std::move(c->text);
    if (perKernelOption) {
      if (c->zByKernel.empty())
        return makeError("'" + otherCalibrationPath +
                         "' has no thresholds per kernel (z_by_kernel): "
                         "calibrate again with this build's "
                         "sptune.guard_calibrate");
      s.zOtherMachineByKernel = std::move(c->zByKernel);
    }
  }
  return s;
}

static int removeFromModel() {
  if (!memberPaths.empty() || !calibrationPath.empty() || !zOption.empty() ||
      !otherCalibrationPath.empty() || !zOtherOption.empty() ||
      !machineNames.empty() || perKernelOption)
    return fail("--remove takes only --model and --out");
  llvm::Expected<std::string> model = readFileBytes(modelPath);
  if (!model)
    return fail(llvm::toString(model.takeError()));
  llvm::Expected<std::string> alone = removeGuard(*model);
  if (!alone)
    return fail(modelPath + ": " + llvm::toString(alone.takeError()));
  if (llvm::Error e = replaceFileAtomically(outPath, *alone))
    return fail(llvm::toString(std::move(e)));
  llvm::outs() << "wrote " << outPath << ": no guard\n";
  return 0;
}

static int attach() {
  if (calibrationPath.empty() == zOption.empty())
    return fail("give one of --calibration and --z");
  if (!otherCalibrationPath.empty() && !zOtherOption.empty())
    return fail("give at most one of --other-machine-calibration and "
                "--z-other-machine");
  if (perKernelOption && otherCalibrationPath.empty())
    return fail("--per-kernel takes its thresholds from "
                "--other-machine-calibration");
  llvm::Expected<GuardSettings> settings = settingsFromOptions();
  if (!settings)
    return fail(llvm::toString(settings.takeError()));
  llvm::Expected<std::string> model = readFileBytes(modelPath);
  if (!model)
    return fail(llvm::toString(model.takeError()));
  std::vector<std::pair<std::string, std::string>> members;
  for (const std::string &path : memberPaths) {
    llvm::Expected<std::string> bytes = readFileBytes(path);
    if (!bytes)
      return fail(llvm::toString(bytes.takeError()));
    members.push_back({path, std::move(*bytes)});
  }
  llvm::Expected<std::string> guarded =
      attachGuard(*model, members, std::move(*settings));
  if (!guarded)
    return fail(llvm::toString(guarded.takeError()));
  if (llvm::Error e = replaceFileAtomically(outPath, *guarded))
    return fail(llvm::toString(std::move(e)));
  llvm::outs() << "wrote " << outPath << ": " << members.size() << " members\n";
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv, "sptune-guard: give a cost model file its guard\n");
  registerAllTargets();
  if (!showPath.empty()) {
    if (!modelPath.empty() || !outPath.empty() || !memberPaths.empty() ||
        perKernelOption)
      return fail("--show takes no other option");
    return show();
  }
  if (modelPath.empty() || outPath.empty())
    return fail("give --model and --out (or --show MODEL)");
  return removeOption ? removeFromModel() : attach();
}
