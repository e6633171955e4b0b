//===- MatrixSource.cpp - Load a matrix from a file or a spec -------------===//

#include "sptune/Matrix/MatrixSource.h"

#include "sptune/Matrix/Generators.h"
#include "sptune/Matrix/MatrixMarket.h"

#include <filesystem>
#include <system_error>

using namespace sptune;

bool sptune::loadMatrix(const std::string &source, CooMatrix &m,
                        MatrixInfo &info, std::string &error) {
  m = CooMatrix();
  info = MatrixInfo();
  if (isGenSpec(source)) {
    GenSpec spec;
    if (!parseGenSpec(source, spec, error) || !generate(spec, m, error))
      return false;
    info.id = spec.str();
    info.source = info.id;
    return true;
  }
  if (!readMatrixMarket(source, m, error))
    return false;
  namespace fs = std::filesystem;
  fs::path path(source);
  std::string name = path.filename().string();
  const std::string ext = ".mtx";
  if (name.size() > ext.size() &&
      name.compare(name.size() - ext.size(), ext.size(), ext) == 0)
    name.resize(name.size() - ext.size());
  info.id = name;
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  info.source = ec ? source : absolute.lexically_normal().string();
  return true;
}
