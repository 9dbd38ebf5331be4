#include "solvers/exact/exosystem.hpp"

#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

#include "core/times.hpp"

namespace luztar::exact {

namespace {

using Generator = Exosystem::Generator;
using Eigen::MatrixXd;
using Eigen::RowVectorXd;
using Eigen::VectorXd;

// The power of two nearest a magnitude (1 for 0 or a non-finite one): a
// state's unit, exact to scale by.
double unit_of(double magnitude) {
  return magnitude > 0.0 && std::isfinite(magnitude) ? std::ldexp(1.0, std::ilogb(magnitude)) : 1.0;
}

double magnitude(const Signal& s) { return own_magnitude(s); }

Generator held(double value, double unit = 1.0) {
  Generator g;
  g.S = MatrixXd::Zero(1, 1);
  g.c = RowVectorXd::Ones(1);
  g.xi = VectorXd::Constant(1, value);
  g.unit = VectorXd::Constant(1, unit);
  g.kinks.resize(0, 1);
  return g;
}

// A value that never changes: no state of its own, carried by the shared
// constant xi[0] (every exosystem state costs the integrator N^2 per step and
// N^3 per mode).
Generator fixed(double value) {
  Generator g;
  g.S.resize(0, 0);
  g.c.resize(0);
  g.xi.resize(0);
  g.unit.resize(0);
  g.kinks.resize(0, 0);
  g.constant = value;
  return g;
}

// Value at t0+ and slope of the piece of the linear interpolation in (tt, vv)
// that starts at or contains t0 (held constant outside the knots).
void table_piece(const std::vector<double>& tt, const std::vector<double>& vv, double t0, double& value,
                 double& slope) {
  std::size_t i = 0;  // knots at or before t0
  while (i < tt.size() && at_or_before(tt[i], t0)) ++i;
  slope = 0.0;
  if (i == 0) {
    value = vv.front();
  } else if (i == tt.size()) {
    value = vv.back();
  } else {
    slope = (vv[i] - vv[i - 1]) / (tt[i] - tt[i - 1]);
    value = same_time(tt[i - 1], t0) ? vv[i - 1] : interpolate(tt, vv, t0);
  }
}

Generator piecewise_linear(double value, double slope, double unit) {
  Generator g;
  g.S = MatrixXd::Zero(2, 2);
  g.S(0, 1) = 1.0;
  g.c = RowVectorXd::Zero(2);
  g.c(0) = 1.0;
  g.xi.resize(2);
  g.xi << value, slope;
  g.unit = VectorXd::Constant(2, unit);
  g.kinks.resize(0, 2);
  return g;
}

// Blocks of a and b side by side; outputs added.
Generator side_by_side(const Generator& a, const Generator& b) {
  const Eigen::Index m = a.S.rows(), n = b.S.rows();
  Generator g;
  g.S = MatrixXd::Zero(m + n, m + n);
  g.S.topLeftCorner(m, m) = a.S;
  g.S.bottomRightCorner(n, n) = b.S;
  g.c.resize(m + n);
  g.c << a.c, b.c;
  g.xi.resize(m + n);
  g.xi << a.xi, b.xi;
  g.unit.resize(m + n);
  g.unit << a.unit, b.unit;
  g.kinks = MatrixXd::Zero(a.kinks.rows() + b.kinks.rows(), m + n);
  g.kinks.topLeftCorner(a.kinks.rows(), m) = a.kinks;
  g.kinks.bottomRightCorner(b.kinks.rows(), n) = b.kinks;
  g.kink_list = a.kink_list;
  g.kink_list.insert(g.kink_list.end(), b.kink_list.begin(), b.kink_list.end());
  g.constant = a.constant + b.constant;
  return g;
}

// g with its constant part as a state of its own (products and blocks combine
// states only).
Generator materialized(const Generator& g) {
  if (g.constant == 0.0 && g.S.rows() > 0) return g;
  Generator own = g;
  own.constant = 0.0;
  return side_by_side(own, held(g.constant, unit_of(std::abs(g.constant))));
}

MatrixXd kron(const MatrixXd& a, const MatrixXd& b) {
  MatrixXd k(a.rows() * b.rows(), a.cols() * b.cols());
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j) k.block(i * b.rows(), j * b.cols(), b.rows(), b.cols()) = a(i, j) * b;
  return k;
}

// The product a * b: the Kronecker product of the generators. A factor with
// kinks keeps a copy of its own state beside the product so that the kinks
// stay linear in the state.
Generator times(const Generator& fa, const Generator& fb) {
  const Generator a = materialized(fa), b = materialized(fb);
  const Eigen::Index m = a.S.rows(), n = b.S.rows();
  Generator g;
  g.S = kron(a.S, MatrixXd::Identity(n, n)) + kron(MatrixXd::Identity(m, m), b.S);
  g.c = kron(a.c, b.c);
  g.xi = kron(a.xi, b.xi);
  g.unit = kron(a.unit, b.unit);
  g.kinks.resize(0, m * n);
  for (const Generator* f : {&a, &b}) {
    if (f->kinks.rows() == 0) continue;
    Generator copy = *f;
    copy.c.setZero();
    g = side_by_side(g, copy);
  }
  return g;
}

// The right-limit direction in which c exp(S s) xi leaves its value at s = 0:
// the sign of its first derivative beyond its roundoff (0 when all vanish).
// A derivative at roundoff is zero: a sine at its crest (phase pi/2) has
// cos(pi/2) = 6e-17, not a rise; read as one, a saturation starting on its
// bound was held there (the next derivative says it leaves downwards).
int leaving_sign(const RowVectorXd& c, const MatrixXd& S, const VectorXd& xi) {
  // (the roundoff of a derivative: xi's entries carry theirs relative to
  // its norm, sin and cos of the phase, so the bound is in norms)
  VectorXd v = xi;
  const double s_norm = S.cwiseAbs().rowwise().sum().maxCoeff();
  double scale = c.cwiseAbs().sum() * xi.cwiseAbs().maxCoeff();
  for (Eigen::Index k = 0; k < S.rows(); ++k) {
    v = S * v;
    scale *= s_norm;
    const double d = c.dot(v);
    if (std::abs(d) > 16.0 * std::numeric_limits<double>::epsilon() * scale) return d > 0.0 ? 1 : -1;
  }
  return 0;
}

struct Builder {
  double t0;
  const double* inputs;
  bool select_pieces;
  std::vector<std::int8_t>& pieces;
  std::size_t next_block = 0;

