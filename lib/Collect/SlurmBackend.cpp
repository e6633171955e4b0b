//===- SlurmBackend.cpp - Measurements as Slurm job arrays ----------------===//

#include "sptune/Collect/SlurmBackend.h"

#include "sptune/Collect/Dataset.h"
#include "sptune/Collect/RequestFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "sptune/Support/Files.h"
#include "sptune/Support/Json.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include <unistd.h>

using namespace sptune;
namespace json = llvm::json;

static llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "slurm backend: " + message);
}

/// The batch in flight, as state.json records it.
struct SlurmBackend::Batch {
  std::string dir; ///< <state>/batch-<unique>
  unsigned tasks = 0;
  std::vector<std::string> taskJob; ///< last job id of each task
  std::vector<unsigned> attempts;
  std::vector<bool> finished, gaveUp;

  std::string statePath() const { return dir + "/state.json"; }
  std::string shard(unsigned t) const {
    return dir + "/shard-" + std::to_string(t) + ".jsonl";
  }
  bool save(std::string &error) const {
    json::Array jobs, tries, done, lost;
    for (unsigned t = 0; t < tasks; ++t) {
      jobs.push_back(taskJob[t]);
      tries.push_back(static_cast<int64_t>(attempts[t]));
      done.push_back(bool(finished[t]));
      lost.push_back(bool(gaveUp[t]));
    }
    json::Object o{{"tasks", static_cast<int64_t>(tasks)},
                   {"job", std::move(jobs)},
                   {"attempts", std::move(tries)},
                   {"finished", std::move(done)},
                   {"gave_up", std::move(lost)}};
    std::string text;
    llvm::raw_string_ostream(text) << json::Value(std::move(o)) << "\n";
    return !takeErrorMessage(replaceFileAtomically(statePath(), text), error);
  }
  bool load(std::string &error) {
    auto buffer = llvm::MemoryBuffer::getFile(statePath());
    if (!buffer) {
      error = "cannot read " + statePath();
      return false;
    }
    llvm::Expected<json::Value> v = parseJson((*buffer)->getBuffer());
    const json::Object *o = v ? v->getAsObject() : nullptr;
    if (!v)
      llvm::consumeError(v.takeError());
    const json::Array *jobs = o ? o->getArray("job") : nullptr;
    const json::Array *tries = o ? o->getArray("attempts") : nullptr;
    const json::Array *done = o ? o->getArray("finished") : nullptr;
    const json::Array *lost = o ? o->getArray("gave_up") : nullptr;
    std::optional<int64_t> n = o ? o->getInteger("tasks") : std::nullopt;
    if (!n || !jobs || !tries || !done || !lost ||
        jobs->size() != size_t(*n) || tries->size() != size_t(*n) ||
        done->size() != size_t(*n) || lost->size() != size_t(*n)) {
      error = statePath() + " is not a batch state";
      return false;
    }
    tasks = static_cast<unsigned>(*n);
    for (unsigned t = 0; t < tasks; ++t) {
      taskJob.push_back((*jobs)[t].getAsString().value_or("").str());
      attempts.push_back(
          static_cast<unsigned>((*tries)[t].getAsInteger().value_or(0)));
      finished.push_back((*done)[t].getAsBoolean().value_or(false));
      gaveUp.push_back((*lost)[t].getAsBoolean().value_or(false));
    }
    return true;
  }
};

/// What one sbatch or squeue call did.
struct CommandResult {
  int rc = 0;
  /// Killed after the timeout (rc is then negative).
  bool timedOut = false;
  std::string out, err;
};

/// Runs `program args`, killed after `timeout` seconds; its stdout and stderr
/// are captured through temporary files (a pipe would block a child that
/// writes more than it holds).
static CommandResult runCommand(const std::string &program,
                                const std::vector<std::string> &args,
                                unsigned timeout) {
  llvm::SmallString<128> outPath, errPath;
  llvm::sys::fs::createTemporaryFile("sptune-slurm", "out", outPath);
  llvm::sys::fs::createTemporaryFile("sptune-slurm", "err", errPath);
  std::vector<llvm::StringRef> argv{program};
  for (const std::string &a : args)
    argv.push_back(a);
  std::optional<llvm::StringRef> redirects[] = {
      llvm::StringRef(""), llvm::StringRef(outPath), llvm::StringRef(errPath)};
  std::string message;
  CommandResult r;
  auto start = std::chrono::steady_clock::now();
  r.rc = llvm::sys::ExecuteAndWait(program, argv, std::nullopt, redirects,
                                   timeout, 0, &message);
  // ExecuteAndWait reports a timeout as -2, as it does a crash; the clock
  // tells them apart.
  r.timedOut = r.rc < 0 && std::chrono::steady_clock::now() - start >=
                               std::chrono::seconds(timeout);
  auto slurp = [](llvm::StringRef path) {
    auto b = llvm::MemoryBuffer::getFile(path);
    return b ? (*b)->getBuffer().str() : std::string();
  };
  r.out = slurp(outPath);
  r.err = slurp(errPath);
  if (!message.empty())
    r.err += (r.err.empty() ? "" : "\n") + message;
  llvm::sys::fs::remove(outPath);
  llvm::sys::fs::remove(errPath);
  return r;
}

