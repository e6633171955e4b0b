//===- MatrixMarketTest.cpp - Matrix Market reader and writer -------------===//

#include "sptune/Matrix/MatrixMarket.h"
#include "sptune/Matrix/MatrixSource.h"

#include "TestUtil.h"

#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

using namespace sptune;
using sptune::test::TempDir;

namespace {

class MatrixMarketTest : public ::testing::Test {
protected:
  /// Reads `text` from a temporary file `name`; returns success.
  bool read(const std::string &text, const std::string &name = "m.mtx") {
    path = dir.write(name, text);
    error.clear();
    return test::take(readMatrixMarket(path, &header), m, error);
  }
  /// Expects `text` to be rejected with `path:LINE: ...needle...`.
  void expectError(const std::string &text, int line,
                   const std::string &needle) {
    ASSERT_FALSE(read(text)) << "accepted:\n" << text;
    std::string where = path + ":" + std::to_string(line) + ": ";
    EXPECT_EQ(error.rfind(where, 0), 0u)
        << "expected the message to start with '" << where << "': " << error;
    EXPECT_NE(error.find(needle), std::string::npos)
        << "expected '" << needle << "' in: " << error;
    EXPECT_EQ(m.nnz(), 0);
    EXPECT_EQ(m.rows, 0);
  }

