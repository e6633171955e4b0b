//===- TuningDatabaseTest.cpp - Recorded tuning decisions -----------------===//

#include "sptune/Tune/TuningDatabase.h"
#include "sptune/Tune/TuningDatabaseMaintenance.h"
#include "sptune/Matrix/Generators.h"
#include "sptune/Target/DefaultSchedule.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>
#include <fstream>
#include <string>

using namespace sptune;

namespace {

CsrMatrix smallMatrix(uint64_t seed) {
  llvm::Expected<GenSpec> spec = parseGenSpec(
      "gen:uniform:rows=64,cols=48,nnz=300,seed=" + std::to_string(seed));
  EXPECT_TRUE(test::succeeded(spec));
  llvm::Expected<CooMatrix> coo = generate(*spec);
  EXPECT_TRUE(test::succeeded(coo));
  return CsrMatrix::fromCoo(std::move(*coo));
}

TuningRecord record(const std::string &fingerprint, unsigned candidates,
                    unsigned measured, std::optional<double> seconds,
                    const std::string &created) {
  TuningRecord r;
  r.key = {fingerprint, KernelType::SpMM, TargetKind::CPU, 32, "heuristic"};
  r.effort = {candidates, measured};
  r.rows = 64;
  r.cols = 48;
  r.nnz = 300;
  r.stamp = {"gen:uniform:rows=64,cols=48,nnz=300,seed=1", 0, 0};
  r.chosen = defaultSchedule(TargetKind::CPU, KernelType::SpMM);
  r.chosenSeconds = seconds;
  if (seconds)
    r.measured.push_back({r.chosen, *seconds});
  r.createdAt = created;
  r.version = "test";
  return r;
}

std::string tempPath(const std::string &name) {
  std::string path = testing::TempDir() + "/sptune-tuningdb-" + name;
  llvm::sys::fs::remove(path);
  return path;
}

TEST(TuningDatabaseTest, FingerprintIsStructural) {
  CsrMatrix a = smallMatrix(1), b = smallMatrix(1), c = smallMatrix(2);
  EXPECT_EQ(matrixFingerprint(a), matrixFingerprint(b));
  EXPECT_EQ(matrixFingerprint(a).size(), 16u);
  EXPECT_NE(matrixFingerprint(a), matrixFingerprint(c));
  // Values are not part of it; the orientation is.
  for (double &v : b.values)
    v *= 3;
  EXPECT_EQ(matrixFingerprint(a), matrixFingerprint(b));
  EXPECT_NE(matrixFingerprint(a), matrixFingerprint(a.transposed()));
}

TEST(TuningDatabaseTest, AnswersNeedTheKeyAndAtLeastTheEffort) {
  TuningRecord r = record("abc", 1000, 2, 1e-3, "2026-01-01T00:00:00Z");
  EXPECT_TRUE(r.answers(r.key, {1000, 2}));
  EXPECT_TRUE(r.answers(r.key, {500, 0}));
  EXPECT_FALSE(r.answers(r.key, {1001, 0}));
  EXPECT_FALSE(r.answers(r.key, {1000, 3}));
  TuningKey other = r.key;
  other.free = 64;
  EXPECT_FALSE(r.answers(other, {1, 0}));
  other = r.key;
  other.model = "model:0123456789abcdef";
  EXPECT_FALSE(r.answers(other, {1, 0}));
  other = r.key;
  other.kernel = KernelType::SDDMM;
  EXPECT_FALSE(r.answers(other, {1, 0}));
  // By stamp, the fingerprint of the query is not known.
  other = r.key;
  other.fingerprint.clear();
  EXPECT_TRUE(r.answersByStamp(r.stamp, other, {1000, 0}));
  MatrixStamp touched = r.stamp;
  touched.mtimeNs = 1;
  EXPECT_FALSE(r.answersByStamp(touched, other, {1000, 0}));
}

TEST(TuningDatabaseTest, MeasuredFasterNewerIsBetter) {
  TuningRecord unmeasured = record("f", 1000, 0, std::nullopt, "2026-02");
  TuningRecord slow = record("f", 1000, 1, 2e-3, "2026-01");
  TuningRecord fast = record("f", 1000, 1, 1e-3, "2026-01");
  TuningRecord newer = record("f", 1000, 0, std::nullopt, "2026-03");
  EXPECT_TRUE(slow.betterThan(unmeasured));
  EXPECT_TRUE(fast.betterThan(slow));
  EXPECT_FALSE(slow.betterThan(fast));
  EXPECT_TRUE(newer.betterThan(unmeasured));
}

TEST(TuningDatabaseTest, RoundTripsAndFindsTheBest) {
  std::string path = tempPath("roundtrip.jsonl");
  llvm::Expected<TuningDatabase> db = TuningDatabase::open(path);
  ASSERT_TRUE(static_cast<bool>(db)) << llvm::toString(db.takeError());
  EXPECT_TRUE(db->records().empty());
  TuningRecord slow = record("f", 1000, 1, 2e-3, "2026-01-01T00:00:00Z");
  TuningRecord fast = record("f", 1000, 1, 1e-3, "2026-01-01T00:00:00Z");
  TuningRecord other = record("g", 1000, 0, std::nullopt, "2026-01-01T00:00:00Z");
  for (const TuningRecord &r : {slow, fast, other})
    ASSERT_FALSE(static_cast<bool>(db->append(r)));

  llvm::Expected<TuningDatabase> again = TuningDatabase::open(path);
  ASSERT_TRUE(static_cast<bool>(again)) << llvm::toString(again.takeError());
  ASSERT_EQ(again->records().size(), 3u);
  EXPECT_TRUE(again->skipped().empty());
  const TuningRecord &back = again->records()[1];
  EXPECT_EQ(back.key, fast.key);
  EXPECT_EQ(back.chosen, fast.chosen);
  ASSERT_TRUE(back.chosenSeconds);
  EXPECT_DOUBLE_EQ(*back.chosenSeconds, 1e-3);
  ASSERT_EQ(back.measured.size(), 1u);
  EXPECT_EQ(back.stamp, fast.stamp);

  const TuningRecord *best = again->find(fast.key, {1000, 0});
  ASSERT_TRUE(best);
  EXPECT_DOUBLE_EQ(*best->chosenSeconds, 1e-3);
  EXPECT_FALSE(again->find(fast.key, {2000, 0}));
  TuningKey noFingerprint = fast.key;
  noFingerprint.fingerprint.clear();
  const TuningRecord *byStamp =
      again->findByStamp(fast.stamp, noFingerprint, {1000, 1});
  ASSERT_TRUE(byStamp);
  EXPECT_EQ(byStamp->key.fingerprint, "f"); // the faster of f's records
}

TEST(TuningDatabaseTest, MalformedLinesAreSkippedAndCutLinesCompleted) {
  std::string path = tempPath("malformed.jsonl");
  llvm::Expected<TuningDatabase> db = TuningDatabase::open(path);
  ASSERT_TRUE(static_cast<bool>(db));
  ASSERT_FALSE(static_cast<bool>(
      db->append(record("f", 10, 0, std::nullopt, "2026"))));
  {
    std::ofstream out(path, std::ios::app);
    out << "garbage\n";
    out << std::string(100000, '[') << "\n"; // overflowed LLVM's parser
    out << "{\"v\":1,\"kernel\":\"spmm\"}\n"; // fields missing
    out << "{\"v\":1,\"fingerprint\":\"f\",\"kernel"; // cut by a crash
  }
  ASSERT_FALSE(static_cast<bool>(
      db->append(record("g", 10, 0, std::nullopt, "2026"))));
  llvm::Expected<TuningDatabase> again = TuningDatabase::open(path);
  ASSERT_TRUE(static_cast<bool>(again));
  ASSERT_EQ(again->records().size(), 2u);
  EXPECT_EQ(again->records()[1].key.fingerprint, "g");
  EXPECT_EQ(again->skipped().size(), 4u);
  // A schedule of another kernel than the record's is malformed too.
  llvm::json::Object o = record("f", 10, 0, std::nullopt, "2026").toJson();
  o["kernel"] = "sddmm";
  EXPECT_FALSE(static_cast<bool>(tuningRecordFromJson(std::move(o))));
  // Optional fields of the wrong type, or measured times that are no time,
  // are malformed too (they silently became defaults; issue 13 probe).
  for (auto [key, value] :
       std::vector<std::pair<const char *, llvm::json::Value>>{
           {"seconds", "fast"},
           {"measured", 5},
           {"created", 5},
           {"ranked", "many"},
           {"ranked", -3},
           {"measured", llvm::json::Array{llvm::json::Object{
                            {"schedule", "cpu spmm"}, {"seconds", -1.0}}}}}) {
    llvm::json::Object bad = record("f", 10, 0, 1e-3, "2026").toJson();
    bad[key] = std::move(value);
    EXPECT_FALSE(static_cast<bool>(tuningRecordFromJson(std::move(bad)))) << key;
  }
  // The count of ranked candidates travels with the record; older records
  // have none.
  TuningRecord counted = record("f", 1000, 0, std::nullopt, "2026");
  counted.ranked = 1144;
  llvm::Expected<TuningRecord> back = tuningRecordFromJson(counted.toJson());
  ASSERT_TRUE(static_cast<bool>(back));
  EXPECT_EQ(back->ranked, 1144);
  back =
      tuningRecordFromJson(record("f", 10, 0, std::nullopt, "2026").toJson());
  ASSERT_TRUE(static_cast<bool>(back));
  EXPECT_EQ(back->ranked, 0);
  // A directory is not a database.
  EXPECT_FALSE(static_cast<bool>(TuningDatabase::open(testing::TempDir())));
}

TEST(TuningDatabaseTest, SupersededRecordsGo) {
  std::vector<TuningRecord> records = {
      record("f", 1000, 1, 2e-3, "2026-01"), record("f", 1000, 1, 1e-3, "2026-01"),
      record("f", 1000, 0, std::nullopt, "2026-01"),
      record("f", 1000, 0, std::nullopt, "2026-02"),
      record("g", 1000, 0, std::nullopt, "2026-01")};
  std::vector<TuningRecord> kept = supersededRemoved(records);
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_DOUBLE_EQ(*kept[0].chosenSeconds, 1e-3);
  EXPECT_EQ(kept[1].createdAt, "2026-02");
  EXPECT_EQ(kept[2].key.fingerprint, "g");
  std::string path = tempPath("written.jsonl");
  ASSERT_FALSE(static_cast<bool>(writeTuningDatabase(path, kept)));
  llvm::Expected<TuningDatabase> back = TuningDatabase::open(path);
  ASSERT_TRUE(static_cast<bool>(back));
  EXPECT_EQ(back->records().size(), 3u);
}

/// What `sptune-db prune` keeps: the models asked for, the records whose
/// matrix file exists (a spec always does; "|T", a transposed read, names
/// the same file), and by default only the best of superseded ones.
TEST(TuningDatabaseTest, PruningKeepsWhatItIsAskedFor) {
  std::string file = tempPath("matrix.mtx");
  { std::ofstream(file) << "%%MatrixMarket matrix coordinate real general\n"; }
  std::vector<TuningRecord> records = {
      record("a", 1000, 1, 2e-3, "2026-01"), record("a", 1000, 1, 1e-3, "2026-01"),
      record("b", 1000, 0, std::nullopt, "2026-01"),
      record("c", 1000, 0, std::nullopt, "2026-01"),
      record("d", 1000, 0, std::nullopt, "2026-01")};
  records[2].key.model = "model:0123456789abcdef";
  records[3].stamp.source = tempPath("gone.mtx");
  records[4].stamp.source = file + "|T";

  TuningDatabasePruning all;
  EXPECT_EQ(pruneTuningRecords(records, all).size(), 4u); // a superseded
  all.keepSuperseded = true;
  EXPECT_EQ(pruneTuningRecords(records, all).size(), 5u);

  TuningDatabasePruning heuristicOnly;
  heuristicOnly.keepModels = {"heuristic"};
  std::vector<TuningRecord> kept = pruneTuningRecords(records, heuristicOnly);
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[0].key.fingerprint, "a");
  EXPECT_DOUBLE_EQ(*kept[0].chosenSeconds, 1e-3);