/// The failure of a call, with its command and how it ended.
static std::string describeFailure(llvm::StringRef command,
                                   const CommandResult &r, unsigned timeout) {
  if (r.timedOut)
    return (command + " did not return within " + llvm::Twine(timeout) +
            " s and was killed (is slurmctld reachable? "
            "--slurm-command-timeout sets the limit)")
        .str();
  return (command + " failed (exit " + llvm::Twine(r.rc) +
          "): " + llvm::StringRef(r.err).trim())
      .str();
}

static std::string shellQuote(const std::string &s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

llvm::Expected<std::string> SlurmBackend::tool(const std::string &name) {
  llvm::ErrorOr<std::string> path =
      options.slurmBinDir.empty()
          ? llvm::sys::findProgramByName(name)
          : llvm::sys::findProgramByName(name, {options.slurmBinDir});
  if (!path)
    return failure("'" + name +
                   "' not found (is this a Slurm login node? is Slurm on "
                   "PATH? for a local one: scripts/local-slurm.sh start)");
  return *path;
}

llvm::Error SlurmBackend::submit(Batch &batch,
                                 const std::vector<unsigned> &tasks) {
  llvm::Expected<std::string> sbatch = tool("sbatch");
  if (!sbatch)
    return sbatch.takeError();
  std::string spec;
  for (unsigned t : tasks)
    spec += (spec.empty() ? "" : ",") + std::to_string(t);
  if (tasks.size() == batch.tasks && batch.tasks > 1)
    spec = "0-" + std::to_string(batch.tasks - 1);
  std::vector<std::string> args{"--parsable", "--array=" + spec,
                                "--job-name=sptune-collect",
                                "--output=" + batch.dir + "/logs/%A_%a.out"};
  if (options.exclusive)
    args.push_back("--exclusive");
  if (!options.partition.empty())
    args.push_back("--partition=" + options.partition);
  if (!options.account.empty())
    args.push_back("--account=" + options.account);
  if (!options.time.empty())
    args.push_back("--time=" + options.time);
  llvm::SmallVector<llvm::StringRef> extra;
  llvm::SplitString(options.sbatchArgs, extra);
  for (llvm::StringRef e : extra)
    args.push_back(e.str());
  args.push_back(batch.dir + "/task.sh");
  unsigned timeout = options.commandTimeoutSeconds;
  CommandResult r = runCommand(*sbatch, args, timeout);
  if (r.timedOut)
    return failure(describeFailure("sbatch", r, timeout) +
                   "; if it did submit, the job array is not tracked: look "
                   "for jobs named sptune-collect in squeue");
  if (r.rc != 0)
    return failure(describeFailure("sbatch", r, timeout));
  // --parsable: "<job id>" or "<job id>;<cluster>".
  std::string job = llvm::StringRef(r.out).trim().split(';').first.str();
  if (job.empty() || !llvm::all_of(job, llvm::isDigit))
    return failure("sbatch printed no job id: '" +
                   llvm::StringRef(r.out).trim() + "'");
  for (unsigned t : tasks) {
    batch.taskJob[t] = job;
    ++batch.attempts[t];
  }
  std::string error;
  if (!batch.save(error))
    return failure(error);
  llvm::errs() << "sptune-collect: submitted job array " << job << " ("
               << tasks.size() << " task(s)) from " << batch.dir << "\n";
  return llvm::Error::success();
}

/// Hands the records of a finished shard to the sink.
static bool ingest(const std::string &shard, const RecordSink &sink) {
  std::ifstream in(shard);
  std::string line;
  while (std::getline(in, line)) {
    MeasuredRecord record;
    if (parseRecordLine(line, record) && !sink(record))
      return false;
  }
  return true;
}

llvm::Error SlurmBackend::drive(Batch &batch, const RecordSink &sink,
                                const std::atomic<bool> *stop, bool &stopped) {
  llvm::Expected<std::string> squeue = tool("squeue");
  if (!squeue)
    return squeue.takeError();
  double poll = std::clamp(options.pollSeconds, 0.2, 60.0);
  std::string error;
  unsigned squeueFailures = 0;
  while (true) {
    if (stop && *stop) {
      stopped = true;
      return llvm::Error::success();
    }
    // Queued or running tasks: "<array job id> <task id> <state>".
    unsigned timeout = options.commandTimeoutSeconds;
    CommandResult r =
        runCommand(*squeue, {"-h", "-r", "-o", "%F %K %T"}, timeout);
    if (r.rc != 0) {
      // A busy or restarting slurmctld: try again a few times before giving
      // up (the batch stays in the state directory for the next run).
      if (++squeueFailures <= 5) {
        llvm::errs() << "sptune-collect: "
                     << describeFailure("squeue", r, timeout) << "; retrying\n";
        std::this_thread::sleep_for(std::chrono::duration<double>(poll * 2));
        continue;
      }
      return failure(describeFailure("squeue", r, timeout));
    }
    const std::string &out = r.out;
    squeueFailures = 0;
    std::set<std::string> queued;
    llvm::SmallVector<llvm::StringRef> lines;
    llvm::StringRef(out).split(lines, '\n', -1, false);
    for (llvm::StringRef l : lines) {
      llvm::SmallVector<llvm::StringRef> f;
      llvm::SplitString(l, f);
      if (f.size() >= 2)
        queued.insert(f[0].str() + "_" + f[1].str());
    }
    std::vector<unsigned> resubmit;
    bool allDone = true;
    for (unsigned t = 0; t < batch.tasks; ++t) {
      if (batch.finished[t])
        continue;
      if (llvm::sys::fs::exists(taskDoneMarker(batch.shard(t)))) {
        if (!ingest(batch.shard(t), sink))
          return llvm::Error::success(); // the sink failed: caller reports
        batch.finished[t] = true;
        if (!batch.save(error))
          return failure(error);
        continue;
      }
      allDone = false;
      if (queued.count(batch.taskJob[t] + "_" + std::to_string(t)))
        continue;
      // Neither queued nor done: failed, preempted, cancelled or lost.
      if (batch.attempts[t] > options.maxRetries) {
        llvm::errs() << "sptune-collect: array task " << t << " of "
                     << batch.dir << " failed " << batch.attempts[t]
                     << " time(s) (see " << batch.dir << "/logs); giving up "
                     << "its measurements (a later run measures them)\n";
        ingest(batch.shard(t), sink); // what it measured before failing
        batch.finished[t] = batch.gaveUp[t] = true;
        if (!batch.save(error))
          return failure(error);
        continue;
      }
      resubmit.push_back(t);
    }
    if (allDone)
      return llvm::Error::success();
    if (!resubmit.empty()) {
      llvm::errs() << "sptune-collect: resubmitting " << resubmit.size()
                   << " failed or missing array task(s)\n";
      if (llvm::Error e = submit(batch, resubmit))
        return e;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(poll));
  }
}

llvm::Error SlurmBackend::measure(const PendingRequests &pending,
                                  const RecordSink &sink,
                                  const std::atomic<bool> *stop) {
  // Fail early and clearly without Slurm.
  for (const char *name : {"sbatch", "squeue"})
    if (llvm::Expected<std::string> p = tool(name); !p)
      return p.takeError();
  llvm::SmallString<256> state(options.stateDir);
  if (std::error_code ec = llvm::sys::fs::make_absolute(state))
    return failure("state directory: " + ec.message());
  if (std::error_code ec = llvm::sys::fs::create_directories(state))
    return failure("cannot create " + state + ": " + ec.message());

  // Keys of this batch that records came back for.
  std::set<std::string> wanted, got;
  for (const RecordKey &k : pending.keys)
    wanted.insert(k.str());
  bool sinkFailed = false;
  RecordSink counting = [&](const MeasuredRecord &r) {
    if (wanted.count(r.key))
      got.insert(r.key);
    if (!sink(r))
      sinkFailed = true;
    return !sinkFailed;
  };
  auto retire = [&](const Batch &b) {
    // Keep the finished batch for inspection, out of the way of the next.
    std::string done = (state + "/done-" + b.taskJob[0] + "-" +
                        std::to_string(::getpid()) + "-" +
                        std::to_string(std::chrono::steady_clock::now()
                                           .time_since_epoch()
                                           .count()))
                           .str();
    llvm::sys::fs::rename(b.dir, done);
  };

  // Every batch has a directory of its own, named once (`batch-<unique>`),
  // and its task.sh names only that directory: the tasks of a job the
  // driver does not know of (an sbatch that submitted but failed or timed
  // out, a driver killed before state.json) never read, write or mark
  // anything of a later batch (issue 35 probe: an orphan task's done marker
  // was taken for the next batch's task of the same number, whose
  // measurements were then lost). `batch` is the directory of an older
  // sptune, re-attached the same way.
  std::vector<std::string> leftovers;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(state, ec), end; !ec && it != end;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (name == "batch" || name.starts_with("batch-"))
      leftovers.push_back(it->path());
  }
  llvm::sort(leftovers);
  for (const std::string &dir : leftovers) {
    if (!llvm::sys::fs::exists(dir + "/state.json")) {
      // No job id was recorded: its job may or may not exist. Left as it
      // is (its tasks write there, if any run); never read.
      std::string orphan =
          (state + "/orphan-" + llvm::sys::path::filename(dir)).str();
      if (!llvm::sys::fs::rename(dir, orphan))
        llvm::errs() << "sptune-collect: " << orphan
                     << ": an earlier batch that may have been submitted "
                        "without its job id being recorded; its records are "
                        "not read (their measurements are made again)\n";
      continue;
    }
    Batch old;
    old.dir = dir;
    std::string error;
    if (!old.load(error))
      return failure(error + " (remove " + dir + " to start afresh)");
    llvm::errs() << "sptune-collect: re-attaching the batch in " << dir << "\n";
    bool stopped = false;
    if (llvm::Error e = drive(old, counting, stop, stopped))
      return e;
    if (stopped || sinkFailed)
      return llvm::Error::success();
    retire(old);
  }

  PendingRequests rest;
  for (size_t i = 0; i < pending.requests.size(); ++i) {
    if (got.count(pending.keys[i].str()))
      continue;
    MeasureRequest q = pending.requests[i];
    q.id = static_cast<int64_t>(rest.requests.size());
    rest.requests.push_back(std::move(q));
    rest.keys.push_back(pending.keys[i]);
  }
  if (rest.requests.empty() || (stop && *stop))
    return llvm::Error::success();

  std::string batchDir =
      (state + "/batch-" + std::to_string(::getpid()) + "-" +
       std::to_string(
           std::chrono::system_clock::now().time_since_epoch().count()))
          .str();
  Batch batch;
  batch.dir = batchDir;
  batch.tasks = static_cast<unsigned>(
      std::min<size_t>(std::max(1u, options.tasks), rest.requests.size()));
  batch.taskJob.assign(batch.tasks, "");
  batch.attempts.assign(batch.tasks, 0);
  batch.finished.assign(batch.tasks, false);
  batch.gaveUp.assign(batch.tasks, false);
  if (std::error_code ec =
          llvm::sys::fs::create_directories(batchDir + "/logs"))
    return failure("cannot create " + batchDir + ": " + ec.message());
  if (llvm::Error e = writeRequestFile(batchDir + "/requests.jsonl", rest))
    return e;
  std::string collect = options.collectExecutable;
  if (collect.empty()) {
    static int anchor;
    collect = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
    llvm::SmallString<256> p(llvm::sys::path::parent_path(collect));
    llvm::sys::path::append(p, "sptune-collect");
    collect = std::string(p);
  }
  std::string script =
      "#!/bin/sh\n"
      "# sptune Slurm array task: measures shard $SLURM_ARRAY_TASK_ID of " +
      std::to_string(batch.tasks) + " of requests.jsonl.\n"
      "exec " + shellQuote(collect) + " --run-requests " +
      shellQuote(batchDir + "/requests.jsonl") + " --task \"$SLURM_ARRAY_TASK_ID/" +
      std::to_string(batch.tasks) + "\" --out " + shellQuote(batchDir) +
      "/shard-\"$SLURM_ARRAY_TASK_ID\".jsonl --timeout " +
      std::to_string(options.worker.timeoutSeconds) +
      (options.worker.executable.empty()
           ? std::string()
           : " --worker-exe " + shellQuote(options.worker.executable)) +
      "\n";
  if (llvm::Error e = replaceFileAtomically(batchDir + "/task.sh", script))
    return std::move(e);
  llvm::sys::fs::setPermissions(batchDir + "/task.sh",
                                llvm::sys::fs::perms(0755));
  std::vector<unsigned> all;
  for (unsigned t = 0; t < batch.tasks; ++t)
    all.push_back(t);
  if (llvm::Error e = submit(batch, all))
    return e;
  bool stopped = false;
  if (llvm::Error e = drive(batch, counting, stop, stopped))
    return e;
  if (!stopped && !sinkFailed)
    retire(batch);
  return llvm::Error::success();
}