  Generator make(const Signal& s) {
    switch (s.kind) {
      case Signal::Kind::constant:
        return fixed(s.value);
      case Signal::Kind::step:
        return held(evaluate(s, t0), unit_of(magnitude(s)));
      case Signal::Kind::input:
        return held(inputs ? inputs[s.input] : s.value, unit_of(magnitude(s)));
      case Signal::Kind::hold:
      case Signal::Kind::play:
      case Signal::Kind::saturated_integrator:
      case Signal::Kind::relay:
        return held(inputs ? inputs[s.input] : initial_output(s), unit_of(magnitude(s)));
      case Signal::Kind::ramp: {
        if (!(s.end > s.start))
          return held(at_or_before(s.start, t0) ? s.final_value : s.initial, unit_of(magnitude(s)));
        double value = 0.0, slope = 0.0;
        table_piece({s.start, s.end}, {s.initial, s.final_value}, t0, value, slope);
        return piecewise_linear(value, slope, unit_of(magnitude(s)));
      }
      case Signal::Kind::table: {
        double value = 0.0, slope = 0.0;
        table_piece(s.table_t, s.table_v, t0, value, slope);
        return piecewise_linear(value, slope, unit_of(magnitude(s)));
      }
      case Signal::Kind::sine: {
        const double omega = 2.0 * std::numbers::pi * s.frequency;
        const double th = omega * t0 + s.phase;
        Generator g;  // (A sin th, A cos th), the offset on xi[0]
        g.S = MatrixXd::Zero(2, 2);
        g.S(0, 1) = omega;
        g.S(1, 0) = -omega;
        g.c = RowVectorXd::Zero(2);
        g.c << 1.0, 0.0;
        g.xi.resize(2);
        g.xi << s.amplitude * std::sin(th), s.amplitude * std::cos(th);
        g.unit = VectorXd::Constant(2, unit_of(std::abs(s.amplitude)));
        g.kinks.resize(0, 2);
        g.constant = s.offset;
        return g;
      }
      case Signal::Kind::sum: {
        if (s.terms.empty()) return fixed(0.0);
        Generator g = make(s.terms[0]);
        for (std::size_t i = 1; i < s.terms.size(); ++i) g = side_by_side(g, make(s.terms[i]));
        return g;
      }
      case Signal::Kind::product: {
        if (s.terms.empty()) return fixed(1.0);
        Generator g = make(s.terms[0]);
        for (std::size_t i = 1; i < s.terms.size(); ++i) g = times(g, make(s.terms[i]));
        return g;
      }
      case Signal::Kind::dead_zone:
      case Signal::Kind::saturation:
        return block(s);
      case Signal::Kind::angle:
      case Signal::Kind::velocity:
      case Signal::Kind::reference:
        break;
    }
    throw std::invalid_argument(std::string("exosystem: a ") + kind_name(s.kind) +
                                " signal has no linear generator (only sampled blocks read it)");
  }