  TuningDatabasePruning existing;
  existing.dropMissingSources = true;
  kept = pruneTuningRecords(records, existing);
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[1].key.fingerprint, "b");
  EXPECT_EQ(kept[2].key.fingerprint, "d");
}

/// Reading several databases: records in order, skipped lines reported, a
/// missing file an error that names it.
TEST(TuningDatabaseTest, ReadsSeveralAndNamesAMissingOne) {
  std::string first = tempPath("first.jsonl"), second = tempPath("second.jsonl");
  ASSERT_FALSE(static_cast<bool>(writeTuningDatabase(
      first, {record("a", 1000, 0, std::nullopt, "2026-01")})));
  ASSERT_FALSE(static_cast<bool>(writeTuningDatabase(
      second, {record("b", 1000, 0, std::nullopt, "2026-01")})));
  { std::ofstream(second, std::ios::app) << "not json\n"; }
  std::vector<std::string> skipped;
  auto onSkipped = [&](const std::string &why) { skipped.push_back(why); };
  llvm::Expected<std::vector<TuningRecord>> records =
      readTuningDatabases({first, second}, onSkipped);
  ASSERT_TRUE(static_cast<bool>(records)) << llvm::toString(records.takeError());
  ASSERT_EQ(records->size(), 2u);
  EXPECT_EQ((*records)[1].key.fingerprint, "b");
  EXPECT_EQ(skipped.size(), 1u);

  llvm::Expected<std::vector<TuningRecord>> missing =
      readTuningDatabases({first, tempPath("missing.jsonl")}, onSkipped);
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("missing.jsonl"),
            std::string::npos);

  std::string table, json;
  llvm::raw_string_ostream tableOs(table), jsonOs(json);
  printTuningRecords({record("a", 1000, 0, 1.5e-3, "2026-01")}, false, tableOs);
  printTuningRecords({record("a", 1000, 0, 1.5e-3, "2026-01")}, true, jsonOs);
  EXPECT_NE(table.find("1.500ms"), std::string::npos) << table;
  EXPECT_NE(table.find("1 record(s)"), std::string::npos) << table;
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(std::count(json.begin(), json.end(), '\n'), 1);
}

