//===- WorkerPool.cpp - Measurements in child processes -------------------===//

#include "sptune/Collect/WorkerPool.h"

#include "sptune/Support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace sptune;

std::string sptune::defaultWorkerExecutable() {
  static int anchor;
  std::string self = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  llvm::SmallString<256> path(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(path, "sptune-measure");
  return std::string(path);
}

MeasureWorker::MeasureWorker(WorkerOptions options)
    : options(std::move(options)) {
  if (this->options.executable.empty())
    this->options.executable = defaultWorkerExecutable();
  char tmpl[] = "/tmp/sptune-worker-XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd >= 0) {
    close(fd);
    stderrPath = tmpl;
  }
}

MeasureWorker::~MeasureWorker() {
  stop(/*kill=*/true);
  if (!stderrPath.empty())
    unlink(stderrPath.c_str());
}

llvm::Error MeasureWorker::start() {
  int in[2], out[2];
  // Close-on-exec: dup2 clears the flag on the child's stdin / stdout, and
  // no worker keeps another's pipe ends (or a collector's file) open.
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
    return makeError(std::string("pipe: ") + strerror(errno));
  // Signals on a dead worker's pipe must not kill the collector.
  signal(SIGPIPE, SIG_IGN);
  pid_t child = fork();
  if (child < 0)
    return makeError(std::string("fork: ") + strerror(errno));
  if (child == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    int errFd = stderrPath.empty()
                    ? open("/dev/null", O_WRONLY)
                    : open(stderrPath.c_str(), O_WRONLY | O_TRUNC | O_CREAT, 0600);
    if (errFd >= 0)
      dup2(errFd, STDERR_FILENO);
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    execl(options.executable.c_str(), options.executable.c_str(), "--worker",
          static_cast<char *>(nullptr));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  pid = child;
  toChild = in[1];
  fromChild = out[0];
  pending.clear();
  return llvm::Error::success();
}

std::string MeasureWorker::stop(bool kill) {
  if (pid <= 0)
    return "";
  if (toChild >= 0)
    close(toChild);
  if (kill)
    ::kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (fromChild >= 0)
    close(fromChild);
  pid = -1;
  toChild = fromChild = -1;
  if (WIFSIGNALED(status))
    return std::string("worker died of signal ") + strsignal(WTERMSIG(status));
  if (WIFEXITED(status))
    return "worker exited with status " + std::to_string(WEXITSTATUS(status));
  return "worker ended";
}

void MeasureWorker::restart() { stop(/*kill=*/true); }

bool MeasureWorker::reapIfEnded() {
  if (pid <= 0)
    return false;
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) != pid)
    return false;
  close(toChild);
  close(fromChild);
  toChild = fromChild = -1;
  pid = -1;
  pending.clear();
  return true;
}

