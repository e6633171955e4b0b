//===- TensorSource.cpp - Load a 3-D tensor from a file or a spec ---------===//

#include "sptune/Matrix/TensorSource.h"

#include "sptune/Matrix/Frostt.h"
#include "sptune/Matrix/TensorGenerators.h"

#include "TextFile.h"

using namespace sptune;

bool sptune::isTensorSource(std::string_view source) {
  const std::string_view ext = ".tns";
  return isTensorGenSpec(source) ||
         (source.size() > ext.size() &&
          source.substr(source.size() - ext.size()) == ext);
}

llvm::Error sptune::loadTensor(const std::string &source, CooTensor &t,
                               MatrixInfo &info) {
  t = CooTensor();
  if (isTensorGenSpec(source)) {
    llvm::Expected<TensorGenSpec> spec = parseTensorGenSpec(source);
    if (!spec)
      return spec.takeError();
    llvm::Expected<CooTensor> generated = generateTensor(*spec);
    if (!generated)
      return generated.takeError();
    t = std::move(*generated);
    info.id = spec->str();
    info.source = info.id;
    return llvm::Error::success();
  }
  llvm::Expected<CooTensor> read = readFrostt(source);
  if (!read)
    return read.takeError();
  t = std::move(*read);
  // The id keeps `.tns`: a tensor and a matrix of one stem in one
  // collection (foo.tns, foo.mtx) must not share an id, which keys their
  // features in training.
  info = detail::fileSourceInfo(source, "");
  return llvm::Error::success();
}