  TempDir dir;
  std::string path, error;
  CooMatrix m;
  MatrixMarketHeader header;
};

const std::string kGeneral = "%%MatrixMarket matrix coordinate real general\n";

//===----------------------------------------------------------------------===//
// Accepted files
//===----------------------------------------------------------------------===//

TEST_F(MatrixMarketTest, GeneralWithCommentsAndBlankLines) {
  ASSERT_TRUE(read("%%MatrixMarket matrix coordinate real general\n"
                   "% a comment\n"
                   "\n"
                   "   % an indented comment\n"
                   "3 4 3\n"
                   "3 4 -1.5e2\n"
                   "\n"
                   "% between entries\n"
                   "1 1 2\n"
                   "\t2  3\t0.25   \n"))
      << error;
  EXPECT_EQ(m.rows, 3);
  EXPECT_EQ(m.cols, 4);
  EXPECT_EQ(m.rowIdx, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(m.colIdx, (std::vector<int32_t>{0, 2, 3}));
  EXPECT_EQ(m.values, (std::vector<double>{2.0, 0.25, -150.0}));
  EXPECT_EQ(header.field, MatrixMarketField::Real);
  EXPECT_EQ(header.symmetry, MatrixMarketSymmetry::General);
  EXPECT_EQ(header.storedEntries, 3);
}

TEST_F(MatrixMarketTest, CaseInsensitiveBannerCrlfNoFinalNewline) {
  ASSERT_TRUE(read("%%MatrixMarket MATRIX Coordinate REAL General\r\n"
                   "2 2 2\r\n"
                   "1 1 +1.0\r\n"
                   "2 2 1.0D+01"))
      << error;
  EXPECT_EQ(m.values, (std::vector<double>{1.0, 10.0}));
}

TEST_F(MatrixMarketTest, SymmetricExpandsBothTriangles) {
  ASSERT_TRUE(read("%%MatrixMarket matrix coordinate real symmetric\n"
                   "3 3 3\n"
                   "1 1 4\n"
                   "3 1 2\n"
                   "3 2 5\n"))
      << error;
  EXPECT_EQ(header.symmetry, MatrixMarketSymmetry::Symmetric);
  EXPECT_EQ(header.storedEntries, 3);
  ASSERT_EQ(m.nnz(), 5); // the diagonal entry is not mirrored
  EXPECT_EQ(m.rowIdx, (std::vector<int32_t>{0, 0, 1, 2, 2}));
  EXPECT_EQ(m.colIdx, (std::vector<int32_t>{0, 2, 2, 0, 1}));
  EXPECT_EQ(m.values, (std::vector<double>{4, 2, 5, 2, 5}));
}

TEST_F(MatrixMarketTest, SymmetricUpperTriangleOnlyIsAccepted) {
  ASSERT_TRUE(read("%%MatrixMarket matrix coordinate real symmetric\n"
                   "2 2 1\n"
                   "1 2 7\n"))
      << error;
  EXPECT_EQ(m.nnz(), 2);
}

TEST_F(MatrixMarketTest, SkewSymmetricNegatesTheMirror) {
  ASSERT_TRUE(read("%%MatrixMarket matrix coordinate real skew-symmetric\n"
                   "3 3 2\n"
                   "2 1 3\n"
                   "3 2 -1\n"))
      << error;
  EXPECT_EQ(m.rowIdx, (std::vector<int32_t>{0, 1, 1, 2}));
  EXPECT_EQ(m.colIdx, (std::vector<int32_t>{1, 0, 2, 1}));
  EXPECT_EQ(m.values, (std::vector<double>{-3, 3, 1, -1}));
}

TEST_F(MatrixMarketTest, PatternGetsOnes) {
  ASSERT_TRUE(read("%%MatrixMarket matrix coordinate pattern symmetric\n"
                   "3 3 2\n"
                   "2 1\n"
                   "3 3\n"))
      << error;
  EXPECT_EQ(header.field, MatrixMarketField::Pattern);
  EXPECT_EQ(m.nnz(), 3);
  EXPECT_EQ(m.values, (std::vector<double>{1, 1, 1}));
}

TEST_F(MatrixMarketTest, IntegerField) {
  ASSERT_TRUE(read("%%MatrixMarket matrix coordinate integer general\n"
                   "2 2 2\n"
                   "1 2 -7\n"
                   "2 1 +3\n"))
      << error;
  EXPECT_EQ(header.field, MatrixMarketField::Integer);
  EXPECT_EQ(m.values, (std::vector<double>{-7, 3}));
}

TEST_F(MatrixMarketTest, DuplicatesAreSummed) {
  ASSERT_TRUE(read(kGeneral + "2 2 4\n"
                              "2 2 1.5\n"
                              "1 1 1\n"
                              "2 2 2.5\n"
                              "2 2 -1\n"))
      << error;
  EXPECT_EQ(m.rowIdx, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(m.colIdx, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(m.values, (std::vector<double>{1.0, 3.0}));
  EXPECT_EQ(header.storedEntries, 4);
}

TEST_F(MatrixMarketTest, ExplicitZerosAreKept) {
  ASSERT_TRUE(read(kGeneral + "2 2 3\n"
                              "1 2 0\n"
                              "2 1 0.0\n"
                              "2 2 -0\n"))
      << error;
  EXPECT_EQ(m.nnz(), 3);
  EXPECT_EQ(m.values, (std::vector<double>{0, 0, 0}));
}

TEST_F(MatrixMarketTest, EmptyMatrices) {
  ASSERT_TRUE(read(kGeneral + "0 0 0\n")) << error;
  EXPECT_EQ(m.rows, 0);
  ASSERT_TRUE(read(kGeneral + "5 7 0\n% nothing\n")) << error;
  EXPECT_EQ(m.rows, 5);
  EXPECT_EQ(m.cols, 7);
  EXPECT_EQ(m.nnz(), 0);
}

TEST_F(MatrixMarketTest, ValueUnderflowsToZero) {
  ASSERT_TRUE(read(kGeneral + "1 1 1\n1 1 1e-400\n")) << error;
  EXPECT_EQ(m.values, (std::vector<double>{0.0}));
}

TEST_F(MatrixMarketTest, ParseInMemory) {
  CooMatrix out;
  ASSERT_TRUE(test::take(parseMatrixMarket(kGeneral + "1 1 1\n1 1 3\n", "mem"),
                         out, error))
      << error;
  EXPECT_EQ(out.values, (std::vector<double>{3.0}));
  EXPECT_FALSE(test::take(parseMatrixMarket(kGeneral + "1 1 1\n1 2 3\n", "mem"),
                          out, error));
  EXPECT_EQ(error.rfind("mem:3: ", 0), 0u) << error;
}

//===----------------------------------------------------------------------===//
// Malformed files: each names the file and the line
//===----------------------------------------------------------------------===//

TEST_F(MatrixMarketTest, MissingFile) {
  std::string missing = dir.file("nope.mtx");
  ASSERT_FALSE(test::take(readMatrixMarket(missing), m, error));
  EXPECT_EQ(error.rfind(missing + ": cannot open", 0), 0u) << error;
}

TEST_F(MatrixMarketTest, DirectoryIsAnErrorNotACrash) {
  // fopen succeeds on a directory; its size used to abort the reader.
  std::string folder = dir.file("");
  ASSERT_FALSE(test::take(readMatrixMarket(folder), m, error));
  EXPECT_NE(error.find("not a regular file (a directory)"), std::string::npos)
      << error;
  CooMatrix coo;
  MatrixInfo info;
  ASSERT_FALSE(test::ok(loadMatrix(folder, coo, info), error));
  EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
}

TEST_F(MatrixMarketTest, EmptyFile) { expectError("", 1, "empty file"); }

TEST_F(MatrixMarketTest, MissingBanner) {
  expectError("3 3 1\n1 1 1\n", 1, "missing '%%MatrixMarket' banner");
  expectError("%MatrixMarket matrix coordinate real general\n1 1 0\n", 1,
              "missing '%%MatrixMarket' banner");
  // A banner that is not on the first line does not count.
  expectError("% comment\n" + kGeneral + "1 1 0\n", 1,
              "missing '%%MatrixMarket' banner");
}

TEST_F(MatrixMarketTest, BadBanner) {
  expectError("%%MatrixMarket matrix coordinate real\n1 1 0\n", 1,
              "incomplete banner");
  expectError("%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1,
              "unexpected text after the banner: 'extra'");
  expectError("%%MatrixMarket matrix coordinate double general\n1 1 0\n", 1,
              "unknown field 'double'");
  expectError("%%MatrixMarket matrix coordinate real lower\n1 1 0\n", 1,
              "unknown symmetry 'lower'");
  expectError("%%MatrixMarket matrix sparse real general\n1 1 0\n", 1,
              "unknown format 'sparse'");
}

TEST_F(MatrixMarketTest, UnsupportedBanner) {
  expectError("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1,
              "unsupported format 'array'");
  expectError("%%MatrixMarket matrix coordinate complex general\n1 1 1\n"
              "1 1 1 0\n",
              1, "unsupported field 'complex'");
  expectError("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1,
              "unsupported symmetry 'hermitian'");
  expectError("%%MatrixMarket vector coordinate real general\n1 0\n", 1,
              "unsupported object 'vector'");
}

TEST_F(MatrixMarketTest, MissingSizeLine) {
  expectError(kGeneral + "% only comments\n\n", 3, "missing size line");
}

TEST_F(MatrixMarketTest, BadSizeLine) {
  expectError(kGeneral + "% c\n3 3\n", 3, "bad size line '3 3'");
  expectError(kGeneral + "3 x 1\n", 2, "bad size line");
  expectError(kGeneral + "-3 3 1\n", 2, "bad size line");
  expectError(kGeneral + "3 3 1.5\n1 1 1\n", 2, "bad size line");
  expectError(kGeneral + "3 3 1 9\n1 1 1\n", 2,
              "unexpected text after the size line: '9'");
  expectError(kGeneral + "3000000000 3 0\n", 2, "matrix too large");
  // Past the documented limit (2^27) before anything is allocated.
  expectError(kGeneral + "2147483647 2147483647 0\n", 2,
              "matrix too large: 2147483647 x 2147483647 (at most 134217728");
  expectError(kGeneral + "99999999999999999999 3 0\n", 2, "too large");
  expectError("%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", 2,
              "must be square");
}

TEST_F(MatrixMarketTest, IndexOutOfRange) {
  expectError(kGeneral + "3 4 2\n1 1 1\n0 2 1\n", 4,
              "row index '0' out of range [1, 3]");
  expectError(kGeneral + "3 4 2\n1 1 1\n4 2 1\n", 4,
              "row index '4' out of range [1, 3]");
  expectError(kGeneral + "3 4 2\n1 1 1\n2 5 1\n", 4,
              "column index '5' out of range [1, 4]");
  expectError(kGeneral + "3 4 1\n2 0 1\n", 3, "column index '0' out of range");
  expectError(kGeneral + "3 4 1\n-1 1 1\n", 3, "row index '-1' out of range");
  expectError(kGeneral + "3 4 1\n99999999999999999999 1 1\n", 3,
              "out of range");
}

TEST_F(MatrixMarketTest, TooFewEntries) {
  expectError(kGeneral + "3 3 3\n1 1 1\n2 2 2\n", 4,
              "file ends after 2 of the 3 entries");
  // Without a final newline, and with trailing blank lines.
  expectError(kGeneral + "3 3 2\n1 1 1", 3, "file ends after 1 of the 2");
  expectError(kGeneral + "3 3 2\n1 1 1\n\n\n", 5, "file ends after 1 of the 2");
}

TEST_F(MatrixMarketTest, TooManyEntries) {
  expectError(kGeneral + "3 3 1\n1 1 1\n% comment\n2 2 2\n", 5,
              "more entries than the 1 declared");
}

TEST_F(MatrixMarketTest, NonNumericText) {
  expectError(kGeneral + "3 3 1\nx 1 1\n", 3,
              "expected an integer row index, found 'x'");
  expectError(kGeneral + "3 3 1\n1 1.5 1\n", 3,
              "expected an integer column index, found '1.5'");
  expectError(kGeneral + "3 3 1\n1 1 abc\n", 3,
              "expected a real value, found 'abc'");
  expectError(kGeneral + "3 3 1\n1 1 1.0x\n", 3,
              "expected a real value, found '1.0x'");
  expectError(kGeneral + "3 3 1\n1 1 1e\n", 3, "expected a real value");
  expectError("%%MatrixMarket matrix coordinate integer general\n3 3 1\n"
              "1 1 2.5\n",
              3, "expected an integer value, found '2.5'");
  expectError(kGeneral + "3 3 1\n1 1 nan\n", 3, "non-finite value 'nan'");
  expectError(kGeneral + "3 3 1\n1 1 inf\n", 3, "non-finite value");
  expectError(kGeneral + "3 3 1\n1 1 1e999\n", 3, "value '1e999' out of range");
}

TEST_F(MatrixMarketTest, MissingFields) {
  expectError(kGeneral + "3 3 1\n1 1\n", 3, "missing value");
  expectError(kGeneral + "3 3 1\n1\n", 3, "missing column index");
}

TEST_F(MatrixMarketTest, TrailingGarbage) {
  expectError(kGeneral + "3 3 2\n1 1 1\n2 2 2 junk\n", 4,
              "unexpected text after the entry: 'junk'");
  expectError(kGeneral + "3 3 1\n1 1 1 2\n", 3,
              "unexpected text after the entry: '2'");
  // A value in a pattern file is extra text too.
  expectError("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n"
              "1 1 1.0\n",
              3, "unexpected text after the entry: '1.0'");
}

TEST_F(MatrixMarketTest, SkewSymmetricDiagonal) {
  expectError("%%MatrixMarket matrix coordinate real skew-symmetric\n"
              "3 3 2\n2 1 1\n2 2 5\n",
              4, "diagonal entry (2, 2) in a skew-symmetric matrix");
}

TEST_F(MatrixMarketTest, SymmetricBothTriangles) {
  expectError("%%MatrixMarket matrix coordinate real symmetric\n"
              "3 3 3\n2 1 1\n3 3 1\n1 2 1\n",
              5,
              "both sides of the diagonal (below on line 3, above on line 5)");
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

TEST_F(MatrixMarketTest, WriteReadRoundTrip) {
  CooMatrix src;
  src.rows = 4;
  src.cols = 5;
  src.add(0, 4, 0.1);
  src.add(1, 1, -1e-300);
  src.add(2, 0, 0.0);
  src.add(3, 3, 1.0 / 3.0);
  src.add(3, 4, 12345678901234.5);
  std::string out = dir.file("round.mtx");
  MatrixMarketWriteOptions options;
  options.comments = {" first", " second\nline"};
  ASSERT_TRUE(test::ok(writeMatrixMarket(out, src, options), error)) << error;
  CooMatrix back;
  ASSERT_TRUE(test::take(readMatrixMarket(out, &header), back, error)) << error;
  EXPECT_EQ(back.rows, src.rows);
  EXPECT_EQ(back.cols, src.cols);
  EXPECT_EQ(back.rowIdx, src.rowIdx);
  EXPECT_EQ(back.colIdx, src.colIdx);
  EXPECT_EQ(back.values, src.values); // bit-exact: shortest round-trip text
  EXPECT_EQ(header.field, MatrixMarketField::Real);
}

TEST_F(MatrixMarketTest, WritePatternAndInteger) {
  CooMatrix src;
  src.rows = 2;
  src.cols = 2;
  src.add(0, 1, 3.0);
  src.add(1, 0, -4.0);
  std::string text;
  MatrixMarketWriteOptions options;
  options.field = MatrixMarketField::Pattern;
  ASSERT_TRUE(test::take(formatMatrixMarket(src, options), text, error));
  EXPECT_EQ(text, "%%MatrixMarket matrix coordinate pattern general\n"
                  "2 2 2\n1 2\n2 1\n");
  options.field = MatrixMarketField::Integer;
  ASSERT_TRUE(test::take(formatMatrixMarket(src, options), text, error));
  EXPECT_EQ(text, "%%MatrixMarket matrix coordinate integer general\n"
                  "2 2 2\n1 2 3\n2 1 -4\n");
  src.values[0] = 2.5;
  EXPECT_FALSE(test::take(formatMatrixMarket(src, options), text, error));
  EXPECT_NE(error.find("not an integer"), std::string::npos);
}

TEST_F(MatrixMarketTest, WriteRejectsInvalidMatrix) {
  CooMatrix src;
  src.rows = 2;
  src.cols = 2;
  src.add(2, 0, 1.0);
  std::string out = dir.file("bad.mtx");
  EXPECT_FALSE(test::ok(writeMatrixMarket(out, src), error));
  EXPECT_NE(error.find("outside"), std::string::npos) << error;
  EXPECT_FALSE(test::ok(
      writeMatrixMarket(dir.file("no/such/dir.mtx"), CooMatrix()), error));
  EXPECT_NE(error.find("cannot open for writing"), std::string::npos) << error;
}

} // namespace
