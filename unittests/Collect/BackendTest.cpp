//===- BackendTest.cpp - Shards, merge, request files, Slurm errors -------===//

#include "sptune/Collect/Collection.h"
#include "sptune/Collect/Dataset.h"
#include "sptune/Collect/RequestFile.h"
#include "sptune/Collect/SlurmBackend.h"
#include "sptune/Collect/WorkerPool.h"
#include "sptune/InitAllTargets.h"

#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

#include <chrono>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <thread>

using namespace sptune;

namespace {

std::string tempDir() {
  llvm::SmallString<128> dir;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("sptune-backend", dir));
  return std::string(dir);
}

CollectionPlan planOf(size_t n) {
  CollectionPlan plan;
  for (size_t i = 0; i < n; ++i) {
    PlannedRequest p;
    p.key.matrixId = "m" + std::to_string(i % 7);
    p.key.matrixHash = "0123456789abcdef";
    p.key.kernel = "spmm";
    p.key.free = 8;
    p.key.target = "cpu";
    p.key.role = "sample";
    p.key.schedule = "schedule " + std::to_string(i);
    p.request.matrix = "gen:uniform:rows=8,cols=8,nnz=10,seed=" +
                       std::to_string(i);
    p.request.baseline = "mlir-default";
    plan.requests.push_back(p);
  }
  return plan;
}

TEST(Shard, SharesAreDeterministicDisjointAndComplete) {
  // The hash is fixed (FNV-1a 64), not std::hash: same on every machine.
  EXPECT_EQ(stableHash(""), 14695981039346656037ull);
  EXPECT_EQ(stableHash("a"), 0xaf63dc4c8601ec8cull);
  std::multiset<std::string> seen;
  for (unsigned i = 0; i < 5; ++i) {
    CollectionPlan a = planOf(100), b = planOf(100);
    keepShard(a, i, 5);
    keepShard(b, i, 5);
    ASSERT_EQ(a.requests.size(), b.requests.size());
    for (size_t j = 0; j < a.requests.size(); ++j) {
      EXPECT_EQ(a.requests[j].key.str(), b.requests[j].key.str());
      seen.insert(a.requests[j].key.str());
    }
    EXPECT_GT(a.requests.size(), 5u); // a hash, not all in one share
  }
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 100u);
  CollectionPlan whole = planOf(10);
  keepShard(whole, 0, 1);
  EXPECT_EQ(whole.requests.size(), 10u);
}

TEST(Merge, OneRecordPerKeyOkOverFailed) {
  std::string dir = tempDir();
  auto write = [&](const std::string &name, const std::string &text) {
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  };
  std::string a = write("a.jsonl", "{\"key\":\"k1\",\"status\":\"timeout\"}\n"
                                   "{\"key\":\"k2\",\"status\":\"ok\",\"n\":1}\n"
                                   "{\"key\":\"k3\",\"sta");
  std::string b = write("b.jsonl", "{\"key\":\"k1\",\"status\":\"ok\"}\n"
                                   "{\"key\":\"k2\",\"status\":\"ok\",\"n\":2}\n"
                                   "{\"key\":\"k4\",\"status\":\"crash\"}\n");
  MergeSummary summary;
  ASSERT_FALSE(bool(mergeDatasets({a, b}, a, summary))); // onto an input
  EXPECT_EQ(summary.records, 3u);
  EXPECT_EQ(summary.duplicates, 2u);
  EXPECT_EQ(summary.replaced, 1u);
  EXPECT_EQ(summary.unreadable, 1u);
  std::ifstream in(a);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "{\"key\":\"k1\",\"status\":\"ok\"}\n"
                        "{\"key\":\"k2\",\"status\":\"ok\",\"n\":1}\n"
                        "{\"key\":\"k4\",\"status\":\"crash\"}\n");
  MergeSummary none;
  EXPECT_TRUE(bool(llvm::errorToBool(
      mergeDatasets({dir + "/missing.jsonl"}, dir + "/out.jsonl", none))));
  llvm::sys::fs::remove_directories(dir);
}

