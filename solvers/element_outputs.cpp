#include "solvers/element_outputs.hpp"

#include <limits>

#include "elements/kinds.hpp"

namespace luztar {

namespace {

// Element (row, i)'s coordinate row, and the sign s of its power s T x' (a row
// +1; a one-body element -1: its body's angle); s = 0: none (a kind with neither).
double coordinate_of(const Model& m, const ElementKindInfo& row, int i, CoordinateRow& r) {
  if (row.relation) {
    r = row.relation(m, i);
    return 1.0;
  }
  if (row.body) {
    r = two_body_row(row.body(m, i), kGround, 1.0);
    return -1.0;
  }
  return 0.0;
}

// The one walk over the dissipative elements (ElementKindInfo::dissipation),
// in kSumOrder: f(row, i, k) for the k-th of them. Returns their count; the
// list, its count and the powers share it, so they agree by construction and
// counting allocates nothing.
template <class F>
int for_each_dissipative(const Model& m, F&& f) {
  int k = 0;
  for_each_element(m, kSumOrder, [&](const ElementKindInfo& row, int i) {
    if (row.dissipation) f(row, i, k++);
  });
  return k;
}

}  // namespace

void OutputSample::resize(const Model& m) {
  const std::size_t ne = static_cast<std::size_t>(m.num_elements());
  for (std::vector<double>* v : {&torque, &relative, &rate, &power, &dissipated}) v->resize(ne);
  state.resize(ne);
  acceleration.resize(m.reported_body_names.size());  // the removed bodies' too
  drive_torque.resize(m.driven_bodies.empty() ? 0 : m.reported_body_names.size());
}

void drive_torques(const Model& m, const Workspace& ws, std::vector<double>& out) {
  std::fill(out.begin(), out.end(), 0.0);
  if (out.empty()) return;
  for (int p : m.driven_bodies) out[static_cast<std::size_t>(p)] = ws.drive_torque[p];
}

void append_sample(const OutputSample& s, Result& r) {
  const auto append = [](std::vector<double>& to, const std::vector<double>& from) {
    to.insert(to.end(), from.begin(), from.end());
  };
  append(r.element_torque, s.torque);
  r.element_state.insert(r.element_state.end(), s.state.begin(), s.state.end());
  append(r.element_relative, s.relative);
  append(r.element_relative_velocity, s.rate);
  append(r.element_power, s.power);
  append(r.element_dissipated, s.dissipated);
  append(r.acceleration, s.acceleration);
  append(r.drive_torque, s.drive_torque);
}

void element_outputs(const Model& m, const State& modes, const Workspace& ws, double* torque,
                     std::int8_t* state) {
  const ModeFrame frame = mode_frame(&modes, ws);
  for_each_element(m, kSumOrder, [&](const ElementKindInfo& row, int i) {
    const int e = m.elements_of(row.kind)[i];
    const ElementOutput o = as_written(m, row, i, e, row.output(m, i, frame));
    torque[e] = o.torque;
    state[e] = o.state;
  });
}

std::vector<ElementCoordinate> element_coordinate_rows(const Model& m) {
  std::vector<ElementCoordinate> rows(static_cast<std::size_t>(m.num_elements()));
  for_each_element(m, kSumOrder, [&](const ElementKindInfo& row, int i) {
    const int e = m.elements_of(row.kind)[i];
    ElementCoordinate& c = rows[static_cast<std::size_t>(e)];
    c.has = coordinate_of(m, row, i, c.row) != 0.0;
    c.scale = output_scale(m, e);
  });
  return rows;
}

void element_coordinates(const std::vector<ElementCoordinate>& rows, const double* q, const double* w, double* x,
                         double* rate) {
  for (std::size_t e = 0; e < rows.size(); ++e) {
    const ElementCoordinate& c = rows[e];
    x[e] = c.has ? row_value(c.row, q) / c.scale : 0.0;
    rate[e] = c.has ? row_value(c.row, w) / c.scale : 0.0;
  }
}

double element_rate(const Model& m, int e, const double* w) {
  const ElementKindInfo& row = element_kind_info(m.element_kind[e]);
  CoordinateRow r;
  return coordinate_of(m, row, m.element_index[e], r) != 0.0 ? row_value(r, w) / output_scale(m, e) : 0.0;
}

std::vector<double> power_signs(const Model& m) {
  std::vector<double> sign(static_cast<std::size_t>(m.num_elements()), 0.0);
  for_each_element(m, kSumOrder, [&](const ElementKindInfo& row, int i) {
    CoordinateRow r;
    sign[static_cast<std::size_t>(m.elements_of(row.kind)[i])] = coordinate_of(m, row, i, r);
  });
  return sign;
}

void element_powers(const Model& m, const double* torque, const double* rate, double* power) {
  for_each_element(m, kSumOrder, [&](const ElementKindInfo& row, int i) {
    const int e = m.elements_of(row.kind)[i];
    CoordinateRow r;
    power[e] = coordinate_of(m, row, i, r) * torque[e] * rate[e];
  });
}

void body_accelerations(const Model& m, const ModeStructure& ms, const Workspace& ws, double* acc) {
  const LockedClusters& c = ms.clusters;
  for (int j = 0; j < m.num_bodies(); ++j)
    acc[j] = m.massless(j)                  ? std::numeric_limits<double>::quiet_NaN()
             : c.grounded[c.cluster_of[j]] ? 0.0
                                           : body_acceleration(c, j, ws.acc.data(), ws.slot_acc.data());
  // a removed body's through the bodies left (acc is both the model bodies' and the reported ones')
  reported_bodies(m, ws.q.data(), acc, nullptr, acc);
}

std::vector<int> dissipative_elements(const Model& m) {
  std::vector<int> ids;
  for_each_dissipative(m, [&](const ElementKindInfo& row, int i, int) { ids.push_back(m.elements_of(row.kind)[i]); });
  return ids;
}

int dissipative_element_count(const Model& m) {
  return for_each_dissipative(m, [](const ElementKindInfo&, int, int) {});
}

int element_dissipation_powers(const Model& m, const State& modes, const Workspace& ws, double* power) {
  const ModeFrame frame = mode_frame(&modes, ws);
  return for_each_dissipative(m, [&](const ElementKindInfo& row, int i, int k) {
    power[k] = row.dissipation(m, i, frame);
  });
}

}  // namespace luztar
