//===- WorkerPool.h - Measurements in child processes -----------*- C++ -*-===//
//
// Part of sptune. The parent side of measurement workers: each worker is a
// `sptune-measure --worker` child process fed one request at a time. A
// request that crashes the worker (a compiler or kernel segfault), hangs past
// its timeout (the worker is killed) or returns garbage becomes a failed
// measurement with its reason; the worker is restarted for the next request.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COLLECT_WORKERPOOL_H
#define SPTUNE_COLLECT_WORKERPOOL_H

#include "sptune/Collect/WorkerProtocol.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace sptune {

struct WorkerOptions {
  /// The worker executable; empty = `sptune-measure` next to this program.
  std::string executable;
  /// Wall-clock limit per request (compile + check + timing).
  double timeoutSeconds = 120;
};

/// One child process.
class MeasureWorker {
public:
  explicit MeasureWorker(WorkerOptions options);
  ~MeasureWorker();
  MeasureWorker(const MeasureWorker &) = delete;
  MeasureWorker &operator=(const MeasureWorker &) = delete;

  /// Never fails: problems of the worker become the response's status.
  MeasureResponse measure(const MeasureRequest &request);
  /// Restarts the worker process (e.g. to drop caches between matrices).
  void restart();

private:
  llvm::Error start();
  /// Stops the child; returns a description of how it ended.
  std::string stop(bool kill);
  /// Forgets the worker when it has ended (it starts again on the next
  /// request); true when it had.
  bool reapIfEnded();
  /// After a `timeout` answer: waits up to a second for the worker to end
  /// (its watchdog exits after answering), and forgets it when it does.
  void reapIfEnding();
  std::string stderrTail() const;

  WorkerOptions options;
  int pid = -1;
  int toChild = -1;
  int fromChild = -1;
  std::string stderrPath;
  std::string pending; ///< bytes read past the last newline
};

/// N workers measuring a batch of requests concurrently.
class WorkerPool {
public:
  WorkerPool(WorkerOptions options, unsigned workers);
  ~WorkerPool();
  /// Measures every request; calls `done` (serialized, in completion order)
  /// with each request and its response. `stop()` from `done` ends the batch
  /// after the requests in flight.
  void run(const std::vector<MeasureRequest> &requests,
           const std::function<void(const MeasureRequest &,
                                    const MeasureResponse &)> &done);
  void stop() { stopping = true; }

private:
  std::vector<std::unique_ptr<MeasureWorker>> workers;
  bool stopping = false;
};

/// `sptune-measure` next to the running executable.
std::string defaultWorkerExecutable();

} // namespace sptune

#endif // SPTUNE_COLLECT_WORKERPOOL_H
