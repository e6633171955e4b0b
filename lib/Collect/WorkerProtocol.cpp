//===- WorkerProtocol.cpp - Requests and results of measurement workers ---===//

#include "sptune/Collect/WorkerProtocol.h"

#include "MeasurementJson.h"
#include "sptune/Support/Error.h"
#include "sptune/Support/Json.h"
#include "sptune/Target/Measurer.h"
#include "sptune/Target/Target.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace sptune;
namespace json = llvm::json;

std::string sptune::whyInvalid(const MeasureOptions &m) {
  auto inRange = [](double x, double lo, double hi) {
    return std::isfinite(x) && x >= lo && x <= hi;
  };
  if (m.warmups < 0 || m.warmups > 1000)
    return "option 'warmups' must be an integer in [0, 1000]";
  if (m.minReps < 1 || m.minReps > 10000000)
    return "option 'min_reps' must be an integer in [1, 10000000]";
  if (m.maxReps < 1 || m.maxReps > 100000000)
    return "option 'max_reps' must be an integer in [1, 100000000]";
  if (m.maxReps < m.minReps)
    return "option 'max_reps' must be at least 'min_reps'";
  if (!inRange(m.minSeconds, 0, 3600))
    return "option 'min_seconds' must be a number in [0, 3600]";
  if (!inRange(m.timeoutSeconds, 0, 86400) || m.timeoutSeconds == 0)
    return "option 'timeout_s' must be a number in (0, 86400]";
  if (!inRange(m.tolerance, 0, 1))
    return "option 'tolerance' must be a number in [0, 1]";
  return "";
}

llvm::Error MeasureRequest::validate() const {
  const Target *t = TargetRegistry::lookup(target);
  if (!t)
    return makeError("unknown target '" + target +
                     "' (registered: " + TargetRegistry::names() + ")");
  if (matrix.empty())
    return makeError("no matrix given");
  if (!parseKernelType(kernel))
    return makeError("unknown kernel '" + kernel +
                     "' (expected spmm, sddmm, spmv, spgemm, mttkrp, "
                     "batched_spmm, hadamard or "
                     "an added kernel type)");
  if (free < 1 || free > 1 << 16)
    return makeError("free size must be in [1, 65536]");
  if (elementBits != 32 && elementBits != 64)
    return makeError("element bits must be 32 or 64");
  if (transposedB && kernel != "sddmm")
    return makeError("a transposed B is an SDDMM input only");
  // SpMM, SDDMM and SpMV by their shape; a kind defined by its form (the
  // sparse ⊙ dense product, added kinds) by that form.
  auto describes = [&](const KernelDescriptor &d) {
    // Shapes are named with '-' ("batched-spmm"), kernel types with '_'.
    std::string shape = d.shapeName();
    std::replace(shape.begin(), shape.end(), '-', '_');
    if (shape == kernel)
      return true;
    std::optional<KernelTypeMatch> m = matchKernelTypeByForm(d);
    return m && toString(m->type) == kernel;
  };
  if (descriptor && !describes(*descriptor))
    return makeError("the descriptor is " +
                     (descriptor->shapeName().empty()
                          ? std::string("of no shape sptune names")
                          : "of shape '" + descriptor->shapeName() + "'") +
                     ", not of kernel '" + kernel + "': " + descriptor->str());
  std::vector<std::string> baselines = t->baselines();
  baselines.insert(baselines.begin(), "heuristic");
  if (!baseline.empty() &&
      std::find(baselines.begin(), baselines.end(), baseline) ==
          baselines.end()) {
    std::string known;
    for (const std::string &b : baselines)
      known += (known.empty() ? "" : ", ") + b;
    return makeError("unknown baseline '" + baseline + "' for target '" +
                     target + "' (expected " + known + ")");
  }
  if (baseline.empty() && schedule.empty())
    return makeError("give a schedule or a baseline");
  if (!schedule.empty() && !baseline.empty())
    return makeError("give a schedule or a baseline, not both");
  if (!schedule.empty()) {
    if (llvm::Expected<Schedule> parsed = parseSchedule(schedule); !parsed)
      return makeError("bad schedule: " + llvm::toString(parsed.takeError()));
  }
  if (std::string why = whyInvalid(options); !why.empty())
    return makeError(why);
  return llvm::Error::success();
}

