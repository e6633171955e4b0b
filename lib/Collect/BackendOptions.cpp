//===- BackendOptions.cpp - --backend and --slurm-* options ---------------===//

#include "sptune/Collect/BackendOptions.h"

#include "sptune/Collect/SlurmBackend.h"

using namespace sptune;
namespace cl = llvm::cl;

BackendCommandLine::BackendCommandLine(cl::OptionCategory &category)
    : backend("backend", cl::cat(category),
              cl::desc("Where measurements run: local (worker processes on "
                       "this machine) or slurm (job arrays; docs/cluster.md)"),
              cl::init("local")),
      partition("slurm-partition", cl::cat(category),
                cl::desc("Slurm partition of the array tasks")),
      account("slurm-account", cl::cat(category),
              cl::desc("Slurm account charged")),
      time("slurm-time", cl::cat(category),
           cl::desc("Time limit of each array task (e.g. 30:00)")),
      sbatchArgs("slurm-sbatch-args", cl::cat(category),
                 cl::desc("Extra sbatch arguments (split on whitespace), "
                          "e.g. \"--constraint=icelake --qos=low\"")),
      stateDir("slurm-state", cl::cat(category),
               cl::desc("Directory of request files, job ids and shard "
                        "outputs, on a shared file system (default: "
                        "<dataset>.slurm)")),
      maxRetries("slurm-max-retries", cl::cat(category),
                 cl::desc("Resubmissions of a failed or preempted array "
                          "task"),
                 cl::init(2)),
      tasks("slurm-tasks", cl::cat(category),
            cl::desc("Array tasks per batch (each measures a share)"),
            cl::init(4)),
      commandTimeout("slurm-command-timeout", cl::cat(category),
                     cl::desc("Seconds an sbatch or squeue call may take "
                              "before it is killed (1 to 3600)"),
                     cl::init(120)),
      poll("slurm-poll", cl::cat(category),
           cl::desc("Seconds between squeue polls (0.2 to 60)"), cl::init(5)),
      shared("slurm-shared", cl::cat(category),
             cl::desc("Do not ask for --exclusive nodes (measurements may "
                      "then disturb each other)")) {}

llvm::Expected<std::shared_ptr<MeasurementBackend>>
BackendCommandLine::create(const WorkerOptions &worker,
                           const std::string &datasetPath) const {
  if (backend == "local")
    return nullptr;
  if (backend != "slurm")
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown backend '" + backend +
                                       "' (local, slurm)");
  // Checked before anything is submitted (issue 35 probe: 0 tasks ran one,
  // a NaN poll interval was taken).
  if (tasks < 1 || tasks > 100000)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--slurm-tasks must be in [1, 100000]");
  if (!(poll >= 0.2 && poll <= 60))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--slurm-poll must be in [0.2, 60] seconds");
  if (commandTimeout < 1 || commandTimeout > 3600)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "--slurm-command-timeout must be in [1, 3600] seconds");
  if (maxRetries > 100)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--slurm-max-retries must be at most 100");
  SlurmOptions o;
  o.partition = partition;
  o.account = account;
  o.time = time;
  o.sbatchArgs = sbatchArgs;
  o.stateDir = stateDir.empty() ? datasetPath + ".slurm" : stateDir.getValue();
  o.maxRetries = maxRetries;
  o.tasks = tasks;
  o.pollSeconds = poll;
  o.commandTimeoutSeconds = commandTimeout;
  o.exclusive = !shared;
  o.worker = worker;
  return std::make_shared<SlurmBackend>(std::move(o));
}
