//===- GeneratorSupport.cpp - What the generators share -------------------===//

#include "GeneratorSupport.h"

#include <algorithm>
#include <cmath>
#include <iterator>

using namespace sptune::detail;

void sptune::detail::mergeDistinct(std::vector<uint64_t> &out,
                                   std::vector<uint64_t> &batch) {
  std::sort(batch.begin(), batch.end());
  batch.erase(std::unique(batch.begin(), batch.end()), batch.end());
  if (out.empty()) {
    out.swap(batch);
    return;
  }
  std::vector<uint64_t> merged;
  merged.reserve(out.size() + batch.size());
  std::set_union(out.begin(), out.end(), batch.begin(), batch.end(),
                 std::back_inserter(merged));
  out.swap(merged);
}

void sptune::detail::sampleDistinct(uint64_t n, uint64_t k, Rng &rng,
                                    std::vector<uint64_t> &out) {
  out.clear();
  if (k == 0)
    return;
  if (n <= 16 * k) {
    // Selection sampling (Knuth's algorithm S): one pass over [0, n), exact.
    out.reserve(k);
    uint64_t needed = k;
    for (uint64_t i = 0; i < n && needed; ++i)
      if (rng.below(n - i) < needed) {
        out.push_back(i);
        --needed;
      }
    return;
  }
  // Sparse case: draw, drop repeats, top up. Each round leaves a fraction
  // below k / n <= 1/16 of the shortfall, so few rounds are needed.
  std::vector<uint64_t> batch;
  while (out.size() < k) {
    batch.resize(k - out.size());
    for (uint64_t &v : batch)
      v = rng.below(n);
    mergeDistinct(out, batch);
  }
}

void sptune::detail::splitSpec(std::string_view text, size_t prefixLength,
                               std::string_view &kind,
                               std::string_view &params) {
  std::string_view rest = text.substr(prefixLength);
  size_t colon = rest.find(':');
  kind = rest.substr(0, colon);
  params = colon == std::string_view::npos ? std::string_view()
                                           : rest.substr(colon + 1);
}

bool sptune::detail::splitSpecItems(std::string_view params,
                                    std::vector<SpecItem> &items,
                                    std::string &error) {
  items.clear();
  while (!params.empty()) {
    size_t comma = params.find(',');
    std::string_view item = params.substr(0, comma);
    params = comma == std::string_view::npos ? std::string_view()
                                             : params.substr(comma + 1);
    if (item.empty() || (comma != std::string_view::npos && params.empty())) {
      error = "empty parameter (stray ',')";
      return false;
    }
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      error = "expected key=value, found '" + std::string(item) + "'";
      return false;
    }
    items.push_back({std::string(item.substr(0, eq)), item.substr(eq + 1)});
  }
  return true;
}

bool sptune::detail::parseInt(std::string_view text, int64_t &out) {
  auto [q, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && q == text.data() + text.size();
}

bool sptune::detail::parseUnsigned(std::string_view text, uint64_t &out) {
  auto [q, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && q == text.data() + text.size();
}

bool sptune::detail::parseReal(std::string_view text, double &out) {
  auto [q, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && q == text.data() + text.size() &&
         std::isfinite(out);
}