void MeasureWorker::reapIfEnding() {
  // The watchdog exits right after its answer is flushed: a second is
  // ample, and a worker still there after it is one that goes on.
  for (int waited = 0; waited < 100; ++waited) {
    if (reapIfEnded())
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::string MeasureWorker::stderrTail() const {
  if (stderrPath.empty())
    return "";
  int fd = open(stderrPath.c_str(), O_RDONLY);
  if (fd < 0)
    return "";
  off_t size = lseek(fd, 0, SEEK_END);
  off_t from = size > 4096 ? size - 4096 : 0;
  std::string text(static_cast<size_t>(size - from), '\0');
  ssize_t got = pread(fd, text.data(), text.size(), from);
  close(fd);
  text.resize(got > 0 ? static_cast<size_t>(got) : 0);
  // The most telling line: an error message, else the first stack frame of
  // the crash, else the last line.
  size_t err = text.find("error:");
  if (err != std::string::npos) {
    size_t eol = text.find('\n', err);
    return text.substr(err, eol == std::string::npos ? eol : eol - err);
  }
  size_t frame = text.find(" #4 ");
  if (frame != std::string::npos) {
    size_t eol = text.find('\n', frame);
    return "crashed in" + text.substr(frame + 3, eol == std::string::npos
                                                     ? eol
                                                     : eol - frame - 3);
  }
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  size_t last = text.rfind('\n');
  return last == std::string::npos ? text : text.substr(last + 1);
}

MeasureResponse MeasureWorker::measure(const MeasureRequest &request) {
  // What the measurement cost: the wall-clock time of the round trip,
  // including a worker (re)start, and on a failure the time spent until it.
  auto started = std::chrono::steady_clock::now();
  MeasureResponse response;
  response.id = request.id;
  Measurement &m = response.measurement;
  auto finish = [&]() -> MeasureResponse {
    response.wallSeconds = std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - started)
                               .count();
    return response;
  };
  // A worker that ended after its last answer (its watchdog answers a
  // request still running past its timeout_s, then exits) starts again.
  reapIfEnded();
  std::string error;
  if (pid <= 0 && takeErrorMessage(start(), error)) {
    m.status = MeasureStatus::Error;
    m.reason = "cannot start worker '" + options.executable + "': " + error;
    return finish();
  }
  if (!stderrPath.empty())
    truncate(stderrPath.c_str(), 0);
  std::string line = request.toJson() + "\n";
  if (write(toChild, line.data(), line.size()) !=
      static_cast<ssize_t>(line.size())) {
    std::string how = stop(/*kill=*/true);
    m.status = MeasureStatus::Crash;
    m.reason = "could not send the request (" + how + ")";
    return finish();
  }
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(
                      static_cast<int64_t>(options.timeoutSeconds * 1000));
  while (true) {
    size_t eol = pending.find('\n');
    if (eol != std::string::npos) {
      std::string reply = pending.substr(0, eol);
      pending.erase(0, eol + 1);
      if (takeErrorMessage(MeasureResponse::fromJson(reply, response), error)) {
        stop(/*kill=*/true);
        m.status = MeasureStatus::Error;
        m.reason = "garbled worker reply: " + error;
      } else if (m.status == MeasureStatus::Timeout) {
        // Its watchdog may have answered, after which the worker ends (its
        // stuck thread cannot be stopped): the next request must not be
        // written to it, or it is recorded as a crash without having been
        // measured. A worker that answered a timeout of its own and goes
        // on (the SPADE simulator's limit) is kept.
        reapIfEnding();
      }
      response.id = request.id;
      return finish();
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      stop(/*kill=*/true);
      m.status = MeasureStatus::Timeout;
      m.reason = "no result within " + std::to_string(options.timeoutSeconds) +
                 " s; worker killed";
      return finish();
    }
    pollfd p{fromChild, POLLIN, 0};
    int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (ready < 0 && errno != EINTR) {
      stop(/*kill=*/true);
      m.status = MeasureStatus::Error;
      m.reason = std::string("poll: ") + strerror(errno);
      return finish();
    }
    if (ready <= 0)
      continue;
    char buf[65536];
    ssize_t got = read(fromChild, buf, sizeof(buf));
    if (got > 0) {
      pending.append(buf, static_cast<size_t>(got));
      continue;
    }
    // End of output: the worker died while measuring.
    std::string how = stop(/*kill=*/false);
    std::string tail = stderrTail();
    m.status = MeasureStatus::Crash;
    m.reason = how + (tail.empty() ? "" : ": " + tail);
    return finish();
  }
}

WorkerPool::WorkerPool(WorkerOptions options, unsigned count) {
  for (unsigned n = 0; n < std::max(1u, count); ++n)
    workers.push_back(std::make_unique<MeasureWorker>(options));
}

WorkerPool::~WorkerPool() = default;

void WorkerPool::run(
    const std::vector<MeasureRequest> &requests,
    const std::function<void(const MeasureRequest &, const MeasureResponse &)>
        &done) {
  std::atomic<size_t> next{0};
  std::mutex doneMutex;
  auto loop = [&](MeasureWorker &worker) {
    while (!stopping) {
      size_t n = next++;
      if (n >= requests.size())
        return;
      MeasureResponse r = worker.measure(requests[n]);
      std::lock_guard<std::mutex> lock(doneMutex);
      done(requests[n], r);
    }
  };
  if (workers.size() == 1) {
    loop(*workers.front());
    return;
  }
  std::vector<std::thread> threads;
  for (auto &w : workers)
    threads.emplace_back(loop, std::ref(*w));
  for (std::thread &t : threads)
    t.join();
}
