//===- MeasurementJson.h - JSON fields of a measurement ---------*- C++ -*-===//
//
// Part of sptune (lib/Collect, internal). The fields a measurement writes in
// both the worker protocol and the dataset records, in one place.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_LIB_COLLECT_MEASUREMENTJSON_H
#define SPTUNE_LIB_COLLECT_MEASUREMENTJSON_H

#include "sptune/Schedule/DatasetSchema.h"
#include "sptune/Target/Measurer.h"

#include "llvm/Support/JSON.h"

namespace sptune {

/// {"median", "min", "max", "mad", "reps"}.
inline llvm::json::Object timeObject(const Measurement &m) {
  namespace tf = dataset::time_field;
  return llvm::json::Object{{tf::kMedian, m.medianSeconds},
                            {tf::kMin, m.minSeconds},
                            {tf::kMax, m.maxSeconds},
                            {tf::kMad, m.madSeconds},
                            {tf::kReps, m.reps}};
}

/// The target's details as JSON (an empty object when they do not parse).
inline llvm::json::Value detailsValue(const Measurement &m) {
  if (auto parsed = llvm::json::parse(m.detailsJson))
    return std::move(*parsed);
  else
    llvm::consumeError(parsed.takeError());
  return llvm::json::Object();
}

} // namespace sptune

#endif // SPTUNE_LIB_COLLECT_MEASUREMENTJSON_H