TEST(RequestFile, TasksSplitTheLinesAndRoundTrip) {
  registerAllTargets();
  std::string dir = tempDir();
  CollectionPlan plan = planOf(10);
  PendingRequests pending;
  for (PlannedRequest &p : plan.requests) {
    pending.requests.push_back(p.request);
    pending.keys.push_back(p.key);
  }
  // An f64 request keeps its width, in its request and in its key.
  pending.requests[1].elementBits = pending.keys[1].elementBits = 64;
  ASSERT_FALSE(bool(writeRequestFile(dir + "/r.jsonl", pending)));
  std::set<std::string> keys;
  for (unsigned t = 0; t < 3; ++t) {
    llvm::Expected<PendingRequests> share =
        readRequestFile(dir + "/r.jsonl", t, 3);
    ASSERT_TRUE(bool(share)) << llvm::toString(share.takeError());
    EXPECT_EQ(share->requests.size(), t == 0 ? 4u : 3u);
    for (size_t i = 0; i < share->keys.size(); ++i) {
      keys.insert(share->keys[i].str());
      EXPECT_EQ(share->requests[i].id, static_cast<int64_t>(i));
      EXPECT_EQ(share->requests[i].matrix,
                "gen:uniform:rows=8,cols=8,nnz=10,seed=" +
                    share->keys[i].schedule.substr(9));
      EXPECT_EQ(share->keys[i].matrixHash, "0123456789abcdef");
      bool f64 = t == 1 && i == 0; // line 1 of the file: task 1's first
      EXPECT_EQ(share->keys[i].elementBits, f64 ? 64 : 32);
      EXPECT_EQ(share->requests[i].elementBits, f64 ? 64 : 32);
      EXPECT_EQ(llvm::StringRef(share->keys[i].str()).ends_with("|64-bit"),
                f64);
    }
  }
  EXPECT_EQ(keys.size(), 10u);
  llvm::Expected<PendingRequests> bad = readRequestFile(dir + "/r.jsonl", 3, 3);
  EXPECT_FALSE(bool(bad));
  llvm::consumeError(bad.takeError());
  llvm::sys::fs::remove_directories(dir);
}

TEST(SlurmBackend, MissingSbatchIsAClearError) {
  std::string dir = tempDir();
  SlurmOptions options;
  options.slurmBinDir = dir; // holds no sbatch
  options.stateDir = dir + "/state";
  SlurmBackend backend(options);
  PendingRequests pending;
  llvm::Error e = backend.measure(
      pending, [](const MeasuredRecord &) { return true; }, nullptr);
  ASSERT_TRUE(bool(e));
  std::string message = llvm::toString(std::move(e));
  EXPECT_NE(message.find("'sbatch' not found"), std::string::npos) << message;
  llvm::sys::fs::remove_directories(dir);
}

} // namespace

namespace {

/// A backend that measures every request as ok and records which keys it
/// was asked for; with `dropLast`, it hands back every record but the last:
/// what a Slurm task given up after its retries leaves.
class FakeBackend : public MeasurementBackend {
public:
  explicit FakeBackend(bool dropLast = false) : dropLast(dropLast) {}
  std::string name() const override { return "fake"; }
  llvm::Error measure(const PendingRequests &pending, const RecordSink &sink,
                      const std::atomic<bool> *) override {
    size_t answered = pending.keys.size() - (dropLast && !pending.keys.empty());
    for (size_t i = 0; i < answered; ++i) {
      EXPECT_EQ(pending.requests[i].id, static_cast<int64_t>(i));
      asked.push_back(pending.keys[i].str());
      sink({pending.keys[i].str(), "ok",
            "{\"key\":\"" + pending.keys[i].str() + "\",\"status\":\"ok\"}"});
    }
    return llvm::Error::success();
  }
  std::vector<std::string> asked;

private:
  bool dropLast;
};

/// Measurements a backend gave up on are "missing", not an interruption
/// (the run exited 130 "interrupted" though nothing was); a raised stop is.
TEST(Collection, MissingIsNotInterrupted) {
  std::string dir = tempDir();
  CollectionPlan plan = planOf(4);
  PendingRequests pending =
      pendingRequests(plan, dir + "/d.jsonl", /*retryTransient=*/true);
  ASSERT_EQ(pending.requests.size(), 4u);
  CollectionRunOptions run;
  run.datasetPath = dir + "/d.jsonl";
  run.backend = std::make_shared<FakeBackend>(/*dropLast=*/true);
  std::atomic<bool> stop{false};
  llvm::Expected<CollectionResult> r =
      measureIntoDataset(pending, run, nullptr, &stop);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_FALSE(r->interrupted);
  EXPECT_EQ(r->missing, 1u);
  EXPECT_EQ(r->progress.done, 3u);

  stop = true;
  run.datasetPath = dir + "/e.jsonl";
  r = measureIntoDataset(pending, run, nullptr, &stop);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_TRUE(r->interrupted);
  EXPECT_EQ(r->missing, 0u);
}

} // namespace

