//===- GeneratorsTest.cpp - Seeded synthetic matrices ---------------------===//

#include "sptune/Matrix/Generators.h"
#include "sptune/Matrix/MatrixStats.h"

#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

using namespace sptune;

namespace {

GenSpec parse(const std::string &text) {
  GenSpec spec;
  std::string error;
  EXPECT_TRUE(test::take(parseGenSpec(text), spec, error))
      << text << ": " << error;
  return spec;
}

CooMatrix gen(const std::string &text) {
  CooMatrix m;
  std::string error;
  EXPECT_TRUE(test::take(generate(parse(text)), m, error))
      << text << ": " << error;
  return m;
}

/// Expects `text` to be rejected with `needle` in the message.
void expectBad(const std::string &text, const std::string &needle) {
  GenSpec spec;
  std::string error;
  EXPECT_FALSE(test::take(parseGenSpec(text), spec, error))
      << "accepted: " << text;
  EXPECT_NE(error.find(needle), std::string::npos)
      << "expected '" << needle << "' in: " << error;
  EXPECT_NE(error.find(text), std::string::npos) << "spec not named: " << error;
}

bool sameMatrix(const CooMatrix &x, const CooMatrix &y) {
  return x.rows == y.rows && x.cols == y.cols && x.rowIdx == y.rowIdx &&
         x.colIdx == y.colIdx && x.values == y.values;
}

/// FNV-1a over the coordinates and the bits of the values.
uint64_t fingerprint(const CooMatrix &m) {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ULL;
    }
  };
  mix(m.rows);
  mix(m.cols);
  for (int64_t i = 0; i < m.nnz(); ++i) {
    mix(static_cast<uint64_t>(m.rowIdx[i]));
    mix(static_cast<uint64_t>(m.colIdx[i]));
    uint64_t bits;
    std::memcpy(&bits, &m.values[i], sizeof(bits));
    mix(bits);
  }
  return h;
}

const char *kOneOfEach[] = {
    "gen:uniform:rows=300,cols=200,nnz=3000,seed=7",
    "gen:rmat:rows=512,cols=300,nnz=4000,a=0.57,b=0.19,c=0.19,seed=7",
    "gen:banded:rows=300,cols=250,nnz=2000,bw=5,seed=7",
    "gen:block:rows=300,cols=200,nnz=3000,bs=4,fill=0.75,seed=7",
    "gen:clustered:rows=300,cols=200,nnz=3000,group=6,noise=0.1,seed=7",
};

//===----------------------------------------------------------------------===//
// Spec syntax
//===----------------------------------------------------------------------===//

TEST(GenSpec, CanonicalRoundTrip) {
  for (const char *text : kOneOfEach) {
    GenSpec spec = parse(text);
    EXPECT_EQ(spec.str(), text);
    EXPECT_EQ(parse(spec.str()), spec);
  }
}

TEST(GenSpec, DefaultsAndKeyOrderAreCanonicalized) {
  EXPECT_EQ(parse("gen:rmat:seed=3,nnz=40000,rows=4096").str(),
            "gen:rmat:rows=4096,cols=4096,nnz=40000,a=0.57,b=0.19,c=0.19,"
            "seed=3");
  EXPECT_EQ(parse("gen:uniform:rows=10,nnz=1").kind, GenKind::Uniform);
  EXPECT_EQ(parse("gen:banded:rows=100,density=0.05").str(),
            "gen:banded:rows=100,cols=100,nnz=500,bw=8,seed=1");
  EXPECT_EQ(parse("gen:block:rows=64,cols=32,nnz=100").str(),
            "gen:block:rows=64,cols=32,nnz=100,bs=4,fill=1,seed=1");
  EXPECT_EQ(parse("gen:clustered:rows=64,nnz=100,noise=0.25").str(),
            "gen:clustered:rows=64,cols=64,nnz=100,group=8,noise=0.25,seed=1");
  EXPECT_EQ(parse("gen:uniform:rows=1000,cols=1000,density=0.001"),
            parse("gen:uniform:rows=1000,nnz=1000"));
}

