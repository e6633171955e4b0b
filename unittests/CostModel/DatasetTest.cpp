//===- DatasetTest.cpp - Reading and splitting datasets -------------------===//

#include "sptune/CostModel/Dataset.h"
#include "sptune/Target/DefaultSchedule.h"

#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <set>

#include <zlib.h>

using namespace sptune;

namespace {
std::string record(const std::string &matrix, const std::string &role,
                   const std::string &schedule, double median,
                   const std::string &status = "ok", int64_t free = 64,
                   const std::string &kernel = "spmm") {
  return "{\"schema\": 1, \"key\": \"k\", \"matrix\": {\"id\": \"" + matrix +
         "\", \"source\": \"gen:uniform:rows=8\", \"rows\": 8, \"cols\": 8, "
         "\"nnz\": 10}, \"kernel\": \"" +
         kernel + "\", \"free\": " + std::to_string(free) +
         ", \"target\": \"cpu\", \"role\": \"" + role + "\", \"schedule\": \"" +
         schedule + "\", \"status\": \"" + status +
         "\", \"reason\": \"\", \"time_s\": {\"median\": " +
         std::to_string(median) +
         ", \"min\": 0, \"max\": 0, \"mad\": 0, \"reps\": 5}, \"compile_s\": "
         "0.1, \"cycles\": null, \"machine\": {}, \"tool_version\": \"0.1.0\", "
         "\"time\": \"now\"}";
}

std::string csrText() {
  return Schedule::csr(TargetKind::CPU, KernelType::SpMM).str();
}
std::string defaultText() {
  return referenceSchedule(TargetKind::CPU, KernelType::SpMM).str();
}
std::string dcsrText() {
  return Schedule::dcsr(TargetKind::CPU, KernelType::SpMM).str();
}
} // namespace

TEST(DatasetTest, ReadsGroupsAndCountsSkippedLines) {
  DatasetReader reader;
  EXPECT_TRUE(reader.addLine(record("A", "sample", csrText(), 2e-3)));
  EXPECT_TRUE(reader.addLine(record("A", "sample", dcsrText(), 4e-3)));
  EXPECT_TRUE(reader.addLine(
      record("A", "baseline:mlir-default", defaultText(), 1e-3)));
  EXPECT_TRUE(reader.addLine(record("A", "baseline:eigen", "", 5e-4)));
  EXPECT_FALSE(
      reader.addLine(record("A", "sample", csrText(), 1.0, "timeout")));
  EXPECT_FALSE(reader.addLine("{\"schema\": 1, \"matrix\": {\"id\": \"A\""));
  EXPECT_FALSE(reader.addLine("not json at all"));
  // Nested 100,000 deep: overflowed LLVM's recursive parser.
  EXPECT_FALSE(reader.addLine(std::string(100000, '[')));
  // A free size no measurement can have.
  EXPECT_FALSE(reader.addLine(
      record("A", "sample", csrText(), 1e-3, "ok", int64_t(1) << 62)));
  EXPECT_FALSE(
      reader.addLine(record("A", "sample", "cpu spmm, levels = [q]", 1e-3)));
  EXPECT_FALSE(reader.addLine(record("A", "sample", csrText(), -1.0)));
  std::string other = record("A", "sample", csrText(), 1e-3);
  other.replace(other.find("\"schema\": 1"), 11, "\"schema\": 2");
  EXPECT_FALSE(reader.addLine(other));
  EXPECT_TRUE(reader.addLine(record("B", "sample", csrText(), 1e-3, "ok", 16)));
  // A library baseline the reader has never heard of is kept by its name.
  EXPECT_TRUE(reader.addLine(record("B", "baseline:mkl", "", 3e-4, "ok", 16)));

  const DatasetCounts &c = reader.counts();
  EXPECT_EQ(c.lines, 14u);
  EXPECT_EQ(c.samples, 4u);
  EXPECT_EQ(c.baselines, 2u);
  EXPECT_EQ(c.notOk, 1u);
  EXPECT_EQ(c.unparsable, 5u);
  EXPECT_EQ(c.badSchedule, 1u);
  EXPECT_EQ(c.unsupportedSchema, 1u);

  std::vector<SampleGroup> groups = reader.groups();
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].key(), "A|spmm|64|cpu");
  EXPECT_EQ(groups[1].key(), "B|spmm|16|cpu");
  EXPECT_EQ(groups[0].samples.size(), 3u); // csr, dcsr, the default
  EXPECT_EQ(groups[0].matrix.source, "gen:uniform:rows=8");
  ASSERT_EQ(groups[0].libraryTimes.count("eigen"), 1u);
  EXPECT_DOUBLE_EQ(groups[0].libraryTimes.at("eigen"), 5e-4);
  EXPECT_EQ(groups[0].libraryTimes.size(), 1u);
  ASSERT_EQ(groups[1].libraryTimes.count("mkl"), 1u);
  EXPECT_DOUBLE_EQ(groups[1].libraryTimes.at("mkl"), 3e-4);
  ASSERT_TRUE(groups[0].defaultTime());
  EXPECT_DOUBLE_EQ(*groups[0].defaultTime(), 1e-3);
  EXPECT_DOUBLE_EQ(groups[0].referenceTime(), 1e-3);
  // No default measured: the reference is the geometric mean.
  EXPECT_FALSE(groups[1].defaultTime());
  EXPECT_DOUBLE_EQ(groups[1].referenceTime(), 1e-3);
}

