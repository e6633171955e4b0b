//===- TestUtil.h - Helpers shared by the matrix unit tests -----*- C++ -*-===//

#ifndef SPTUNE_UNITTESTS_MATRIX_TESTUTIL_H
#define SPTUNE_UNITTESTS_MATRIX_TESTUTIL_H

#include "sptune/Matrix/SparseMatrix.h"

#include "gtest/gtest.h"

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <unistd.h>
#include <utility>

namespace sptune {
namespace test {

/// A fresh directory under the test temp dir, removed on destruction.
class TempDir {
public:
  TempDir() {
    const ::testing::TestInfo *info =
        ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name =
        std::string("sptune-matrix-") + (info ? info->test_suite_name() : "x") +
        "-" + (info ? info->name() : "x") + "-" + std::to_string(::getpid());
    path = std::filesystem::path(::testing::TempDir()) / name;
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
    std::filesystem::create_directories(path, ec);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  /// Writes `text` to `name` inside the directory; returns its path.
  std::string write(const std::string &name, const std::string &text) const {
    std::string file = (path / name).string();
    std::ofstream out(file, std::ios::binary);
    out << text;
    return file;
  }
  std::string file(const std::string &name) const {
    return (path / name).string();
  }

  std::filesystem::path path;
};

/// A rows x cols CSR matrix with value 1 at each (row, column) of
/// `entries`.
inline CsrMatrix
csrOf(int64_t rows, int64_t cols,
      std::initializer_list<std::pair<int32_t, int32_t>> entries) {
  CooMatrix m;
  m.rows = rows;
  m.cols = cols;
  for (auto [r, c] : entries)
    m.add(r, c, 1.0);
  return CsrMatrix::fromCoo(m);
}

} // namespace test
} // namespace sptune

#endif // SPTUNE_UNITTESTS_MATRIX_TESTUTIL_H
