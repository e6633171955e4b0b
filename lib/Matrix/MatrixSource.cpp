//===- MatrixSource.cpp - Load a matrix from a file or a spec -------------===//

#include "sptune/Matrix/MatrixSource.h"

#include "sptune/Matrix/Generators.h"
#include "sptune/Matrix/MatrixMarket.h"
#include "sptune/Matrix/TensorGenerators.h"

#include "llvm/Support/FileSystem.h"

#include "TextFile.h"

using namespace sptune;

llvm::Error sptune::loadMatrix(const std::string &source, CooMatrix &m,
                               MatrixInfo &info) {
  m = CooMatrix();
  info = MatrixInfo();
  if (isGenSpec(source)) {
    llvm::Expected<GenSpec> spec = parseGenSpec(source);
    if (!spec)
      return spec.takeError();
    llvm::Expected<CooMatrix> generated = generate(*spec);
    if (!generated)
      return generated.takeError();
    m = std::move(*generated);
    info.id = spec->str();
    info.source = info.id;
    return llvm::Error::success();
  }
  llvm::Expected<CooMatrix> read = readMatrixMarket(source);
  if (!read)
    return read.takeError();
  m = std::move(*read);
  info = detail::fileSourceInfo(source, ".mtx");
  return llvm::Error::success();
}

bool sptune::sameMatrixSource(const std::string &a, const std::string &b) {
  if (a == b)
    return true;
  bool same = false;
  if (!llvm::sys::fs::equivalent(a, b, same) && same)
    return true;
  // Two gen3: specs of one tensor (an MTTKRP's or a batched SpMM's
  // source), in any spelling.
  if (isTensorGenSpec(a) && isTensorGenSpec(b)) {
    std::optional<TensorGenSpec> ta =
        llvm::expectedToOptional(parseTensorGenSpec(a));
    std::optional<TensorGenSpec> tb =
        llvm::expectedToOptional(parseTensorGenSpec(b));
    return ta && tb && *ta == *tb;
  }
  llvm::Expected<GenSpec> ga = parseGenSpec(a);
  llvm::Expected<GenSpec> gb = parseGenSpec(b);
  if (ga && gb)
    return ga->str() == gb->str();
  if (!ga)
    llvm::consumeError(ga.takeError());
  if (!gb)
    llvm::consumeError(gb.takeError());
  return false;
}