TEST(DatasetTest, KernelsTheModelHasNoFeatureForAreLeftOut) {
  // sptune-collect measures the Hadamard product (and kernel types added at
  // run time); a model's kernel one-hot names SpMM, SDDMM, SpMV and SpGEMM
  // at most, so their records are left out of training, counted and said.
  DatasetReader reader;
  std::string hadamard =
      Schedule::csr(TargetKind::CPU, KernelType::Hadamard).str();
  EXPECT_FALSE(reader.addLine(
      record("A", "sample", hadamard, 1e-3, "ok", 1, "hadamard")));
  EXPECT_TRUE(reader.addLine(record("A", "sample", csrText(), 2e-3)));
  EXPECT_EQ(reader.counts().unmodeledKernel, 1u);
  EXPECT_EQ(reader.counts().unparsable, 0u);
  EXPECT_EQ(reader.counts().samples, 1u);
  EXPECT_NE(reader.counts().summary().find(
                "left out 1 record(s) of kernels the model has no feature for"),
            std::string::npos)
      << reader.counts().summary();
  ASSERT_EQ(reader.groups().size(), 1u);
}

TEST(DatasetTest, ElementWidthsAreGroupsApartAndCannotTrainTogether) {
  // The record's "bits" spliced in after "free" (records without it are
  // f32, as the collector measured before it had --bits).
  auto withBits = [](std::string r, const std::string &bits) {
    size_t at = r.find(", \"target\"");
    return r.insert(at, ", \"bits\": " + bits);
  };
  DatasetReader reader;
  EXPECT_TRUE(reader.addLine(record("A", "sample", csrText(), 2e-3)));
  EXPECT_TRUE(
      reader.addLine(withBits(record("A", "sample", csrText(), 3e-3), "32")));
  EXPECT_TRUE(
      reader.addLine(withBits(record("A", "sample", csrText(), 5e-3), "64")));
  EXPECT_FALSE(
      reader.addLine(withBits(record("A", "sample", csrText(), 1e-3), "16")));
  EXPECT_EQ(reader.counts().unparsable, 1u);
  std::vector<SampleGroup> groups = reader.groups();
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].key(), "A|spmm|64|cpu");
  EXPECT_EQ(groups[0].elementBits, 32);
  // The f32 group merged the two 32-bit records (geometric mean), and the
  // f64 one kept its own time.
  EXPECT_NEAR(groups[0].samples[0].time, std::sqrt(2e-3 * 3e-3), 1e-9);
  EXPECT_EQ(groups[1].key(), "A|spmm|64|cpu|64-bit");
  EXPECT_EQ(groups[1].elementBits, 64);
  EXPECT_NEAR(groups[1].samples[0].time, 5e-3, 1e-12);
  std::string why = whyMixedElementWidths(groups);
  EXPECT_NE(why.find("(32-bit: 1 problem, 64-bit: 1 problem)"),
            std::string::npos)
      << why;
  EXPECT_EQ(whyMixedElementWidths({groups[1]}), "");
  EXPECT_EQ(whyMixedElementWidths({}), "");
}

TEST(DatasetTest, MergesRepeatedMeasurementsByGeometricMean) {
  DatasetReader reader;
  reader.addLine(record("A", "sample", csrText(), 1e-3));
  reader.addLine(record("A", "sample", csrText(), 4e-3));
  std::vector<SampleGroup> groups = reader.groups();
  ASSERT_EQ(groups.size(), 1u);
  ASSERT_EQ(groups[0].samples.size(), 1u);
  EXPECT_NEAR(groups[0].samples[0].time, 2e-3, 1e-12);
  EXPECT_EQ(reader.counts().duplicates, 1u);
}

TEST(DatasetTest, DefaultFoundAmongSamples) {
  DatasetReader reader;
  reader.addLine(record("A", "sample", defaultText(), 3e-3));
  reader.addLine(record("A", "sample", csrText(), 1e-3));
  std::vector<SampleGroup> groups = reader.groups();
  ASSERT_EQ(groups.size(), 1u);
  ASSERT_TRUE(groups[0].defaultTime());
  EXPECT_DOUBLE_EQ(*groups[0].defaultTime(), 3e-3);
}

