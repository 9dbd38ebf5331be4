#include "solvers/exact/matrix_exponential.hpp"

#include <bit>

#include <unsupported/Eigen/MatrixFunctions>

namespace luztar::exact {

Eigen::MatrixXd expm(const Eigen::MatrixXd& A) { return A.exp(); }

Propagator propagator(const Eigen::MatrixXd& A, const std::vector<Eigen::MatrixXd>& Q, double h) {
  const Eigen::Index n = A.rows();
  Propagator p;
  p.h = h;
  p.Phi = expm(A * h);
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(2 * n, 2 * n);
  M.topLeftCorner(n, n) = -A.transpose() * h;
  M.bottomRightCorner(n, n) = A * h;
  for (const Eigen::MatrixXd& q : Q) {
    M.topRightCorner(n, n) = q * h;
    const Eigen::MatrixXd E = expm(M);
    Eigen::MatrixXd W = E.bottomRightCorner(n, n).transpose() * E.topRightCorner(n, n);
    p.W.push_back(0.5 * (W + W.transpose()));
  }
  return p;
}

const Propagator& PropagatorCache::get(std::int64_t mode, const Eigen::MatrixXd& A,
                                       const std::vector<Eigen::MatrixXd>& Q, double h) {
  const Key key{mode, std::bit_cast<std::uint64_t>(h)};
  if (auto it = index_.find(key); it != index_.end()) {
    ++hits_;
    entries_.splice(entries_.begin(), entries_, it->second);
    return it->second->second;
  }
  ++misses_;
  entries_.emplace_front(key, propagator(A, Q, h));
  index_[key] = entries_.begin();
  while (entries_.size() > capacity_) {
    index_.erase(entries_.back().first);
    entries_.pop_back();
  }
  return entries_.front().second;
}

void PropagatorCache::forget(std::int64_t mode) {
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->first.mode == mode) {
      index_.erase(it->first);
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace luztar::exact
