//===- FrosttTest.cpp - FROSTT tensor files -------------------------------===//

#include "sptune/Matrix/Frostt.h"
#include "sptune/Matrix/TensorSource.h"

#include "TestUtil.h"

#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

#include <cstdlib>

using namespace sptune;
using sptune::test::TempDir;

namespace {

/// Expects `text` to be rejected with `t.tns:LINE: ...needle...`.
void expectError(const std::string &text, int line, const std::string &needle) {
  llvm::Expected<CooTensor> t = parseFrostt(text, "t.tns");
  ASSERT_FALSE(t) << "accepted:\n" << text;
  std::string message = llvm::toString(t.takeError());
  std::string where = "t.tns:" + std::to_string(line) + ": ";
  EXPECT_EQ(message.rfind(where, 0), 0u)
      << "expected the message to start with '" << where << "': " << message;
  EXPECT_NE(message.find(needle), std::string::npos)
      << "expected '" << needle << "' in: " << message;
}

TEST(FrosttTest, ReadsExtendedFilesIntoCanonicalTensors) {
  CooTensor t = test::value(parseFrostt("# a comment\n3 4\n2 3 4\n"
                                        "2 1 1 1.5\n1 3 4 -2\n\n"
                                        "1 1 2 0.25\n2 1 1 1e1\n",
                                        "t.tns"));
  EXPECT_EQ(t.dims, (std::array<int64_t, 3>{2, 3, 4}));
  ASSERT_EQ(t.nnz(), 3); // the repeated (2, 1, 1) summed
  EXPECT_TRUE(t.isCanonical());
  EXPECT_EQ(t.coords[0], (std::vector<int32_t>{0, 0, 1}));
  EXPECT_EQ(t.coords[1], (std::vector<int32_t>{0, 2, 0}));
  EXPECT_EQ(t.coords[2], (std::vector<int32_t>{1, 3, 0}));
  EXPECT_EQ(t.values, (std::vector<double>{0.25, -2, 11.5}));
}

TEST(FrosttTest, PlainFilesTakeTheirSizesFromTheCoordinates) {
  CooTensor t = test::value(parseFrostt("3 1 7 1\n1 5 2 2\n", "t.tns"));
  EXPECT_EQ(t.dims, (std::array<int64_t, 3>{3, 5, 7}));
  EXPECT_EQ(t.nnz(), 2);
}

TEST(FrosttTest, RejectsMalformedFilesWithTheirLine) {
  expectError("2 1\n3 3\n1 1 1.0\n", 1, "rank 2");
  expectError("3 1\n3 3\n1 1 1 1.0\n", 2, "three sizes");
  expectError("3 1\n3 -1 3\n1 1 1 1.0\n", 2, "size '-1' of mode 1");
  expectError("3 1\n3 0 3\n1 1 1 1.0\n", 3,
              "coordinate 1 of mode 1 is outside [1, 0]");
  expectError("3 2\n2 2 2\n1 1 1 1.0\n3 1 1 2.0\n", 4,
              "coordinate 3 of mode 0 is outside [1, 2]");
  expectError("3 2\n2 2 2\n1 1 1 1.0\n0 1 1 2.0\n", 4, "outside [1, 2]");
  expectError("3 3\n2 2 2\n1 1 1 1.0\n# end\n", 1,
              "announces 3 entries, the file has 1");
  expectError("3 1\n2 2 2\n1 1 1 1.0\n2 2 2 1.0\n", 4,
              "more entries than the header's 1");
  expectError("3 1\n2 2 2\n1 x 1 1.0\n", 3, "coordinate 'x' is not an integer");
  expectError("3 1\n2 2 2\n1 1 1 nan\n", 3, "not a finite double");
  expectError("3 1\n2 2 2\n1 1 1 1e400\n", 3, "not a finite double");
  expectError("3 1\n2 2 2\n1 1 1 1.0x\n", 3, "value '1.0x' is not a number");
  expectError("3 1\n2 2 2\n99999999999999999999 1 1 1\n", 3,
              "not an integer of at most 64 bits");
  expectError("3 1\n2 2 2\n1 1 1\n", 3, "(4 fields), found 3");
  expectError("1 2 3\n", 1, "a header 'RANK NNZ' or an entry");
  expectError("3 -1\n2 2 2\n", 1, "negative entry count");
  expectError("3 1\n", 1, "sizes line is missing");
}

TEST(FrosttTest, ValuesBelowTheSmallestDoubleRoundAsStrtodDoes) {
  CooTensor t = test::value(
      parseFrostt("3 2\n1 1 2\n1 1 1 1e-400\n1 1 2 -4e-320\n", "t.tns"));
  ASSERT_EQ(t.nnz(), 2);
  EXPECT_EQ(t.values[0], 0.0);
  EXPECT_EQ(t.values[1], std::strtod("-4e-320", nullptr));
}

TEST(FrosttTest, SizesOfZeroHoldNoEntriesAndWriteBack) {
  CooTensor t = test::value(parseFrostt("3 0\n0 4 5\n", "t.tns"));
  EXPECT_EQ(t.dims, (std::array<int64_t, 3>{0, 4, 5}));
  std::string text = test::value(formatFrostt(t));
  EXPECT_EQ(text, "3 0\n0 4 5\n");
}

TEST(FrosttTest, RejectsEmptyAndMissingFiles) {
  llvm::Expected<CooTensor> empty = parseFrostt("# nothing\n\n", "e.tns");
  ASSERT_FALSE(empty);
  EXPECT_NE(llvm::toString(empty.takeError()).find("e.tns: no entries"),
            std::string::npos);
  llvm::Expected<CooTensor> missing = readFrostt("/nonexistent/x.tns");
  ASSERT_FALSE(missing);
  EXPECT_NE(llvm::toString(missing.takeError()).find("cannot open"),
            std::string::npos);
}

TEST(FrosttTest, WritesWhatItReadsBack) {
  CooTensor t;
  t.dims = {4, 1, 3};
  t.add(0, 0, 2, 0.1);
  t.add(3, 0, 0, -1e-300);
  std::string text = test::value(formatFrostt(t));
  EXPECT_EQ(text.rfind("3 2\n4 1 3\n1 1 3 0.1\n", 0), 0u) << text;
  CooTensor back = test::value(parseFrostt(text, "t.tns"));
  EXPECT_EQ(back.dims, t.dims);
  EXPECT_EQ(back.coords, t.coords);
  EXPECT_EQ(back.values, t.values);

  TempDir dir;
  std::string path = dir.file("w.tns");
  ASSERT_TRUE(test::succeeded(writeFrostt(path, t)));
  CooTensor loaded;
  MatrixInfo info;
  ASSERT_TRUE(test::succeeded(loadTensor(path, loaded, info)));
  // The id keeps `.tns`: never the id of a matrix `w.mtx` beside it.
  EXPECT_EQ(info.id, "w.tns");
  EXPECT_EQ(loaded.values, t.values);

  t.coords[1][0] = 1; // outside the 4 x 1 x 3 tensor
  llvm::Expected<std::string> bad = formatFrostt(t);
  ASSERT_FALSE(bad);
  EXPECT_NE(llvm::toString(bad.takeError()).find("lies outside"),
            std::string::npos);
}

TEST(FrosttTest, CanonicalizeSumsRepeatsInTheirOrder) {
  CooTensor t;
  t.dims = {2, 2, 2};
  t.add(1, 1, 1, 1e16);
  t.add(0, 1, 0, 2);
  t.add(1, 1, 1, 1);
  t.add(1, 1, 1, -1e16);
  EXPECT_FALSE(t.isCanonical());
  t.canonicalize();
  ASSERT_EQ(t.nnz(), 2);
  // (1e16 + 1) - 1e16 in the entries' order is 0 in doubles.
  EXPECT_EQ(t.values, (std::vector<double>{2, 0}));
  EXPECT_TRUE(test::succeeded(t.verify()));
}

} // namespace
