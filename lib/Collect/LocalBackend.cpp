//===- LocalBackend.cpp - Measurements in local worker processes ----------===//

#include "sptune/Collect/LocalBackend.h"

#include "sptune/Collect/Dataset.h"

#include "sptune/Support/Json.h"

#include "llvm/Support/JSON.h"

using namespace sptune;

MeasurementBackend::~MeasurementBackend() = default;

bool sptune::parseRecordLine(const std::string &line, MeasuredRecord &out) {
  llvm::Expected<llvm::json::Value> v = parseJson(line);
  if (!v) {
    llvm::consumeError(v.takeError());
    return false;
  }
  const llvm::json::Object *o = v->getAsObject();
  std::optional<llvm::StringRef> key = o ? o->getString("key") : std::nullopt;
  if (!key)
    return false;
  out.key = key->str();
  out.status = o->getString("status").value_or("").str();
  out.line = line;
  return true;
}

llvm::Error LocalBackend::measure(const PendingRequests &pending,
                                  const RecordSink &sink,
                                  const std::atomic<bool> *stop) {
  // The machine first: its bandwidth is measured (once per process) before
  // any worker runs.
  MachineInfo machine = MachineInfo::current();
  WorkerPool pool(worker, workers);
  pool.run(pending.requests, [&](const MeasureRequest &q,
                                 const MeasureResponse &r) {
    const RecordKey &key = pending.keys[static_cast<size_t>(q.id)];
    MeasuredRecord record{key.str(), toString(r.measurement.status),
                          datasetRecord(key, q, r, machine)};
    if (!sink(record) || (stop && *stop))
      pool.stop();
  });
  return llvm::Error::success();
}