/// A record appended while sptune-db rewrites the database (merge or prune
/// renaming a new file over it) lands in the new file: the appender waits
/// for the rewrite's lock, then appends to the file at the path, not to the
/// replaced one (issue 35: 1 of 153 records lost).
TEST(TuningDatabaseTest, AppendDuringARewriteLandsInTheNewFile) {
  std::string path = tempPath("rewrite.jsonl");
  ASSERT_FALSE(static_cast<bool>(writeTuningDatabase(
      path, {record("a", 1000, 0, std::nullopt, "2026-01")})));
  llvm::Expected<TuningDatabase> db = TuningDatabase::open(path);
  ASSERT_TRUE(static_cast<bool>(db));
  std::optional<TuningDatabaseLock> lock;
  {
    llvm::Expected<TuningDatabaseLock> taken = TuningDatabaseLock::acquire(path);
    ASSERT_TRUE(static_cast<bool>(taken)) << llvm::toString(taken.takeError());
    lock.emplace(std::move(*taken));
  }
  std::thread appender([&] {
    llvm::Error e = db->append(record("b", 1000, 0, std::nullopt, "2026-02"));
    EXPECT_FALSE(static_cast<bool>(e)) << llvm::toString(std::move(e));
  });
  // The appender has opened the old file and waits for the lock.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_FALSE(static_cast<bool>(writeTuningDatabase(
      path, {record("a", 1000, 0, std::nullopt, "2026-01"),
             record("c", 1000, 0, std::nullopt, "2026-01")})));
  lock.reset();
  appender.join();
  llvm::Expected<TuningDatabase> back = TuningDatabase::open(path);
  ASSERT_TRUE(static_cast<bool>(back));
  std::vector<std::string> fingerprints;
  for (const TuningRecord &r : back->records())
    fingerprints.push_back(r.key.fingerprint);
  EXPECT_EQ(fingerprints, (std::vector<std::string>{"a", "c", "b"}));
}