TEST(GenSpec, Errors) {
  expectBad("uniform:rows=10,nnz=5", "expected 'gen:<kind>:key=value,...'");
  expectBad("gen:dense:rows=10,nnz=5", "unknown kind 'dense'");
  expectBad("gen:uniform", "missing key 'rows'");
  expectBad("gen:uniform:rows=10", "exactly one of 'nnz' and 'density'");
  expectBad("gen:uniform:rows=10,nnz=5,density=0.1",
            "exactly one of 'nnz' and 'density'");
  expectBad("gen:uniform:rows=10,nnz=5,bw=3", "unknown key 'bw' for kind "
                                              "'uniform'");
  expectBad("gen:uniform:rows=10,rows=20,nnz=5", "key 'rows' given twice");
  expectBad("gen:uniform:rows=ten,nnz=5", "bad value 'ten' for 'rows'");
  expectBad("gen:uniform:rows=10,nnz=5x", "bad value '5x' for 'nnz'");
  expectBad("gen:uniform:rows=10,nnz=5,seed=-1", "bad value '-1' for 'seed'");
  expectBad("gen:uniform:rows=10,nnz", "expected key=value, found 'nnz'");
  expectBad("gen:uniform:rows=10,,nnz=5", "empty parameter");
  expectBad("gen:uniform:rows=10,nnz=5,", "empty parameter");
  expectBad("gen:uniform:rows=0,nnz=0", "rows must be in [1,");
  expectBad("gen:uniform:rows=10,cols=3000000000,nnz=1", "cols must be in");
  expectBad("gen:uniform:rows=10,nnz=101", "exceeds the 100 positions");
  expectBad("gen:uniform:rows=10,nnz=-1", "non-negative");
  expectBad("gen:uniform:rows=10,density=1.5", "density must be in [0, 1]");
  expectBad("gen:uniform:rows=10,density=nan", "bad value 'nan'");
  expectBad("gen:uniform:rows=100000,density=0.5", "exceeds the limit");
  expectBad("gen:rmat:rows=16,nnz=5,a=0.6,b=0.3,c=0.3", "a + b + c <= 1");
  expectBad("gen:rmat:rows=16,nnz=5,a=-0.1", "a, b, c >= 0");
  expectBad("gen:banded:rows=10,nnz=5,bw=10", "bw (half bandwidth)");
  expectBad("gen:banded:rows=10,nnz=29,bw=1", "exceeds the 28 positions");
  expectBad("gen:block:rows=10,nnz=5,bs=0", "bs (block size)");
  expectBad("gen:block:rows=10,cols=4,nnz=5,bs=8", "bs (block size)");
  expectBad("gen:block:rows=10,nnz=5,fill=0", "fill must be in (0, 1]");
  expectBad("gen:clustered:rows=10,nnz=5,group=11", "group (rows per group)");
  expectBad("gen:clustered:rows=10,nnz=5,noise=2", "noise must be in [0, 1]");
}

TEST(GenSpec, IsGenSpec) {
  EXPECT_TRUE(isGenSpec("gen:uniform:rows=1"));
  EXPECT_FALSE(isGenSpec("general.mtx"));
  EXPECT_FALSE(isGenSpec("ge"));
}

//===----------------------------------------------------------------------===//
// Generation
//===----------------------------------------------------------------------===//

TEST(Generators, ValidCanonicalWithExactSize) {
  for (const char *text : kOneOfEach) {
    SCOPED_TRACE(text);
    GenSpec spec = parse(text);
    CooMatrix m = gen(text);
    std::string error;
    EXPECT_TRUE(test::ok(m.verify(), error)) << error;
    EXPECT_TRUE(m.isCanonical());
    EXPECT_EQ(m.rows, spec.rows);
    EXPECT_EQ(m.cols, spec.cols);
    if (spec.kind == GenKind::RMat)
      EXPECT_GE(m.nnz(), spec.nnz * 99 / 100);
    else
      EXPECT_EQ(m.nnz(), spec.nnz);
    for (double v : m.values) {
      EXPECT_GT(v, 0.0);
      EXPECT_LE(v, 1.0);
    }
  }
}

