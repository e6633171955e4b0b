//===- AdaptedModel.cpp - Models adapted to the machine they run on -------===//

#include "sptune/CostModel/AdaptedModel.h"

#include "sptune/CostModel/CostModel.h"
#include "sptune/Machine/MachineDescriptor.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace sptune;

std::string sptune::adaptedModelDirectory() {
  llvm::SmallString<256> dir;
  if (const char *cache = std::getenv("XDG_CACHE_HOME"); cache && *cache)
    dir = cache;
  else if (const char *home = std::getenv("HOME"); home && *home)
    llvm::sys::path::append(dir, home, ".cache");
  else
    return "";
  llvm::sys::path::append(dir, "sptune", "models");
  return std::string(dir);
}

std::string sptune::machineModelKey() {
  MachineDescriptor m = probeMachine();
  std::string key;
  for (char c : m.cpu.empty() ? std::string("unknown-cpu") : m.cpu) {
    bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                (c >= '0' && c <= '9') || c == '.' || c == '_';
    if (keep)
      key += c;
    else if (!key.empty() && key.back() != '-')
      key += '-';
  }
  while (!key.empty() && key.back() == '-')
    key.pop_back();
  key += "-" + std::to_string(m.cores) + "cpu";
  if (m.simdBits)
    key += "-" + std::to_string(m.simdBits) + "b";
  if (m.llcBytes)
    key += "-" + std::to_string(m.llcBytes >> 20) + "MiB";
  return key;
}

std::string sptune::adaptedModelPath(TargetKind target) {
  std::string dir = adaptedModelDirectory();
  if (dir.empty())
    return "";
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, std::string(toString(target)) + "-" +
                                    machineModelKey() + ".pt");
  return std::string(path);
}

std::string sptune::adaptedBaseRecordPath(const std::string &model) {
  return model + ".base";
}

std::string sptune::findAdaptedModel(TargetKind target) {
  if (const char *v = std::getenv("SPTUNE_ADAPTED_MODELS");
      v && std::string(v) == "0")
    return "";
  std::string path = adaptedModelPath(target);
  if (path.empty() || !llvm::sys::fs::exists(path))
    return "";
  // Only a model adapted from the model this build ships: after an
  // upgrade, the shipped model is newer than what was adapted.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> base =
      llvm::MemoryBuffer::getFile(adaptedBaseRecordPath(path));
  std::string what;
  llvm::Expected<std::string> shipped = shippedModelBytes(target, what);
  if (!shipped) {
    llvm::consumeError(shipped.takeError());
    return "";
  }
  if (!base ||
      llvm::StringRef((*base)->getBuffer()).trim() != modelIdentity(*shipped))
    return "";
  return path;
}
