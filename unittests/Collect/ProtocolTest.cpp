//===- ProtocolTest.cpp - Worker protocol and dataset records -------------===//

#include "sptune/Collect/Collector.h"
#include "sptune/Collect/Dataset.h"
#include "sptune/Collect/WorkerProtocol.h"

#include "cpu/CpuScheduleSpace.h"
#include "sptune/InitAllTargets.h"
#include "sptune/Support/Json.h"

#include "Support/DescriptorTesting.h"
#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

#include <cstdio>
#include <fstream>

using namespace sptune;

namespace {

TEST(WorkerProtocol, RequestRoundTripsAndValidates) {
  registerAllTargets();
  MeasureRequest r;
  r.id = 42;
  r.matrix = "gen:uniform:rows=8,nnz=10";
  r.kernel = "sddmm";
  r.free = 32;
  r.elementBits = 64;
  r.schedule = "cpu sddmm, order = [i, j, k]";
  r.options.minReps = 7;
  r.options.minSeconds = 0.5;
  r.options.checkResult = false;
  MeasureRequest back;
  std::string error;
  ASSERT_TRUE(test::ok(MeasureRequest::fromJson(r.toJson(), back), error))
      << error;
  EXPECT_EQ(back.id, 42);
  EXPECT_EQ(back.kernel, "sddmm");
  EXPECT_EQ(back.free, 32);
  EXPECT_EQ(back.elementBits, 64);
  EXPECT_EQ(back.schedule, r.schedule);
  EXPECT_EQ(back.options.minReps, 7);
  EXPECT_FALSE(back.options.checkResult);
  EXPECT_FALSE(back.transposedB);
  // The B^T input of SDDMM travels only when set, and only for SDDMM.
  EXPECT_EQ(r.toJson().find("b_transposed"), std::string::npos);
  MeasureRequest bt = r;
  bt.transposedB = true;
  ASSERT_TRUE(test::ok(MeasureRequest::fromJson(bt.toJson(), back), error))
      << error;
  EXPECT_TRUE(back.transposedB);
  bt.kernel = "spmm";
  bt.schedule.clear();
  bt.baseline = "heuristic";
  EXPECT_FALSE(test::ok(bt.validate(), error));
  EXPECT_NE(error.find("SDDMM input only"), std::string::npos) << error;

  // The user's op travels as its descriptor, and must be the kernel named.
  MeasureRequest asWritten = r;
  asWritten.kernel = "spmm";
  asWritten.schedule = "cpu spmm";
  KernelDescriptor d = test::descriptor(
      {{"i", false, 8}, {"j", false, -1}, {"k", true, 8}},
      {test::operand(KernelOperand::Kind::Sparse, {0, 2}, "f64"),
       test::operand(KernelOperand::Kind::Dense, {1, 2}, "f64"),
       test::operand(KernelOperand::Kind::Output, {0, 1}, "f64")},
      KernelDescriptor::Body::MultiplyAccumulate);
  asWritten.descriptor = d;
  ASSERT_TRUE(
      test::ok(MeasureRequest::fromJson(asWritten.toJson(), back), error))
      << error;
  ASSERT_TRUE(back.descriptor);
  EXPECT_EQ(back.descriptor->str(), d.str());
  EXPECT_EQ(r.toJson().find("descriptor"), std::string::npos);
  asWritten.kernel = "spmv";
  asWritten.schedule = "cpu spmv";
  EXPECT_FALSE(test::ok(asWritten.validate(), error));
  EXPECT_NE(
      error.find("the descriptor is of shape 'spmm', not of kernel 'spmv'"),
      std::string::npos)
      << error;
  // A kind defined by its form is checked by that form: the sparse ⊙ dense
  // product, into dense and into sparse storage (its shape is named
  // "sparse-elementwise", its kind "hadamard").
  for (KernelOperand::Kind out :
       {KernelOperand::Kind::Output, KernelOperand::Kind::SparseOutput}) {
    MeasureRequest hadamard = r;
    hadamard.kernel = "hadamard";
    hadamard.schedule = "cpu hadamard";
    hadamard.descriptor = test::descriptor(
        {{"i", false, 8}, {"j", false, 8}},
        {test::operand(KernelOperand::Kind::Sparse, {0, 1}, "f64"),
         test::operand(KernelOperand::Kind::Dense, {0, 1}, "f64"),
         test::operand(out, {0, 1}, "f64")},
        KernelDescriptor::Body::ElementwiseProduct);
    EXPECT_TRUE(test::ok(hadamard.validate(), error)) << error;
    hadamard.kernel = "spmv";
    hadamard.schedule = "cpu spmv";
    EXPECT_FALSE(test::ok(hadamard.validate(), error));
    EXPECT_NE(error.find("the descriptor is of shape 'sparse-elementwise', not "
                         "of kernel 'spmv'"),
              std::string::npos)
        << error;
  }

  MeasureRequest bad = r;
  bad.baseline = "mlir-default"; // schedule and baseline together
  EXPECT_FALSE(test::ok(bad.validate(), error));
  EXPECT_NE(error.find("not both"), std::string::npos);
  MeasureRequest library = r;
  library.schedule.clear();
  library.baseline = "rsb";
  EXPECT_TRUE(test::ok(library.validate(), error)) << error;
  library.baseline = "mkl";
  EXPECT_FALSE(test::ok(library.validate(), error));
  EXPECT_NE(error.find("unknown baseline 'mkl'"), std::string::npos);
  // Baselines belong to their target.
  library.baseline = "cusparse";
  EXPECT_FALSE(test::ok(library.validate(), error));
  EXPECT_NE(error.find("for target 'cpu'"), std::string::npos) << error;
  library.target = "nvvm";
  EXPECT_TRUE(test::ok(library.validate(), error)) << error;
  library.target = "tpu";
  EXPECT_FALSE(test::ok(library.validate(), error));
  EXPECT_NE(error.find("unknown target 'tpu' (registered: cpu, nvvm, spade"),
            std::string::npos)
      << error;
  bad = r;
  bad.kernel = "gemm";
  EXPECT_FALSE(test::ok(bad.validate(), error));
  // SpGEMM requests are measured (as A A).
  MeasureRequest spgemm = r;
  spgemm.kernel = "spgemm";
  spgemm.schedule = "cpu spgemm, parallel = outer, accumulator = hash";
  EXPECT_TRUE(test::ok(spgemm.validate(), error)) << error;
  bad = r;
  bad.schedule = "cpu sddmm, order = [";
  EXPECT_FALSE(test::ok(bad.validate(), error));
  EXPECT_NE(error.find("bad schedule"), std::string::npos);
  EXPECT_FALSE(test::ok(MeasureRequest::fromJson("{not json", back), error));
}

TEST(WorkerProtocol, RequestFieldsAndOptionsAreTypedAndRangeChecked) {
  registerAllTargets();
  MeasureRequest back;
  std::string error;
  const std::string head = R"({"target":"cpu","matrix":"gen:uniform:rows=8,nnz=10",)"
                           R"("kernel":"spmm","baseline":"heuristic")";
  auto rejects = [&](const std::string &extra, const std::string &message) {
    SCOPED_TRACE(extra);
    EXPECT_FALSE(
        test::ok(MeasureRequest::fromJson(head + extra + "}", back), error));
    EXPECT_NE(error.find(message), std::string::npos) << error;
  };
  ASSERT_TRUE(test::ok(MeasureRequest::fromJson(head + "}", back), error))
      << error;
  // Repetition counts: negative or wrapped integers are errors, not 1.
  rejects(R"(,"options":{"min_reps":-5})", "'min_reps' must be an integer in [1,");
  rejects(R"(,"options":{"min_reps":4294967298})", "'min_reps'");
  rejects(R"(,"options":{"max_reps":-3})", "'max_reps'");
  rejects(R"(,"options":{"min_reps":10,"max_reps":5})", "at least 'min_reps'");
  rejects(R"(,"options":{"warmups":-1})", "'warmups'");
  rejects(R"(,"options":{"min_seconds":-0.5})", "'min_seconds' must be a number");
  rejects(R"(,"options":{"min_seconds":1e300})", "'min_seconds'");
  rejects(R"(,"options":{"timeout_s":0})", "'timeout_s' must be a number in (0,");
  rejects(R"(,"options":{"tolerance":"tight"})", "'tolerance'");
  rejects(R"(,"options":{"check":"yes"})", "'check' must be true or false");
  rejects(R"(,"options":[1,2])", "'options' is not a JSON object");
  // Fields of the wrong type are errors, not silent defaults.
  rejects(R"(,"free":"64")", "'free' must be an integer");
  rejects(R"(,"id":1.5)", "'id' must be an integer");
  rejects(R"(,"bits":4294967328)", "element bits");
  rejects(R"(,"b_transposed":1)", "'b_transposed' must be true or false");
  // A descriptor is written into IR: names and types are checked first.
  const std::string loops =
      R"("loops":[{"name":"i","reduction":false,"size":8}])";
  rejects(R"(,"descriptor":[])", "kernel descriptor: not a JSON object");
  rejects(R"(,"descriptor":{"loops":[]})", "needs 'loops', 'operands'");
  rejects(R"(,"descriptor":{"loops":[{"name":"i) -> ()>","reduction":false,)"
          R"("size":8}],"operands":[],"body":"other"})",
          "needs 2 to 8 operands");
  rejects(R"(,"descriptor":{"loops":[{"name":"i) -> ()>","reduction":false,)"
          R"("size":8}],"operands":[{},{}],"body":"other"})",
          "lower-case 'name'");
  rejects(R"(,"descriptor":{)" + loops +
              R"(,"operands":[{"kind":"sparse","type":"f32>","dims":[0]},)"
              R"({"kind":"output","type":"f32","dims":[0]}],"body":"other"})",
          "needs a 'type' among");
  rejects(R"(,"descriptor":{)" + loops +
              R"(,"operands":[{"kind":"sparse","type":"f32","dims":[3]},)"
              R"({"kind":"output","type":"f32","dims":[0]}],"body":"other"})",
          "indexes a loop it lacks");
  rejects(R"(,"descriptor":{)" + loops +
              R"(,"operands":[{"kind":"output","type":"f32","dims":[0]},)"
              R"({"kind":"output","type":"f32","dims":[0]}],"body":"other"})",
          "the last operand, and only it, is the output");
  EXPECT_FALSE(test::ok(
      MeasureRequest::fromJson(
          R"({"target":7,"matrix":"m","kernel":"spmm","baseline":"heuristic"})",
          back),
      error));
  EXPECT_NE(error.find("'target' must be a string"), std::string::npos) << error;
}