  Generator block(const Signal& s) {
    const std::size_t id = next_block++;
    if (pieces.size() <= id) pieces.resize(id + 1, 0);
    const Generator of = materialized(make(s.terms[0]));
    const Eigen::Index m = of.S.rows();
    Generator g;
    g.S = MatrixXd::Zero(m + 1, m + 1);
    g.S.topLeftCorner(m, m) = of.S;
    g.xi.resize(m + 1);
    g.xi << of.xi, 1.0;
    g.unit.resize(m + 1);
    g.unit << of.unit, 1.0;
    auto with_constant = [&](double scale_of, double constant) {
      RowVectorXd r(m + 1);
      r << scale_of * of.c, constant;
      return r;
    };
    if (select_pieces) {
      // On a kink to roundoff (the dot product's), the side `of` leaves to.
      const double x = of.c.dot(of.xi);
      const double roundoff = 16.0 * std::numeric_limits<double>::epsilon() * of.c.cwiseAbs().dot(of.xi.cwiseAbs());
      auto on = [&](double bound) { return std::abs(x - bound) <= roundoff + 16.0 * std::numeric_limits<double>::epsilon() * std::abs(bound); };
      const int leaving = leaving_sign(of.c, of.S, of.xi);
      if (std::isfinite(s.upper) && on(s.upper))
        pieces[id] = static_cast<std::int8_t>(leaving > 0 ? 1 : 0);
      else if (std::isfinite(s.lower) && on(s.lower))
        pieces[id] = static_cast<std::int8_t>(leaving < 0 ? -1 : 0);
      else
        pieces[id] = static_cast<std::int8_t>(x > s.upper ? 1 : x < s.lower ? -1 : 0);
    }
    const int piece = pieces[id];
    const bool dead = s.kind == Signal::Kind::dead_zone;
    if (piece > 0)
      g.c = dead ? with_constant(1.0, -s.upper) : with_constant(0.0, s.upper);
    else if (piece < 0)
      g.c = dead ? with_constant(1.0, -s.lower) : with_constant(0.0, s.lower);
    else
      g.c = dead ? with_constant(0.0, 0.0) : with_constant(1.0, 0.0);
    // own kinks first, then those inside `of`
    std::vector<RowVectorXd> rows;
    if (std::isfinite(s.upper)) {
      rows.push_back(with_constant(1.0, -s.upper));
      g.kink_list.push_back({static_cast<int>(id), 1});
    }
    if (std::isfinite(s.lower)) {
      rows.push_back(with_constant(1.0, -s.lower));
      g.kink_list.push_back({static_cast<int>(id), -1});
    }
    g.kinks = MatrixXd::Zero(static_cast<Eigen::Index>(rows.size()) + of.kinks.rows(), m + 1);
    for (std::size_t i = 0; i < rows.size(); ++i) g.kinks.row(static_cast<Eigen::Index>(i)) = rows[i];
    g.kinks.bottomLeftCorner(of.kinks.rows(), m) = of.kinks;
    g.kink_list.insert(g.kink_list.end(), of.kink_list.begin(), of.kink_list.end());
    return g;
  }
};

// True when the tree of s has neither products nor memoryless blocks: its
// generator's layout is then fixed by the tree and fill() writes its state
// without building the generator.
bool fillable(const Signal& s) {
  if (s.kind == Signal::Kind::product || s.kind == Signal::Kind::dead_zone || s.kind == Signal::Kind::saturation)
    return false;
  for (const Signal& t : s.terms)
    if (!fillable(t)) return false;
  return true;
}

// Writes the state of make(s)'s generator at t0+ into xi from index k on (for
// a fillable tree; the same values, the same layout); returns the next index.
// Allocates nothing.
Eigen::Index fill(const Signal& s, double t0, const double* inputs, VectorXd& xi, Eigen::Index k) {
  switch (s.kind) {
    case Signal::Kind::constant: return k;  // on xi[0]
    case Signal::Kind::step: xi(k) = evaluate(s, t0); return k + 1;
    case Signal::Kind::input: xi(k) = inputs ? inputs[s.input] : s.value; return k + 1;
    case Signal::Kind::hold:
    case Signal::Kind::play:
    case Signal::Kind::saturated_integrator:
    case Signal::Kind::relay: xi(k) = inputs ? inputs[s.input] : initial_output(s); return k + 1;
    case Signal::Kind::ramp: {
      if (!(s.end > s.start)) {
        xi(k) = at_or_before(s.start, t0) ? s.final_value : s.initial;
        return k + 1;
      }
      const double tt[2] = {s.start, s.end}, vv[2] = {s.initial, s.final_value};
      std::size_t i = 0;  // as table_piece, over the two knots
      while (i < 2 && at_or_before(tt[i], t0)) ++i;
      const double w = (t0 - tt[0]) / (tt[1] - tt[0]);  // interpolate()'s arithmetic, term by term
      xi(k) = i == 0 ? vv[0]
              : i == 2 ? vv[1]
              : same_time(tt[0], t0) || t0 <= tt[0] ? vv[0]
              : t0 >= tt[1] ? vv[1]
                            : vv[0] + w * (vv[1] - vv[0]);
      xi(k + 1) = i == 1 ? (vv[1] - vv[0]) / (tt[1] - tt[0]) : 0.0;
      return k + 2;
    }
    case Signal::Kind::table: {
      double value = 0.0, slope = 0.0;
      table_piece(s.table_t, s.table_v, t0, value, slope);
      xi(k) = value;
      xi(k + 1) = slope;
      return k + 2;
    }
    case Signal::Kind::sine: {
      const double th = 2.0 * std::numbers::pi * s.frequency * t0 + s.phase;
      xi(k) = s.amplitude * std::sin(th);
      xi(k + 1) = s.amplitude * std::cos(th);
      return k + 2;
    }
    case Signal::Kind::sum: {
      if (s.terms.empty()) return k;  // fixed(0.0): on xi[0]
      for (const Signal& t : s.terms) k = fill(t, t0, inputs, xi, k);
      return k;
    }
    default: break;
  }
  throw std::logic_error("exosystem: fill() on a signal that is not fillable");
}

}  // namespace

