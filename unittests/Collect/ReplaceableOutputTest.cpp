//===- ReplaceableOutputTest.cpp - Atomic writers refuse non-files --------===//
//
// The writers that replace a file through a temporary file and a rename
// (datasets, merged datasets, tuning databases) renamed over a device node
// as root, replacing /dev/full by a plain file and reporting success (issue
// 35). Each must refuse a path that is not a regular file and leave the
// node as it was. Nodes are made in a temporary folder: a FIFO always, a
// character device like /dev/full (mknod c 1 7) where this process may.
//
//===----------------------------------------------------------------------===//

#include "sptune/Collect/Dataset.h"
#include "sptune/Support/Files.h"
#include "sptune/Tune/TuningDatabase.h"

#include "llvm/Support/FileSystem.h"

#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

#include <fstream>
#include <sys/stat.h>
#include <sys/sysmacros.h>

using namespace sptune;

namespace {

std::string freshDir(const std::string &name) {
  std::string dir = testing::TempDir() + "/sptune-replaceable-" + name;
  llvm::sys::fs::remove_directories(dir);
  llvm::sys::fs::create_directories(dir);
  return dir;
}

/// Paths the writers must refuse, with what each is; the device only when
/// mknod is permitted here.
std::vector<std::pair<std::string, mode_t>> nodes(const std::string &dir) {
  std::vector<std::pair<std::string, mode_t>> out;
  std::string fifo = dir + "/fifo";
  if (::mkfifo(fifo.c_str(), 0600) == 0)
    out.push_back({fifo, S_IFIFO});
  std::string full = dir + "/full";
  if (::mknod(full.c_str(), S_IFCHR | 0600, makedev(1, 7)) == 0)
    out.push_back({full, S_IFCHR});
  out.push_back({dir, S_IFDIR});
  return out;
}

void expectUntouched(const std::string &path, mode_t type) {
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0) << path;
  EXPECT_EQ(st.st_mode & S_IFMT, type) << path << " was replaced";
}

TEST(ReplaceableOutput, WhyNotReplaceable) {
  std::string dir = freshDir("why");
  EXPECT_EQ(whyNotReplaceable(dir + "/absent"), "");
  std::string file = dir + "/file";
  { std::ofstream(file) << "x"; }
  EXPECT_EQ(whyNotReplaceable(file), "");
  for (const auto &[path, type] : nodes(dir))
    EXPECT_NE(whyNotReplaceable(path).find(path), std::string::npos) << path;
}

TEST(ReplaceableOutput, DatasetWritersRefuseNodes) {
  std::string dir = freshDir("dataset");
  std::string input = dir + "/in.jsonl";
  { std::ofstream(input) << "{\"matrix\":\"m\"}\n"; }
  for (const auto &[path, type] : nodes(dir)) {
    std::string error;
    EXPECT_TRUE(takeErrorMessage(replaceFileAtomically(path, "{}\n"), error))
        << path;
    EXPECT_NE(error.find(type == S_IFDIR ? "is a directory"
                                         : "not a regular file"),
              std::string::npos)
        << error;
    MergeSummary summary;
    llvm::Error e = mergeDatasets({input}, path, summary);
    EXPECT_TRUE(static_cast<bool>(e)) << path;
    llvm::consumeError(std::move(e));
    expectUntouched(path, type);
  }
}

TEST(ReplaceableOutput, TuningDatabaseWriterRefusesNodes) {
  std::string dir = freshDir("tuningdb");
  for (const auto &[path, type] : nodes(dir)) {
    llvm::Error e = writeTuningDatabase(path, {});
    ASSERT_TRUE(static_cast<bool>(e)) << path;
    EXPECT_NE(llvm::toString(std::move(e)).find(path), std::string::npos);
    expectUntouched(path, type);
  }
}

/// Merging a dataset into itself while a collector appends to it lost the
/// records appended after the read (the collector went on writing to the
/// unlinked file; 4 of 13 kept). The merge now takes the collector's lock
/// or refuses.
TEST(ReplaceableOutput, MergeInPlaceWaitsForNoCollector) {
  std::string dir = freshDir("merge-in-place");
  std::string path = dir + "/a.jsonl";
  { std::ofstream(path) << "{\"key\":\"k1\",\"status\":\"ok\"}\n"; }
  MergeSummary summary;
  {
    DatasetWriter writer;
    std::string error;
    ASSERT_TRUE(test::ok(writer.open(path, false), error)) << error;
    llvm::Error e = mergeDatasets({path}, path, summary);
    ASSERT_TRUE(static_cast<bool>(e));
    EXPECT_NE(llvm::toString(std::move(e)).find("is being written"),
              std::string::npos);
    ASSERT_TRUE(writer.append("{\"key\":\"k2\",\"status\":\"ok\"}"));
  }
  // The collector has finished: the merge goes through and keeps both.
  llvm::Error e = mergeDatasets({path}, path, summary);
  ASSERT_FALSE(static_cast<bool>(e)) << llvm::toString(std::move(e));
  EXPECT_EQ(summary.records, 2u);
}

} // namespace