TEST(Generators, DeterministicPerSeed) {
  for (const char *text : kOneOfEach) {
    SCOPED_TRACE(text);
    CooMatrix a = gen(text), b = gen(text);
    EXPECT_TRUE(sameMatrix(a, b));
    GenSpec other = parse(text);
    other.seed = 8;
    CooMatrix c;
    std::string error;
    ASSERT_TRUE(test::take(generate(other), c, error)) << error;
    EXPECT_NE(a.colIdx, c.colIdx);
    EXPECT_NE(a.values, c.values);
  }
}

// The same spec must give the same matrix on every platform and in every
// later version: datasets store only the spec. A change of these
// fingerprints means previously collected datasets no longer describe the
// matrices their specs generate (change the algorithm only with a new kind
// or a new key).
TEST(Generators, FingerprintsAreStable) {
  const uint64_t expected[] = {
      0x58b0b91b2bff2d24ULL, // uniform
      0x8c38f7c1053a4ba4ULL, // rmat
      0x8669ac6b980fabf0ULL, // banded
      0x1b45badefd768a83ULL, // block
      0x47db05bbdfb90abcULL, // clustered
  };
  for (size_t i = 0; i < std::size(kOneOfEach); ++i)
    EXPECT_EQ(fingerprint(gen(kOneOfEach[i])), expected[i])
        << kOneOfEach[i] << " -> 0x" << std::hex
        << fingerprint(gen(kOneOfEach[i]));
}

TEST(Generators, DensityWithinTolerance) {
  for (const char *kind : {"uniform", "rmat", "banded", "block", "clustered"}) {
    std::string text =
        std::string("gen:") + kind + ":rows=1000,cols=800,density=0.01";
    SCOPED_TRACE(text);
    CooMatrix m = gen(text);
    double density = static_cast<double>(m.nnz()) / (1000.0 * 800.0);
    EXPECT_NEAR(density, 0.01, 0.0002);
  }
}

TEST(Generators, EmptyAndFull) {
  EXPECT_EQ(gen("gen:uniform:rows=5,nnz=0").nnz(), 0);
  CooMatrix full = gen("gen:uniform:rows=7,cols=3,nnz=21");
  EXPECT_EQ(full.nnz(), 21);
  EXPECT_EQ(gen("gen:banded:rows=10,nnz=28,bw=1").nnz(), 28);
  EXPECT_EQ(gen("gen:block:rows=10,cols=7,nnz=70,bs=4").nnz(), 70);
  EXPECT_EQ(gen("gen:clustered:rows=9,cols=5,nnz=45,group=4,noise=0.5").nnz(),
            45);
  // A dense rmat fills up to its capacity (or nearly).
  EXPECT_GE(gen("gen:rmat:rows=8,nnz=64,a=0.25,b=0.25,c=0.25").nnz(), 60);
}

TEST(Generators, BandedStaysInBand) {
  CooMatrix m = gen("gen:banded:rows=2000,cols=1500,nnz=20000,bw=7,seed=2");
  for (int64_t i = 0; i < m.nnz(); ++i)
    ASSERT_LE(std::abs(m.rowIdx[i] - m.colIdx[i]), 7);
  MatrixStats s = computeStats(CsrMatrix::fromCoo(m));
  EXPECT_EQ(s.bandwidth, 7);
}

TEST(Generators, BlockKindIsBlocked) {
  CooMatrix m = gen("gen:block:rows=2048,cols=2048,nnz=40000,bs=8,seed=4");
  MatrixStats s = computeStats(CsrMatrix::fromCoo(m));
  EXPECT_GT(s.blockFill[2], 0.95); // 8 x 8 blocks, fill 1
  EXPECT_GT(s.blockFill[1], 0.95); // and so 4 x 4
  CooMatrix partial =
      gen("gen:block:rows=2048,cols=2048,nnz=40000,bs=8,fill=0.5,seed=4");
  MatrixStats p = computeStats(CsrMatrix::fromCoo(partial));
  EXPECT_NEAR(p.blockFill[2], 0.5, 0.05);
  // A uniform matrix of the same density has almost no block structure.
  MatrixStats u = computeStats(
      CsrMatrix::fromCoo(gen("gen:uniform:rows=2048,nnz=40000,seed=4")));
  EXPECT_LT(u.blockFill[2], 0.05);
}

