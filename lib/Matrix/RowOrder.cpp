//===- RowOrder.cpp - Orders in which to visit a matrix's rows ------------===//

#include "sptune/Matrix/RowOrder.h"

#include <algorithm>
#include <limits>
#include <numeric>

using namespace sptune;

std::string sptune::whyNoReverseCuthillMcKee(const CsrMatrix &m) {
  if (m.rows != m.cols)
    return "the matrix is not square (" + std::to_string(m.rows) + " x " +
           std::to_string(m.cols) +
           "): reverse Cuthill-McKee orders the graph of a square matrix";
  if (m.rows > std::numeric_limits<int32_t>::max())
    return "the matrix has more than 2^31 - 1 rows";
  return "";
}

std::vector<int32_t> sptune::reverseCuthillMcKee(const CsrMatrix &m) {
  const int64_t n = m.rows;
  // The symmetrized pattern without self-loops, as adjacency lists:
  // m's entries and those of its transpose, merged per row.
  std::vector<int64_t> degree(n + 1, 0);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t p = m.rowPtr[r]; p < m.rowPtr[r + 1]; ++p)
      if (m.colIdx[p] != r) {
        ++degree[r];
        ++degree[m.colIdx[p]];
      }
  std::vector<int64_t> start(n + 1, 0);
  for (int64_t r = 0; r < n; ++r)
    start[r + 1] = start[r] + degree[r];
  std::vector<int32_t> adj(start[n]);
  std::vector<int64_t> fill(start.begin(), start.end() - 1);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t p = m.rowPtr[r]; p < m.rowPtr[r + 1]; ++p) {
      int32_t c = m.colIdx[p];
      if (c == r)
        continue;
      adj[fill[r]++] = c;
      adj[fill[c]++] = static_cast<int32_t>(r);
    }
  // Duplicates ((i, j) and (j, i) both stored) counted once.
  for (int64_t r = 0; r < n; ++r) {
    auto first = adj.begin() + start[r], last = adj.begin() + start[r + 1];
    std::sort(first, last);
    degree[r] = std::unique(first, last) - first;
  }

  // Vertices by ascending degree (ties by number): the starts of the
  // components, lowest degree first.
  std::vector<int32_t> byDegree(n);
  std::iota(byDegree.begin(), byDegree.end(), 0);
  std::stable_sort(byDegree.begin(), byDegree.end(),
                   [&](int32_t a, int32_t b) { return degree[a] < degree[b]; });

  std::vector<int32_t> order;
  order.reserve(n);
  std::vector<char> visited(n, 0);
  auto byDegreeThenNumber = [&](int32_t a, int32_t b) {
    return degree[a] != degree[b] ? degree[a] < degree[b] : a < b;
  };
  for (int32_t root : byDegree) {
    if (visited[root])
      continue;
    visited[root] = 1;
    size_t head = order.size();
    order.push_back(root);
    // `order` is the queue: [head, size) are queued, not yet expanded.
    while (head < order.size()) {
      int32_t v = order[head++];
      size_t queued = order.size();
      for (int64_t p = start[v]; p < start[v] + degree[v]; ++p) {
        int32_t w = adj[p];
        if (!visited[w]) {
          visited[w] = 1;
          order.push_back(w);
        }
      }
      std::sort(order.begin() + queued, order.end(), byDegreeThenNumber);
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}