TEST(DatasetTest, ReadsFilesAndReportsMissingOnes) {
  std::string path = testing::TempDir() + "/sptune-dataset-test.jsonl";
  {
    std::ofstream out(path);
    out << record("A", "sample", csrText(), 1e-3) << "\n\n"
        << "{\"cut by a kill"
        << "\n"
        << record("A", "sample", dcsrText(), 2e-3) << "\n";
  }
  DatasetReader reader;
  std::string error;
  ASSERT_TRUE(test::ok(reader.addFile(path), error)) << error;
  EXPECT_EQ(reader.counts().samples, 2u);
  EXPECT_EQ(reader.counts().unparsable, 1u);
  EXPECT_FALSE(test::ok(reader.addFile(path + ".missing"), error));
  EXPECT_NE(error.find(".missing"), std::string::npos) << error;
  std::remove(path.c_str());
}

TEST(DatasetTest, ReadsGzippedFilesAndRefusesBrokenOnes) {
  std::string text = record("A", "sample", csrText(), 1e-3) + "\n" +
                     record("A", "sample", dcsrText(), 2e-3) + "\n";
  std::string path = testing::TempDir() + "/sptune-dataset-test.jsonl.gz";
  gzFile out = gzopen(path.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(out), Z_OK);
  DatasetReader reader;
  std::string error;
  ASSERT_TRUE(test::ok(reader.addFile(path), error)) << error;
  EXPECT_EQ(reader.counts().samples, 2u);
  EXPECT_EQ(reader.counts().unparsable, 0u);

  // Zeros after the last member (as some writers pad) are no member.
  { std::ofstream(path, std::ios::app).write("\0\0\0\0", 4); }
  DatasetReader padded;
  ASSERT_TRUE(test::ok(padded.addFile(path), error)) << error;
  EXPECT_EQ(padded.counts().samples, 2u);

  // gzip's header followed by bytes that are not deflate data.
  std::string broken = testing::TempDir() + "/sptune-dataset-broken.jsonl.gz";
  {
    static const char bytes[] =
        "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
        "\xff\xff\xff\xff garbage that does not inflate";
    std::ofstream(broken, std::ios::binary).write(bytes, sizeof bytes - 1);
  }
  DatasetReader refused;
  EXPECT_FALSE(test::ok(refused.addFile(broken), error));
  EXPECT_NE(error.find("not a valid gzip file"), std::string::npos) << error;
  EXPECT_EQ(error.find("cut short"), std::string::npos) << error;
  // And one cut short.
  std::string cut = testing::TempDir() + "/sptune-dataset-cut.jsonl.gz";
  {
    std::ifstream in(path, std::ios::binary);
    std::string whole((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    std::ofstream(cut, std::ios::binary).write(whole.data(), 20);
  }
  DatasetReader shortened;
  EXPECT_FALSE(test::ok(shortened.addFile(cut), error));
  EXPECT_NE(error.find("it is cut short"), std::string::npos) << error;
  std::remove(path.c_str());
  std::remove(broken.c_str());
  std::remove(cut.c_str());
}

TEST(DatasetTest, SplitsByMatrixNeverBySample) {
  DatasetReader reader;
  for (int m = 0; m < 20; ++m)
    for (int64_t free : {16, 64}) {
      std::string id = "M" + std::to_string(m);
      reader.addLine(record(id, "sample", csrText(), 1e-3, "ok", free));
      reader.addLine(record(id, "sample", dcsrText(), 2e-3, "ok", free));
    }
  std::vector<SampleGroup> groups = reader.groups();
  ASSERT_EQ(groups.size(), 40u);
  DatasetSplit split = splitByMatrix(groups, 0.25, 7);
  EXPECT_EQ(split.testMatrices.size(), 5u);
  EXPECT_EQ(split.trainMatrices.size(), 15u);
  EXPECT_EQ(split.train.size() + split.test.size(), groups.size());
  std::set<std::string> trainIds, testIds;
  for (size_t i : split.train)
    trainIds.insert(groups[i].matrix.id);
  for (size_t i : split.test)
    testIds.insert(groups[i].matrix.id);
  for (const std::string &id : testIds)
    EXPECT_EQ(trainIds.count(id), 0u) << id;
  EXPECT_EQ(split.test.size(), 10u); // both free sizes of each held-out matrix

  DatasetSplit same = splitByMatrix(groups, 0.25, 7);
  EXPECT_EQ(same.testMatrices, split.testMatrices);
  bool differs = false;
  for (uint64_t seed = 8; seed < 12; ++seed)
    differs |=
        splitByMatrix(groups, 0.25, seed).testMatrices != split.testMatrices;
  EXPECT_TRUE(differs);

  EXPECT_TRUE(splitByMatrix(groups, 0.0, 1).test.empty());
  EXPECT_EQ(splitByMatrix(groups, 0.99, 1).trainMatrices.size(), 1u);
  EXPECT_EQ(splitByMatrix(groups, 0.001, 1).testMatrices.size(), 1u);
}

TEST(DatasetTest, SpadeIsComparedWithItsDefaultSchedule) {
  auto spade = [](const std::string &role, const Schedule &s, double t) {
    std::string r = record("A", role, s.str(), t);
    r.replace(r.find("\"target\": \"cpu\""), 15, "\"target\": \"spade\"");
    return r;
  };
  Schedule def = defaultSchedule(TargetKind::SPADE, KernelType::SpMM, nullptr, 64);
  Schedule other = def;
  other.splitRow = 32;
  other = canonicalize(other);
  {
    // The heuristic baseline's time when the default is not among the
    // samples.
    DatasetReader reader;
    ASSERT_TRUE(reader.addLine(spade("baseline:heuristic", other, 2e-3)));
    ASSERT_TRUE(reader.addLine(spade("sample", other, 2e-3)));
    std::vector<SampleGroup> g = reader.groups();
    ASSERT_EQ(g.size(), 1u);
    ASSERT_TRUE(g[0].defaultTime());
    EXPECT_DOUBLE_EQ(*g[0].defaultTime(), 2e-3);
  }
  {
    // The SPADE default schedule's own time otherwise, whatever the
    // heuristic's schedule is.
    DatasetReader reader;
    ASSERT_TRUE(reader.addLine(spade("baseline:heuristic", other, 2e-3)));
    ASSERT_TRUE(reader.addLine(spade("sample", def, 5e-3)));
    std::vector<SampleGroup> g = reader.groups();
    ASSERT_EQ(g.size(), 1u);
    ASSERT_TRUE(g[0].defaultTime());
    EXPECT_DOUBLE_EQ(*g[0].defaultTime(), 5e-3);
  }
}

TEST(DatasetTest, MachineFilterOfTheReaderIsTheFilesFilter) {
  // Records of two machines, a truncated line and a blank one. The reader's
  // machine filter counts what filterDatasetByMachine keeps and drops, and
  // the reader sees what it would have read from the filtered file.
  auto on = [](std::string line, const char *host) {
    std::string from = "\"machine\": {}";
    line.replace(line.find(from), from.size(),
                 std::string("\"machine\": {\"host\": \"") + host +
                     "\", \"cpu\": \"Some CPU\"}");
    return line;
  };
  std::string path = testing::TempDir() + "/sptune-dataset-machines.jsonl";
  std::string filtered = path + ".node7";
  {
    std::ofstream out(path);
    out << on(record("A", "sample", csrText(), 1e-3), "node7") << "\n"
        << on(record("A", "sample", dcsrText(), 2e-3), "node8") << "\n\n"
        << "{\"cut by a kill\n"
        << on(record("B", "sample", csrText(), 1e-3), "node7") << "\n"
        << on(record("B", "sample", dcsrText(), 3e-3), "node7") << "\n";
  }
  std::string error;
  std::map<std::string, DatasetMachine> machines;
  ASSERT_TRUE(test::ok(datasetMachines({path}, machines), error)) << error;
  EXPECT_EQ(machines.size(), 2u);
  EXPECT_EQ(machines["Some CPU @ node7"].records, 3u);
  EXPECT_EQ(machines["Some CPU @ node8"].records, 1u);
  // Records written before the machine descriptor carry none.
  EXPECT_FALSE(machines["Some CPU @ node7"].descriptor.has_value());

  size_t kept = 0, dropped = 0;
  ASSERT_TRUE(test::ok(
      filterDatasetByMachine(path, filtered, "node7", kept, dropped), error))
      << error;
  EXPECT_EQ(kept, 3u);
  EXPECT_EQ(dropped, 2u);

  DatasetReader fromFilteredFile;
  ASSERT_TRUE(test::ok(fromFilteredFile.addFile(filtered), error)) << error;
  DatasetReader withFilter;
  withFilter.setMachineFilter("node7");
  ASSERT_TRUE(test::ok(withFilter.addFile(path), error)) << error;
  EXPECT_EQ(withFilter.counts().lines, kept);
  EXPECT_EQ(withFilter.counts().otherMachine, dropped);
  EXPECT_EQ(withFilter.counts().lines, fromFilteredFile.counts().lines);
  EXPECT_EQ(withFilter.counts().samples, fromFilteredFile.counts().samples);
  EXPECT_EQ(withFilter.counts().unparsable, 0u);
  EXPECT_EQ(withFilter.groups().size(), fromFilteredFile.groups().size());
  EXPECT_NE(withFilter.counts().summary().find(
                "left out 2 record(s) of other machines"),
            std::string::npos)
      << withFilter.counts().summary();
  std::remove(path.c_str());
  std::remove(filtered.c_str());
}