std::string MeasureRequest::toJson() const {
  json::Object o{{"id", id},
                 {"target", target},
                 {"matrix", matrix},
                 {"kernel", kernel},
                 {"free", free},
                 {"bits", elementBits},
                 {"schedule", schedule},
                 {"baseline", baseline},
                 {"options", json::Object{{"warmups", options.warmups},
                                          {"min_reps", options.minReps},
                                          {"max_reps", options.maxReps},
                                          {"min_seconds", options.minSeconds},
                                          {"timeout_s", options.timeoutSeconds},
                                          {"check", options.checkResult},
                                          {"tolerance", options.tolerance}}}};
  if (transposedB) // only when set: older workers' requests stay as they were
    o["b_transposed"] = true;
  if (descriptor)
    o["descriptor"] = sptune::toJson(*descriptor);
  std::string s;
  llvm::raw_string_ostream(s) << json::Value(std::move(o));
  return s;
}

/// MeasureRequest::fromJson's work: false with the message in `error`.
static bool requestFromJson(const std::string &line, MeasureRequest &out,
                            std::string &error) {
  llvm::Expected<json::Value> v = parseJson(line);
  if (!v) {
    error = "request is not JSON: " + llvm::toString(v.takeError());
    return false;
  }
  const json::Object *o = v->getAsObject();
  if (!o) {
    error = "request is not a JSON object";
    return false;
  }
  out = MeasureRequest();
  // The id first, so that an error response still answers its request.
  if (auto x = o->getInteger("id"))
    out.id = *x;
  // Fields that are present must have their type (a wrong one would
  // silently become the default).
  for (const char *key : {"target", "matrix", "kernel", "schedule", "baseline"})
    if (const json::Value *v = o->get(key); v && !v->getAsString()) {
      error = std::string("field '") + key + "' must be a string";
      return false;
    }
  for (const char *key : {"id", "free", "bits"})
    if (const json::Value *v = o->get(key); v && !v->getAsInteger()) {
      error = std::string("field '") + key + "' must be an integer";
      return false;
    }
  if (const json::Value *v = o->get("b_transposed"); v && !v->getAsBoolean()) {
    error = "field 'b_transposed' must be true or false";
    return false;
  }
  if (auto x = o->getInteger("bits"); x && (*x < 0 || *x > 1024)) {
    error = "element bits must be 32 or 64";
    return false;
  }
  if (auto x = o->getInteger("id"))
    out.id = *x;
  if (auto x = o->getString("target"))
    out.target = x->str();
  if (auto x = o->getString("matrix"))
    out.matrix = x->str();
  if (auto x = o->getString("kernel"))
    out.kernel = x->str();
  if (auto x = o->getInteger("free"))
    out.free = *x;
  if (auto x = o->getInteger("bits"))
    out.elementBits = static_cast<int>(*x);
  if (auto x = o->getBoolean("b_transposed"))
    out.transposedB = *x;
  if (const json::Value *d = o->get("descriptor")) {
    llvm::Expected<KernelDescriptor> read = descriptorFromJson(*d);
    if (!read) {
      error = llvm::toString(read.takeError());
      return false;
    }
    out.descriptor = std::move(*read);
  }
  if (auto x = o->getString("schedule"))
    out.schedule = x->str();
  if (auto x = o->getString("baseline"))
    out.baseline = x->str();
  if (const json::Value *optValue = o->get("options")) {
    const json::Object *opt = optValue->getAsObject();
    if (!opt) {
      error = "'options' is not a JSON object";
      return false;
    }
    // A field that is present must have its type and range: a wrong one is
    // an error, never a silent default (or a wrapped integer).
    auto integer = [&](const char *key, int &into, int64_t lo,
                       int64_t hi) -> bool {
      const json::Value *v = opt->get(key);
      if (!v)
        return true;
      std::optional<int64_t> x = v->getAsInteger();
      if (!x || *x < lo || *x > hi) {
        error = std::string("option '") + key + "' must be an integer in [" +
                std::to_string(lo) + ", " + std::to_string(hi) + "]";
        return false;
      }
      into = static_cast<int>(*x);
      return true;
    };
    auto number = [&](const char *key, double &into, double lo, double hi,
                      bool openLow) -> bool {
      const json::Value *v = opt->get(key);
      if (!v)
        return true;
      std::optional<double> x = v->getAsNumber();
      if (!x || !std::isfinite(*x) || *x > hi || *x < lo ||
          (openLow && *x == lo)) {
        char range[64];
        std::snprintf(range, sizeof(range), "%c%g, %g]", openLow ? '(' : '[',
                      lo, hi);
        error = std::string("option '") + key + "' must be a number in " +
                range;
        return false;
      }
      into = *x;
      return true;
    };
    MeasureOptions &m = out.options;
    if (!integer("warmups", m.warmups, 0, 1000) ||
        !integer("min_reps", m.minReps, 1, 10000000) ||
        !integer("max_reps", m.maxReps, 1, 100000000) ||
        !number("min_seconds", m.minSeconds, 0, 3600, false) ||
        !number("timeout_s", m.timeoutSeconds, 0, 86400, true) ||
        !number("tolerance", m.tolerance, 0, 1, false))
      return false;
    if (const json::Value *v = opt->get("check")) {
      std::optional<bool> b = v->getAsBoolean();
      if (!b) {
        error = "option 'check' must be true or false";
        return false;
      }
      m.checkResult = *b;
    }
    if (m.maxReps < m.minReps) {
      error = "option 'max_reps' must be at least 'min_reps'";
      return false;
    }
  }
  return !takeErrorMessage(out.validate(), error);
}