TEST(WorkerProtocol, DeeplyNestedJsonIsAnErrorNotAStackOverflow) {
  registerAllTargets();
  MeasureRequest back;
  std::string error;
  // LLVM's JSON parser recurses per level: 100,000 '[' overflowed the
  // worker's stack (found by the issue 13 probe).
  EXPECT_FALSE(
      test::ok(MeasureRequest::fromJson(std::string(100000, '['), back), error));
  EXPECT_NE(error.find("nested more than"), std::string::npos) << error;
  std::string deepOptions = R"({"id":3,"options":)";
  for (int n = 0; n < 50000; ++n)
    deepOptions += "{\"a\":";
  EXPECT_FALSE(test::ok(MeasureRequest::fromJson(deepOptions, back), error));
  MeasureResponse response;
  EXPECT_FALSE(test::ok(
      MeasureResponse::fromJson(std::string(100000, '{'), response), error));
  // Brackets inside strings do not count.
  EXPECT_FALSE(jsonNestsDeeperThan(
      "[\"" + std::string(1000, '[') + "\\\"]\"]", 2));
  EXPECT_TRUE(jsonNestsDeeperThan("[[[1]]]", 2));
  EXPECT_FALSE(jsonNestsDeeperThan("[[1],[2],{\"a\":[3]}]", 3));
}