TEST(Generators, RMatHasSkewedRows) {
  MatrixStats r = computeStats(CsrMatrix::fromCoo(
      gen("gen:rmat:rows=4096,nnz=40000,a=0.57,b=0.19,c=0.19,seed=3")));
  EXPECT_GT(r.rowStd, 1.5 * r.rowMean);
  EXPECT_GT(r.rowMax, 20 * r.rowMean);
  EXPECT_GT(r.emptyRows, 0);
  MatrixStats u = computeStats(
      CsrMatrix::fromCoo(gen("gen:uniform:rows=4096,nnz=40000,seed=3")));
  EXPECT_LT(u.rowStd, 0.5 * u.rowMean);
  // a = b = c = d is uniform.
  MatrixStats flat = computeStats(CsrMatrix::fromCoo(
      gen("gen:rmat:rows=4096,nnz=40000,a=0.25,b=0.25,c=0.25,seed=3")));
  EXPECT_LT(flat.rowStd, 0.5 * flat.rowMean);
}

TEST(Generators, ClusteredRowsShareColumns) {
  CooMatrix m = gen("gen:clustered:rows=640,cols=5000,nnz=12800,group=8");
  CsrMatrix csr = CsrMatrix::fromCoo(m);
  auto rowSet = [&](int64_t r) {
    return std::set<int32_t>(csr.colIdx.begin() + csr.rowPtr[r],
                             csr.colIdx.begin() + csr.rowPtr[r + 1]);
  };
  for (int64_t g = 0; g < 640; g += 8) {
    std::set<int32_t> first = rowSet(g);
    EXPECT_EQ(first.size(), 20u);
    for (int64_t r = g + 1; r < g + 8; ++r)
      EXPECT_EQ(rowSet(r), first) << "row " << r;
  }
  // Rows of different groups share (almost) nothing.
  std::set<int32_t> a = rowSet(0), b = rowSet(8);
  size_t common = 0;
  for (int32_t c : a)
    common += b.count(c);
  EXPECT_LT(common, 3u);

  // With noise, rows of a group still overlap mostly.
  CsrMatrix noisy = CsrMatrix::fromCoo(
      gen("gen:clustered:rows=640,cols=5000,nnz=12800,group=8,noise=0.2"));
  size_t shared = 0, total = 0;
  for (int64_t r = 0; r + 1 < 640; r += 2) {
    std::set<int32_t> x(noisy.colIdx.begin() + noisy.rowPtr[r],
                        noisy.colIdx.begin() + noisy.rowPtr[r + 1]);
    for (int64_t p = noisy.rowPtr[r + 1]; p < noisy.rowPtr[r + 2]; ++p)
      shared += x.count(noisy.colIdx[p]);
    total += x.size();
  }
  double overlap = static_cast<double>(shared) / static_cast<double>(total);
  EXPECT_GT(overlap, 0.5);
  EXPECT_LT(overlap, 0.8);
}

TEST(Generators, RejectsInvalidHandBuiltSpec) {
  GenSpec spec;
  spec.rows = 10;
  spec.cols = 10;
  spec.nnz = 1000;
  CooMatrix m;
  std::string error;
  EXPECT_FALSE(test::take(generate(spec), m, error));
  EXPECT_NE(error.find("exceeds"), std::string::npos) << error;
}

TEST(Generators, HelpMentionsEveryKind) {
  std::string help = genSpecHelp();
  for (const char *kind : {"uniform", "rmat", "banded", "block", "clustered"})
    EXPECT_NE(help.find(kind), std::string::npos) << kind;
}

} // namespace