/// rewriteTuningDatabase: merging into a new file, the lock's empty file is
/// not taken for an input, and a failed rewrite leaves no file behind.
TEST(TuningDatabaseTest, RewriteMergesAndCleansUp) {
  std::string in = tempPath("rw-in.jsonl"), out = tempPath("rw-out.jsonl");
  ASSERT_FALSE(static_cast<bool>(writeTuningDatabase(
      in, {record("a", 1000, 1, 2e-3, "2026-01"),
           record("a", 1000, 1, 1e-3, "2026-01")})));
  auto noWarning = [](const std::string &why) { ADD_FAILURE() << why; };
  llvm::Expected<TuningDatabaseRewrite> done =
      rewriteTuningDatabase({in}, out, supersededRemoved, noWarning);
  ASSERT_TRUE(static_cast<bool>(done)) << llvm::toString(done.takeError());
  EXPECT_EQ(done->read, 2u);
  EXPECT_EQ(done->written, 1u);
  std::string missing = tempPath("rw-missing.jsonl"),
              fresh = tempPath("rw-fresh.jsonl");
  llvm::Expected<TuningDatabaseRewrite> failed =
      rewriteTuningDatabase({missing}, fresh, supersededRemoved, noWarning);
  ASSERT_FALSE(static_cast<bool>(failed));
  EXPECT_NE(llvm::toString(failed.takeError()).find("does not exist"),
            std::string::npos);
  EXPECT_FALSE(llvm::sys::fs::exists(fresh));
}

TEST(TuningDatabaseTest, StampsFilesAndSpecs) {
  std::optional<MatrixStamp> spec = stampMatrixSource("gen:uniform:rows=4");
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->source, "gen:uniform:rows=4");
  EXPECT_FALSE(stampMatrixSource("/nonexistent/matrix.mtx"));
  EXPECT_FALSE(stampMatrixSource(testing::TempDir()));
  std::string path = tempPath("m.mtx");
  {
    std::ofstream out(path);
    out << "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2\n";
  }
  std::optional<MatrixStamp> file = stampMatrixSource(path);
  ASSERT_TRUE(file);
  EXPECT_GT(file->size, 0u);
  EXPECT_NE(file->mtimeNs, 0);
}

} // namespace
