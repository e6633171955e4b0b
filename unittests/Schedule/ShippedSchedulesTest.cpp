//===- ShippedSchedulesTest.cpp - Every shipped schedule round-trips ------===//
//
// The printed form of a schedule keys the shipped datasets, tuning
// databases and the model's training records, so a change to how schedules
// are stored (such as moving each target's knobs into a block the target
// prints and parses) must print every schedule ever recorded exactly as it
// was recorded. This test reads every schedule of cost-model/data and
// checks that it parses, prints back to the same text, and that its
// canonical form round-trips too.
//
//===----------------------------------------------------------------------===//

#include "sptune/Schedule/Schedule.h"
#include "sptune/Support/Error.h"

#include "llvm/Support/JSON.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <dirent.h>
#include <set>
#include <string>
#include <vector>

using namespace sptune;

namespace {

/// The lines of a gzip-compressed file, through `gzip -dc`.
std::vector<std::string> gunzipLines(const std::string &path) {
  std::vector<std::string> lines;
  std::string command = "gzip -dc '" + path + "'";
  FILE *pipe = ::popen(command.c_str(), "r");
  if (!pipe)
    return lines;
  std::string line;
  char buffer[1 << 16];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) {
    for (size_t i = 0; i < n; ++i) {
      if (buffer[i] == '\n') {
        lines.push_back(std::move(line));
        line.clear();
      } else {
        line += buffer[i];
      }
    }
  }
  if (!line.empty())
    lines.push_back(line);
  EXPECT_EQ(::pclose(pipe), 0) << command;
  return lines;
}

std::vector<std::string> shippedDatasets() {
  std::string dir = std::string(SPTUNE_SOURCE_DIR) + "/cost-model/data";
  std::vector<std::string> out;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name.size() > 9 && name.substr(name.size() - 9) == ".jsonl.gz")
        out.push_back(dir + "/" + name);
    }
    ::closedir(d);
  }
  return out;
}

TEST(ShippedSchedules, EveryRecordedScheduleRoundTrips) {
  std::vector<std::string> files = shippedDatasets();
  ASSERT_FALSE(files.empty()) << "no datasets under " << SPTUNE_SOURCE_DIR;
  std::set<std::string> targets;
  for (const std::string &file : files) {
    size_t schedules = 0;
    std::set<std::string> seen;
    for (const std::string &line : gunzipLines(file)) {
      llvm::Expected<llvm::json::Value> record = llvm::json::parse(line);
      ASSERT_TRUE(static_cast<bool>(record)) << file;
      const llvm::json::Object *o = record->getAsObject();
      ASSERT_NE(o, nullptr) << file;
      std::optional<llvm::StringRef> text = o->getString("schedule");
      if (!text || text->empty() || !seen.insert(text->str()).second)
        continue;
      ++schedules;
      std::string error;
      std::optional<Schedule> s = takeValue(parseSchedule(*text), error);
      ASSERT_TRUE(s.has_value()) << file << ": " << text->str() << ": "
                                 << error;
      targets.insert(toString(s->target));
      EXPECT_EQ(s->str(), text->str()) << file;
      Schedule canon = canonicalize(*s);
      std::optional<Schedule> back =
          takeValue(parseSchedule(canon.str()), error);
      ASSERT_TRUE(back.has_value()) << canon.str() << ": " << error;
      EXPECT_EQ(*back, canon) << canon.str();
      EXPECT_EQ(back->hash(), canon.hash());
    }
    EXPECT_GT(schedules, 0u) << file;
  }
  // The shipped data cover the CPU and SPADE targets.
  EXPECT_TRUE(targets.count("cpu"));
  EXPECT_TRUE(targets.count("spade"));
}

} // namespace
