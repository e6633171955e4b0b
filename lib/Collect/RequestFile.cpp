//===- RequestFile.cpp - Pending measurements as a file -------------------===//

#include "sptune/Collect/RequestFile.h"

#include "sptune/Collect/Dataset.h"

#include "sptune/Support/Error.h"
#include "sptune/Support/Files.h"
#include "sptune/Support/Json.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <fstream>

using namespace sptune;
namespace json = llvm::json;

static llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error sptune::writeRequestFile(const std::string &path,
                                     const PendingRequests &pending) {
  std::string text;
  for (size_t i = 0; i < pending.requests.size(); ++i) {
    const RecordKey &k = pending.keys[i];
    json::Object key{{"matrix", k.matrixId},   {"hash", k.matrixHash},
                     {"kernel", k.kernel},     {"free", k.free},
                     {"target", k.target},     {"role", k.role},
                     {"schedule", k.schedule}, {"bits", k.elementBits}};
    json::Object line{{"key", std::move(key)},
                      {"request", pending.requests[i].toJson()}};
    llvm::raw_string_ostream(text) << json::Value(std::move(line)) << "\n";
  }
  return replaceFileAtomically(path, text);
}

llvm::Expected<PendingRequests>
sptune::readRequestFile(const std::string &path, unsigned task,
                        unsigned tasks) {
  if (tasks == 0 || task >= tasks)
    return failure("task " + llvm::Twine(task) + " of " + llvm::Twine(tasks) +
                   " does not exist");
  std::ifstream in(path);
  if (!in)
    return failure("cannot read the request file '" + path + "'");
  PendingRequests pending;
  std::string text;
  for (size_t index = 0; std::getline(in, text); ++index) {
    if (index % tasks != task)
      continue;
    llvm::Expected<json::Value> v = parseJson(text);
    if (!v)
      return failure(path + ":" + llvm::Twine(index + 1) + ": " +
                     llvm::toString(v.takeError()));
    const json::Object *o = v->getAsObject();
    const json::Object *key = o ? o->getObject("key") : nullptr;
    std::optional<llvm::StringRef> request =
        o ? o->getString("request") : std::nullopt;
    if (!key || !request)
      return failure(path + ":" + llvm::Twine(index + 1) +
                     ": not a request line");
    RecordKey k;
    k.matrixId = key->getString("matrix").value_or("").str();
    k.matrixHash = key->getString("hash").value_or("").str();
    k.kernel = key->getString("kernel").value_or("").str();
    k.free = key->getInteger("free").value_or(0);
    k.target = key->getString("target").value_or("").str();
    k.role = key->getString("role").value_or("").str();
    k.schedule = key->getString("schedule").value_or("").str();
    k.elementBits = static_cast<int>(key->getInteger("bits").value_or(32));
    MeasureRequest q;
    std::string error;
    if (takeErrorMessage(MeasureRequest::fromJson(request->str(), q), error))
      return failure(path + ":" + llvm::Twine(index + 1) + ": " + error);
    q.id = static_cast<int64_t>(pending.requests.size());
    pending.requests.push_back(std::move(q));
    pending.keys.push_back(std::move(k));
  }
  return pending;
}

std::string sptune::taskDoneMarker(const std::string &outPath) {
  return outPath + ".done";
}

llvm::Expected<CollectionResult>
sptune::runRequestFile(const std::string &requestPath, unsigned task,
                       unsigned tasks, const std::string &outPath,
                       const WorkerOptions &worker,
                       const std::atomic<bool> *stop) {
  llvm::Expected<PendingRequests> all =
      readRequestFile(requestPath, task, tasks);
  if (!all)
    return all.takeError();
  // A resubmitted task (failed, preempted) resumes: what its output holds
  // is done, except failures that may not recur.
  std::unordered_set<std::string> have =
      readDatasetKeys(outPath, nullptr, /*skipTransient=*/true);
  PendingRequests pending;
  for (size_t i = 0; i < all->requests.size(); ++i) {
    if (have.count(all->keys[i].str())) {
      ++pending.alreadyDone;
      continue;
    }
    MeasureRequest q = all->requests[i];
    q.id = static_cast<int64_t>(pending.requests.size());
    pending.requests.push_back(std::move(q));
    pending.keys.push_back(all->keys[i]);
  }
  CollectionRunOptions run;
  run.datasetPath = outPath;
  run.worker = worker;
  run.workers = 1;
  llvm::Expected<CollectionResult> result =
      measureIntoDataset(pending, run, nullptr, stop);
  if (!result)
    return result.takeError();
  if (!result->interrupted && !result->missing) {
    if (llvm::Error e =
            replaceFileAtomically(taskDoneMarker(outPath), "done\n"))
      return std::move(e);
  }
  return result;
}
