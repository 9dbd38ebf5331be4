#pragma once
// The fast modes of a mode's augmented matrix, split off in closed form, so
// that the exact integrator's sub-steps follow the slow dynamics (issue 17).
//
// A stiff freeplay spring in contact, a light gear wheel or a massless body on
// a viscous bearing gives the augmented matrix A eigenvalues far larger than
// the rest (a 1 kHz mesh mode beside a 1 Hz drive). A Taylor series of
// exp(A s) must then take sub-steps of ~0.5/|lambda_max|; here the fast
// eigenvalues are taken out instead:
//
//   z = T x,  x = [x_s; x_f],  T^-1 A T = diag(A_s, Lambda),
//
// x_s (m) spans the slow invariant subspace (an orthonormal basis Y_s of it:
// T = [Y_s, ...]), on which A_s = Y_s^T A Y_s has a small norm and may be
// defective (rigid-body modes, frozen velocity slots, the exosystem's
// polynomial pieces: all of it in the Taylor series); x_f holds one coordinate
// per real fast eigenvalue and two (Re xi, Im xi) per complex pair, xi_k = u_k z
// with u_k the left eigenvector (u_k A = lambda_k u_k, u_k v_k = 1), so that
// the fast part of z is sum_k v_k xi_k (real) + 2 Re(v_k xi_k) (pairs) and
// xi_k(s) = e^{lambda_k s} xi_k exactly, for any s.
//
// Which eigenvalues are fast: |lambda| > radius (the caller's choice: the
// slow block must be Taylor-expandable over its sub-step). A fast eigenvalue
// must be semisimple and well separated: repeated ones (a symmetric design)
// are taken as one cluster whose left and right eigenvectors are
// bi-orthonormalised; a cluster that does not bi-orthonormalise (a Jordan
// block: a critically damped mode, a resonance with the drive) stays slow.
// The split is checked (||T^-1 T - I||, ||T^-1 A T - diag(A_s, Lambda)||,
// cond(T)); when a check fails, everything is slow (fast_dims() == 0): the
// integrator is then the plain Taylor one, correct but with short sub-steps.
#include <complex>
#include <vector>

#include <Eigen/Dense>

namespace luztar::exact {

struct FastMode {
  std::complex<double> lambda;  // eigenvalue (Im >= 0 for a pair's representative)
  int index;                    // its first coordinate in x (pairs: Re xi at index, Im xi at index + 1)
  bool pair() const { return lambda.imag() != 0.0; }
};

struct ModalSplit {
  int slow = 0;                     // m, dimension of x_s (the first m coordinates of x)
  int inert = 0;                    // r: the first r coordinates of x_s are the inert directions K
  Eigen::MatrixXd T, Tinv;          // z = T x, x = Tinv z (N x N)
  Eigen::MatrixXd As;               // m x m, the slow block
  std::vector<FastMode> fast;       // the fast eigenvalues, one per real one or conjugate pair
  double condition = 1.0;           // ||T||_inf ||Tinv||_inf (1 when nothing is split)
  // Entries of As at or below this are its product's roundoff (1e-14 of
  // the largest entry of |Tinv_s| |A Ys|, times the condition; balance()).
  double roundoff = 0.0;
  int fast_dims() const { return static_cast<int>(T.rows()) - slow; }
};

// Splits off the eigenvalues of A beyond `radius` (see above). K (N x r,
// orthonormal): directions with A K = 0 that nothing reads (the absolute
// angles of freely turning groups); they lie in the slow subspace and become
// its first r coordinates, with exactly zero columns in As, so that a large
// angle never meets the others in a product. With nothing to split, or when a
// check fails: slow = N, T an orthonormal basis beginning with K, As = T^T A T.
// horizon: the longest time a sub-step propagates a fast mode over (an
// eigenvalue's roundoff accrues over it): a cluster whose roundoff would
// exceed 1e-11 of the state there (an eigenvalue close to a Jordan block,
// a drive at a lightly damped resonance) stays slow.
// unscaled: the last coordinates of z, the exosystem's states, which the
// balancing keeps at scale 1. Balanced like the model's, a drive's states
// were scaled by 2^-10 (their columns hold k / I times its amplitude), so
// x carried them 1024 times their size, and the split, exact to eps of x,
// put eps times that into the model's coordinates: a steering column's
// velocity 5.4e-13 rad/s off from the first sample, constant (the fast
// mode's quasi-static answer to the rounding of U Y_s at that size; twin
// steering robots at 1 ms, one copy; 1.5e-16 with the states unscaled).
ModalSplit split_modes(const Eigen::MatrixXd& A, double radius, double horizon, const Eigen::MatrixXd& K,
                       Eigen::Index unscaled = 0);
// The same without splitting anything off.
ModalSplit unsplit(const Eigen::MatrixXd& A, const Eigen::MatrixXd& K, Eigen::Index unscaled = 0);

}  // namespace luztar::exact