TEST(WorkerProtocol, ResponseRoundTrips) {
  MeasureResponse r;
  r.id = 3;
  r.measurement.status = MeasureStatus::Crash;
  r.measurement.reason = "worker died of signal Segmentation fault";
  r.measurement.medianSeconds = 1.5e-3;
  r.measurement.reps = 9;
  r.measurement.cycles = 12345;
  r.measurement.detailsJson = "{\"llc_hit_rate\":0.5}";
  r.schedule = "cpu spmm";
  r.rows = 10;
  r.cols = 20;
  r.nnz = 30;
  MeasureResponse back;
  std::string error;
  ASSERT_TRUE(test::ok(MeasureResponse::fromJson(r.toJson(), back), error))
      << error;
  EXPECT_EQ(back.measurement.status, MeasureStatus::Crash);
  EXPECT_EQ(back.measurement.reason, r.measurement.reason);
  EXPECT_DOUBLE_EQ(back.measurement.medianSeconds, 1.5e-3);
  EXPECT_EQ(back.measurement.reps, 9);
  ASSERT_TRUE(back.measurement.cycles.has_value());
  EXPECT_DOUBLE_EQ(*back.measurement.cycles, 12345);
  EXPECT_NE(back.measurement.detailsJson.find("llc_hit_rate"),
            std::string::npos);
  EXPECT_EQ(back.nnz, 30);
  EXPECT_FALSE(test::ok(
      MeasureResponse::fromJson("{\"status\":\"great\"}", back), error));
  // "ok" without a positive, finite time is no measurement.
  for (const char *bad :
       {R"({"status":"ok"})",
        R"({"status":"ok","time_s":{"median":0,"reps":1}})",
        R"({"status":"ok","time_s":{"median":-1,"reps":3}})",
        R"({"status":"ok","time_s":{"median":1e-3,"reps":0}})"}) {
    EXPECT_FALSE(test::ok(MeasureResponse::fromJson(bad, back), error)) << bad;
    EXPECT_NE(error.find("without a positive, finite median time"),
              std::string::npos);
  }
  EXPECT_TRUE(test::ok(
      MeasureResponse::fromJson(
          R"({"status":"ok","time_s":{"median":1e-3,"reps":1}})", back),
      error))
      << error;
}