namespace {

/// A second collector read the dataset's keys before taking its lock; a
/// first one finished some of its requests in between. Those are not
/// measured (and recorded) twice: the keys are read again under the lock.
TEST(Collection, KeysRecordedBeforeTheLockAreNotMeasuredAgain) {
  std::string dir = tempDir();
  std::string path = dir + "/d.jsonl";
  CollectionPlan plan = planOf(4);
  PendingRequests pending = pendingRequests(plan, path, true);
  ASSERT_EQ(pending.requests.size(), 4u);
  {
    // The first collector, done with two of the four, has let go.
    DatasetWriter first;
    ASSERT_FALSE(static_cast<bool>(first.open(path, false)));
    for (size_t i : {0u, 2u})
      ASSERT_TRUE(first.append("{\"key\":\"" + pending.keys[i].str() +
                               "\",\"status\":\"ok\"}"));
  }
  auto backend = std::make_shared<FakeBackend>();
  CollectionRunOptions run;
  run.datasetPath = path;
  run.backend = backend;
  llvm::Expected<CollectionResult> r =
      measureIntoDataset(pending, run, nullptr);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->recordedMeanwhile, 2u);
  EXPECT_EQ(r->progress.total, 2u);
  EXPECT_EQ(r->progress.done, 2u);
  EXPECT_EQ(r->missing, 0u);
  EXPECT_EQ(backend->asked, (std::vector<std::string>{pending.keys[1].str(),
                                                      pending.keys[3].str()}));
  EXPECT_EQ(readDatasetKeys(path, nullptr, true).size(), 4u);
}

} // namespace

namespace {

/// Worker options running the shell script `body` (after a `#!/bin/sh`
/// line), written under a fresh temporary directory.
WorkerOptions scriptWorker(const std::string &name, const std::string &body) {
  std::string script = tempDir() + "/" + name;
  {
    std::ofstream f(script);
    f << "#!/bin/sh\n" << body;
  }
  llvm::sys::fs::setPermissions(script, llvm::sys::fs::perms(0755));
  WorkerOptions options;
  options.executable = script;
  options.timeoutSeconds = 30;
  return options;
}

/// A CPU SpMM heuristic request on a tiny generated matrix.
MeasureRequest heuristicRequest(int id) {
  MeasureRequest request;
  request.id = id;
  request.target = "cpu";
  request.matrix = "gen:uniform:rows=8,nnz=8";
  request.kernel = "spmm";
  request.baseline = "heuristic";
  return request;
}

/// A worker that answered and then ended (sptune-measure's watchdog answers
/// a request still running past its timeout_s, then exits) is started again
/// for the next request, which used to be reported as a crash ("could not
/// send the request").
TEST(Worker, StartsAgainAfterAWorkerThatEndedOnItsOwn) {
  MeasureWorker worker(scriptWorker(
      "one-answer-worker",
      "read line\necho '{\"id\":0,\"status\":\"ok\",\"time_s\":{\"median\":"
      "0.001,\"reps\":1}}'\nexit 3\n"));
  for (int n = 0; n < 3; ++n) {
    // Let the worker end before the next request is written.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    MeasureResponse response = worker.measure(heuristicRequest(n));
    EXPECT_EQ(response.measurement.status, MeasureStatus::Ok)
        << "request " << n << ": " << response.measurement.reason;
    EXPECT_EQ(response.id, n);
  }
}

/// The watchdog's `timeout` answer comes before its worker exits; a request
/// written in between was recorded as a crash ("worker exited with status
/// 3") without having been measured.
TEST(Worker, ANextRequestNeverGoesToAWorkerEndingAfterItsTimeout) {
  MeasureWorker worker(scriptWorker(
      "timing-out-worker",
      "read line\necho '{\"id\":0,\"status\":\"timeout\",\"reason\":"
      "\"stuck\"}'\nsleep 0.3\nexit 3\n"));
  for (int n = 0; n < 3; ++n) {
    MeasureResponse response = worker.measure(heuristicRequest(n));
    EXPECT_EQ(response.measurement.status, MeasureStatus::Timeout)
        << "request " << n << ": " << response.measurement.reason;
  }
}

/// A worker that answers a timeout of its own and goes on (the SPADE
/// simulator's limit) is kept: no new process for the next request.
TEST(Worker, AWorkerThatGoesOnAfterATimeoutAnswerIsKept) {
  std::string starts = tempDir() + "/starts";
  MeasureWorker worker(scriptWorker(
      "timeout-answering-worker",
      "echo started >> " + starts +
          "\nwhile read line; do echo '{\"id\":0,\"status\":\"timeout\","
          "\"reason\":\"simulated cycles over the limit\"}'; done\n"));
  for (int n = 0; n < 3; ++n) {
    MeasureResponse response = worker.measure(heuristicRequest(n));
    EXPECT_EQ(response.measurement.status, MeasureStatus::Timeout)
        << "request " << n << ": " << response.measurement.reason;
  }
  std::ifstream in(starts);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "started\n");
}

} // namespace