Exosystem::Exosystem(std::vector<const Signal*> slots) : slots_(std::move(slots)) {
  fillable_ = true;
  for (const Signal* s : slots_) fillable_ = fillable_ && fillable(*s);
  VectorXd xi;
  build(0.0, nullptr, true, &xi);
}

void Exosystem::state_at(double t0, const double* inputs, Eigen::VectorXd& xi) {
  if (!fillable_) {
    build(t0, inputs, true, &xi);
    return;
  }
  // S, C and the (absent) kinks are fixed: only the state moves.
  xi.resize(S_.rows());
  xi(0) = 1.0;
  Eigen::Index k = 1;
  for (const Signal* s : slots_) k = fill(*s, t0, inputs, xi, k);
  xi.array() /= unit_.array();
}

void Exosystem::cross_kink(int kink, int direction) {
  const Kink k = kink_list_[static_cast<std::size_t>(kink)];
  std::int8_t& piece = pieces_[static_cast<std::size_t>(k.block)];
  if (k.side > 0)
    piece = static_cast<std::int8_t>(direction > 0 ? 1 : 0);
  else
    piece = static_cast<std::int8_t>(direction > 0 ? 0 : -1);
  build(0.0, nullptr, false, nullptr);
}

void Exosystem::breakpoints(double t0, double t1, std::vector<double>& out) const {
  for (const Signal* s : slots_) collect_breakpoints(*s, t0, t1, out);
}

void Exosystem::build(double t0, const double* inputs, bool select_pieces, Eigen::VectorXd* xi) {
  Builder builder{t0, inputs, select_pieces, pieces_};
  Generator all = held(1.0);  // xi[0]: the shared constant
  std::vector<Eigen::Index> offset, width;
  std::vector<RowVectorXd> outputs;
  std::vector<double> constants;
  for (const Signal* s : slots_) {
    const Generator g = builder.make(*s);
    offset.push_back(all.S.rows());
    width.push_back(g.S.rows());
    outputs.push_back(g.c);
    constants.push_back(g.constant);
    Generator own = g;
    own.constant = 0.0;
    all = side_by_side(all, own);
  }
  S_ = all.S;
  C_ = MatrixXd::Zero(static_cast<Eigen::Index>(slots_.size()), S_.rows());
  for (std::size_t k = 0; k < slots_.size(); ++k) {
    C_.block(static_cast<Eigen::Index>(k), offset[k], 1, width[k]) = outputs[k];
    C_(static_cast<Eigen::Index>(k), 0) += constants[k];
  }
  K_ = all.kinks;
  kink_list_ = all.kink_list;
  // each state in its unit (see the header): S's similarity, C's and the kinks' columns
  unit_ = all.unit;
  const Eigen::Index m = S_.rows();
  for (Eigen::Index j = 0; j < m; ++j) {
    for (Eigen::Index i = 0; i < m; ++i) S_(i, j) *= unit_(j) / unit_(i);
    C_.col(j) *= unit_(j);
    K_.col(j) *= unit_(j);
  }
  if (xi) *xi = all.xi.cwiseQuotient(unit_);
}

}  // namespace luztar::exact
