#pragma once
// Matrix exponentials and Van Loan's block-exponential integrals for the exact
// integrator (issue 17).
//
//   expm(A)                     e^A by scaling and squaring with a Pade approximant
//                               (Eigen's unsupported MatrixFunctions; Higham 2005)
//   propagator(A, Q, h)         Phi = e^{A h} and, per symmetric Q_j,
//                               W_j = int_0^h e^{A^T s} Q_j e^{A s} ds, so that for
//                               z(s) = e^{A s} z0:  int_0^h z^T Q_j z ds = z0^T W_j z0.
//                               W_j is read from one exponential of the 2N x 2N block
//                               matrix [[-A^T, Q_j], [0, A]] h = [[F, G], [0, Phi]]:
//                               W_j = Phi^T G (Van Loan 1978, Theorem 1).
// Accuracy: the Pade approximant is exact to roundoff relative to ||A h||
// scaled; keep ||A h|| moderate (the integrator's sub-steps have ||A h|| <= 1 in
// a balanced basis) so that the e^{-A^T h} block of a damped mode does not grow
// and swamp G.
#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

#include <Eigen/Dense>

namespace luztar::exact {

Eigen::MatrixXd expm(const Eigen::MatrixXd& A);

struct Propagator {
  double h = 0.0;
  Eigen::MatrixXd Phi;             // e^{A h}, N x N
  std::vector<Eigen::MatrixXd> W;  // per quadrature, N x N symmetric
};

Propagator propagator(const Eigen::MatrixXd& A, const std::vector<Eigen::MatrixXd>& Q, double h);

// A bounded least-recently-used cache of propagators keyed by (mode id, h).
// The mode id is the caller's number for an augmented matrix (the same id must
// always mean the same A and Q); h is compared bit for bit.
class PropagatorCache {
 public:
  explicit PropagatorCache(std::size_t capacity = 1024) : capacity_(capacity) {}
  // The propagator of mode `mode` for step h: cached, or computed from (A, Q).
  const Propagator& get(std::int64_t mode, const Eigen::MatrixXd& A, const std::vector<Eigen::MatrixXd>& Q, double h);
  // Drops every entry of mode `mode` (its id is about to be reused).
  void forget(std::int64_t mode);
  std::size_t size() const { return entries_.size(); }
  long hits() const { return hits_; }
  long misses() const { return misses_; }

 private:
  struct Key {
    std::int64_t mode;
    std::uint64_t h_bits;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return std::hash<std::int64_t>()(k.mode) ^ (std::hash<std::uint64_t>()(k.h_bits) * 0x9e3779b97f4a7c15ull);
    }
  };
  using Entry = std::pair<Key, Propagator>;
  std::size_t capacity_;
  std::list<Entry> entries_;  // most recent first
  std::unordered_map<Key, std::list<Entry>::iterator, KeyHash> index_;
  long hits_ = 0, misses_ = 0;
};

}  // namespace luztar::exact