TEST(Dataset, KeysOfWrittenRecordsAreReadBackAndCutLinesSkipped) {
  std::string path = ::testing::TempDir() + "/sptune-dataset-test.jsonl";
  std::remove(path.c_str());
  MachineInfo machine = MachineInfo::current();
  {
    DatasetWriter w;
    std::string error;
    ASSERT_TRUE(test::ok(w.open(path, false), error)) << error;
    for (int n = 0; n < 3; ++n) {
      RecordKey key{"m" + std::to_string(n), "spmm", 64, "cpu", "sample",
                    "cpu spmm"};
      MeasureRequest q;
      MeasureResponse r;
      r.measurement.status = MeasureStatus::Ok;
      ASSERT_TRUE(w.append(datasetRecord(key, q, r, machine)));
    }
  }
  { // A line nested 100,000 deep, and a record cut by a kill.
    std::ofstream out(path, std::ios::app);
    out << std::string(100000, '[') << "\n";
    out << "{\"schema\":1,\"key\":\"m9|sp";
  }
  size_t bad = 0;
  auto keys = readDatasetKeys(path, &bad);
  EXPECT_EQ(keys.size(), 3u);
  EXPECT_EQ(bad, 2u);
  EXPECT_TRUE(keys.count("m1|spmm|64|cpu|sample|cpu spmm"));
  // Appending after a cut line starts a fresh line.
  {
    DatasetWriter w;
    std::string error;
    ASSERT_TRUE(test::ok(w.open(path, false), error));
    RecordKey key{"m4", "spmm", 64, "cpu", "sample", "cpu spmm"};
    ASSERT_TRUE(w.append(datasetRecord(key, MeasureRequest(),
                                       MeasureResponse(), machine)));
  }
  keys = readDatasetKeys(path, &bad);
  EXPECT_EQ(keys.size(), 4u);
  EXPECT_EQ(bad, 2u);
  std::remove(path.c_str());
}

TEST(Dataset, AnF64MeasurementHasAKeyOfItsOwn) {
  CollectOptions options;
  options.kernels = {"mttkrp"};
  options.free = 32;
  PlannedRequest f32 =
      makeRequest("gen3:uniform:i=8,j=8,k=8,nnz=20", "t", "mttkrp", "sample",
                  "cpu mttkrp", "", options);
  options.elementBits = 64;
  PlannedRequest f64 =
      makeRequest("gen3:uniform:i=8,j=8,k=8,nnz=20", "t", "mttkrp", "sample",
                  "cpu mttkrp", "", options);
  // 32-bit keys are those of records written before the width was a key's.
  EXPECT_EQ(f32.key.str(), "t|mttkrp|32|cpu|sample|cpu mttkrp");
  EXPECT_EQ(f64.key.str(), "t|mttkrp|32|cpu|sample|cpu mttkrp|64-bit");
  EXPECT_EQ(f32.request.elementBits, 32);
  EXPECT_EQ(f64.request.elementBits, 64);
}