/// A fromJson worker's answer as an llvm::Error.
template <typename Message>
static llvm::Error parsedFrom(bool (*parse)(const std::string &, Message &,
                                            std::string &),
                              const std::string &line, Message &out) {
  std::string error;
  if (!parse(line, out, error))
    return makeError(error);
  return llvm::Error::success();
}

llvm::Error MeasureRequest::fromJson(const std::string &line,
                                     MeasureRequest &out) {
  return parsedFrom(requestFromJson, line, out);
}

static std::optional<MeasureStatus> parseStatus(llvm::StringRef s) {
  for (MeasureStatus st :
       {MeasureStatus::Ok, MeasureStatus::Illegal, MeasureStatus::CompileError,
        MeasureStatus::Crash, MeasureStatus::Timeout,
        MeasureStatus::WrongResult, MeasureStatus::Error})
    if (s == toString(st))
      return st;
  return std::nullopt;
}

std::string MeasureResponse::toJson() const {
  const Measurement &m = measurement;
  json::Object o{
      {"id", id},
      {"status", toString(m.status)},
      {"reason", m.reason},
      {"schedule", schedule},
      {"time_s", timeObject(m)},
      {"compile_s", m.compileSeconds},
      {"cycles", m.cycles ? json::Value(*m.cycles) : json::Value(nullptr)},
      {"details", detailsValue(m)},
      {"matrix", json::Object{{"id", matrix.id},
                              {"source", matrix.source},
                              {"rows", rows},
                              {"cols", cols},
                              {"nnz", nnz}}}};
  std::string s;
  llvm::raw_string_ostream(s) << json::Value(std::move(o));
  return s;
}

/// MeasureResponse::fromJson's work: false with the message in `error`.
static bool responseFromJson(const std::string &line, MeasureResponse &out,
                             std::string &error) {
  llvm::Expected<json::Value> v = parseJson(line);
  if (!v) {
    error = "response is not JSON: " + llvm::toString(v.takeError());
    return false;
  }
  const json::Object *o = v->getAsObject();
  std::optional<MeasureStatus> status;
  if (o)
    if (auto s = o->getString("status"))
      status = parseStatus(*s);
  if (!o || !status) {
    error = "response lacks a valid status";
    return false;
  }
  out = MeasureResponse();
  Measurement &m = out.measurement;
  m.status = *status;
  if (auto x = o->getInteger("id"))
    out.id = *x;
  if (auto x = o->getString("reason"))
    m.reason = x->str();
  if (auto x = o->getString("schedule"))
    out.schedule = x->str();
  if (const json::Object *t = o->getObject("time_s")) {
    m.medianSeconds = t->getNumber("median").value_or(0);
    m.minSeconds = t->getNumber("min").value_or(0);
    m.maxSeconds = t->getNumber("max").value_or(0);
    m.madSeconds = t->getNumber("mad").value_or(0);
    m.reps = static_cast<int>(t->getInteger("reps").value_or(0));
  }
  m.compileSeconds = o->getNumber("compile_s").value_or(0);
  if (auto c = o->getNumber("cycles"))
    m.cycles = *c;
  if (const json::Value *d = o->get("details")) {
    m.detailsJson.clear();
    llvm::raw_string_ostream(m.detailsJson) << *d;
  }
  // An "ok" without a time is no measurement (a broken or foreign worker):
  // it must not enter a dataset as one (issue 13 probe).
  if (m.status == MeasureStatus::Ok &&
      !(std::isfinite(m.medianSeconds) && m.medianSeconds > 0 &&
        m.reps > 0)) {
    error = "response says ok without a positive, finite median time";
    return false;
  }
  if (const json::Object *mx = o->getObject("matrix")) {
    if (auto x = mx->getString("id"))
      out.matrix.id = x->str();
    if (auto x = mx->getString("source"))
      out.matrix.source = x->str();
    out.rows = mx->getInteger("rows").value_or(0);
    out.cols = mx->getInteger("cols").value_or(0);
    out.nnz = mx->getInteger("nnz").value_or(0);
  }
  return true;
}

llvm::Error MeasureResponse::fromJson(const std::string &line,
                                      MeasureResponse &out) {
  return parsedFrom(responseFromJson, line, out);
}
