//===- Functional.cpp - Numeric execution of a SPADE program --------------===//

#include "spade/Functional.h"

#include "spade/SpadeKernels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace sptune;
using namespace sptune::spade;

static double uniformValue(uint64_t seed, uint64_t index) {
  uint64_t x = seed * 0x9e3779b97f4a7c15ULL + index + 0x632be59bd9b4e019ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return double(x >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

SpadeDenseInputs sptune::makeSpadeInputs(const CsrMatrix &m, KernelType kernel,
                                         int64_t free, uint64_t seed) {
  SpadeDenseInputs in;
  in.free = free;
  in.b.resize(size_t(m.cols * free));
  for (size_t n = 0; n < in.b.size(); ++n)
    in.b[n] = uniformValue(seed, n);
  if (spadeSamples(kernel)) {
    in.a.resize(size_t(m.rows * free));
    for (size_t n = 0; n < in.a.size(); ++n)
      in.a[n] = uniformValue(seed + 0x51ed27, n);
  }
  return in;
}

std::vector<double> sptune::runSpadeFunctional(const SpadeBoundProgram &bound,
                                               const SpadeDenseInputs &in) {
  const CsrMatrix &m = *bound.matrix;
  const SpadeProgram &p = *bound.program;
  const TileIndex &tiles = *bound.tiles;
  const int64_t f = in.free;
  const bool sddmm = spadeSamples(p.kernel);
  std::vector<double> out(size_t(sddmm ? m.nnz() : m.rows * f), 0.0);

  // Phase by phase, each PE's tiles in program order.
  std::vector<std::vector<size_t>> byPe(size_t(p.pes));
  std::vector<double> partial(static_cast<size_t>(f), 0.0);
  auto runTile = [&](size_t instr) {
    const SpadeTile &t = p.instrs[instr].tile;
    const bool acc = tiles.accumulates(instr);
    int32_t id = tiles.tileOf(instr);
    for (const Segment *s = tiles.segmentsBegin(id), *e = tiles.segmentsEnd(id);
         s != e; ++s) {
      if (sddmm) {
        const double *arow = &in.a[size_t(s->row * f)];
        for (int64_t n = s->begin; n < s->begin + s->length; ++n) {
          const double *brow = &in.b[size_t(int64_t(m.colIdx[size_t(n)]) * f)];
          double dot = 0;
          for (int64_t x = t.freeBegin; x < t.freeEnd; ++x)
            dot += arow[x] * brow[x];
          double v = m.values[size_t(n)] * dot;
          out[size_t(n)] = acc ? out[size_t(n)] + v : v;
        }
        continue;
      }
      std::fill(partial.begin() + t.freeBegin, partial.begin() + t.freeEnd,
                0.0);
      for (int64_t n = s->begin; n < s->begin + s->length; ++n) {
        const double a = m.values[size_t(n)];
        const double *brow = &in.b[size_t(int64_t(m.colIdx[size_t(n)]) * f)];
        for (int64_t x = t.freeBegin; x < t.freeEnd; ++x)
          partial[size_t(x)] += a * brow[x];
      }
      double *crow = &out[size_t(s->row * f)];
      for (int64_t x = t.freeBegin; x < t.freeEnd; ++x)
        crow[x] = acc ? crow[x] + partial[size_t(x)] : partial[size_t(x)];
    }
  };
  auto flush = [&]() {
    for (std::vector<size_t> &list : byPe) {
      for (size_t instr : list)
        runTile(instr);
      list.clear();
    }
  };
  for (size_t n = 0; n < p.instrs.size(); ++n) {
    if (p.instrs[n].isBarrier())
      flush();
    else
      byPe[size_t(p.instrs[n].tile.pe)].push_back(n);
  }
  flush();
  return out;
}

std::vector<double> sptune::spadeReference(const CsrMatrix &m,
                                           KernelType kernel,
                                           const SpadeDenseInputs &in,
                                           std::vector<double> *scale) {
  const int64_t f = in.free;
  const bool sddmm = spadeSamples(kernel);
  std::vector<double> ref(size_t(sddmm ? m.nnz() : m.rows * f), 0.0);
  if (scale)
    scale->assign(ref.size(), 0.0);
  for (int64_t r = 0; r < m.rows; ++r) {
    for (int64_t n = m.rowPtr[size_t(r)]; n < m.rowPtr[size_t(r) + 1]; ++n) {
      const double v = m.values[size_t(n)];
      const double *brow = &in.b[size_t(int64_t(m.colIdx[size_t(n)]) * f)];
      if (sddmm) {
        const double *arow = &in.a[size_t(r * f)];
        double dot = 0, mag = 0;
        for (int64_t x = 0; x < f; ++x) {
          dot += arow[x] * brow[x];
          mag += std::fabs(arow[x] * brow[x]);
        }
        ref[size_t(n)] = v * dot;
        if (scale)
          (*scale)[size_t(n)] = std::fabs(v) * mag;
        continue;
      }
      for (int64_t x = 0; x < f; ++x) {
        ref[size_t(r * f + x)] += v * brow[x];
        if (scale)
          (*scale)[size_t(r * f + x)] += std::fabs(v * brow[x]);
      }
    }
  }
  return ref;
}

std::string sptune::compareSpadeResults(const std::vector<double> &got,
                                        const std::vector<double> &ref,
                                        const std::vector<double> &scale,
                                        double tolerance, KernelType kernel,
                                        int64_t free) {
  if (got.size() != ref.size())
    return "result has " + std::to_string(got.size()) +
           " elements, the reference " + std::to_string(ref.size());
  size_t bad = 0, worst = 0;
  double worstRatio = 0;
  for (size_t n = 0; n < got.size(); ++n) {
    double err = std::fabs(got[n] - ref[n]);
    double bound = tolerance * std::max(scale[n], 1e-300);
    if (!(err <= bound)) {
      ++bad;
      double ratio = err / std::max(scale[n], 1e-300);
      if (bad == 1 || ratio > worstRatio || std::isnan(err)) {
        worstRatio = ratio;
        worst = n;
      }
    }
  }
  if (!bad)
    return "";
  char buf[256];
  if (spadeSamples(kernel))
    std::snprintf(buf, sizeof(buf), "entry %zu", worst);
  else
    std::snprintf(buf, sizeof(buf), "C[%lld][%lld]",
                  (long long)(int64_t(worst) / free),
                  (long long)(int64_t(worst) % free));
  std::string where = buf;
  std::snprintf(buf, sizeof(buf), " = %.17g, expected %.17g", got[worst],
                ref[worst]);
  return std::to_string(bad) + " of " + std::to_string(got.size()) +
         " output elements differ from the reference; worst " + where + buf;
}