TEST(Dataset, TransientFailuresAreRetriedAndWritersExclude) {
  std::string path = ::testing::TempDir() + "sptune-dataset-retry.jsonl";
  std::remove(path.c_str());
  MachineInfo machine = MachineInfo::current();
  auto key = [](int n) {
    return RecordKey{"m" + std::to_string(n), "spmm", 64, "cpu", "sample",
                     "cpu spmm"};
  };
  {
    DatasetWriter w;
    std::string error;
    ASSERT_TRUE(test::ok(w.open(path, false), error)) << error;
    // A second writer on the same dataset is refused while the first holds it.
    DatasetWriter second;
    EXPECT_FALSE(test::ok(second.open(path, false), error));
    EXPECT_NE(error.find("another sptune-collect"), std::string::npos) << error;
    const MeasureStatus statuses[] = {MeasureStatus::Ok, MeasureStatus::Timeout,
                                      MeasureStatus::Crash,
                                      MeasureStatus::WrongResult};
    for (int n = 0; n < 4; ++n) {
      MeasureResponse r;
      r.measurement.status = statuses[n];
      ASSERT_TRUE(w.append(datasetRecord(key(n), MeasureRequest(), r, machine)));
    }
    // m1 timed out once, then succeeded.
    MeasureResponse ok;
    ok.measurement.status = MeasureStatus::Ok;
    ASSERT_TRUE(w.append(datasetRecord(key(1), MeasureRequest(), ok, machine)));
  }
  auto all = readDatasetKeys(path);
  EXPECT_EQ(all.size(), 4u);
  auto done = readDatasetKeys(path, nullptr, /*skipTransient=*/true);
  EXPECT_EQ(done.size(), 3u);
  EXPECT_TRUE(done.count(key(1).str()));  // the retry succeeded
  EXPECT_FALSE(done.count(key(2).str())); // the crash is measured again
  EXPECT_TRUE(done.count(key(3).str()));  // a wrong result stays wrong
  // Once the first writer is gone, another may write.
  DatasetWriter again;
  std::string error;
  EXPECT_TRUE(test::ok(again.open(path, false), error)) << error;
  std::remove(path.c_str());
}

TEST(Collector, PlansBaselinesAndDeterministicSamples) {
  registerAllTargets();
  CpuSpaceConfig c;
  c.splits = {1, 2};
  CpuScheduleSpace space(c);
  CollectOptions options;
  options.kernels = {"spmm", "sddmm"};
  options.samples = 5;
  auto a = planMatrix("gen:x", "x", 64, 64, 300, space, options);
  auto b = planMatrix("gen:x", "x", 64, 64, 300, space, options);
  // spmm: 3 baselines + 5; sddmm: 2 baselines (no Eigen SDDMM) + 5.
  ASSERT_EQ(a.size(), 15u);
  for (size_t n = 0; n < a.size(); ++n)
    EXPECT_EQ(a[n].key.str(), b[n].key.str());
  std::string error;
  for (const PlannedRequest &p : a)
    EXPECT_TRUE(test::ok(p.request.validate(), error)) << error;
  // Another matrix draws another sample.
  auto other = planMatrix("gen:y", "y", 64, 64, 300, space, options);
  EXPECT_NE(a.back().key.schedule, other.back().key.schedule);
  // librsb, like Eigen, has SpMM but no SDDMM.
  options.baselines = {"eigen", "rsb"};
  options.samples = 0;
  auto libraries = planMatrix("gen:x", "x", 64, 64, 300, space, options);
  ASSERT_EQ(libraries.size(), 2u);
  EXPECT_EQ(libraries[1].request.baseline, "rsb");
  EXPECT_EQ(libraries[1].request.kernel, "spmm");
}

} // namespace
