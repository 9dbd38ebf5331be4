#pragma once
// Mechanical energy stored in a Model at a given state.
#include <cmath>
#include <vector>

#include "core/model.hpp"

namespace luztar {

// Kinetic energy 1/2 sum I_j w_j^2 [J].
double kinetic_energy(const Model& m, const std::vector<double>& w);
// (The elastic energy is the element kinds': elements/kinds.hpp, elastic_energy.)
// The coordinate x = sum c_k q_k of a spring (two bodies: q_a - p q_b; core/coordinate.hpp);
// given velocities instead of angles, its rate x'.
inline double spring_deflection(const Spring& s, const double* q) { return row_value(s.row, q); }
inline double spring_deflection(const Spring& s, const std::vector<double>& q) { return spring_deflection(s, q.data()); }
// The relative velocity v = sum c_k w_k of a friction element (a clutch: q_a' - q_b').
inline double slip_velocity(const Friction& f, const double* w) { return row_value(f.row, w); }
inline double slip_velocity(const Friction& f, const std::vector<double>& w) { return slip_velocity(f, w.data()); }

}  // namespace luztar

#include "core/result.hpp"

namespace luztar {

// The kinetic energy of r's initial condition, before the events at t_start
// (sample 0 is the state after them: an impact or a velocity projection at
// t_start). Only velocities jump at an event and what they lose is booked as
// dissipated (inputs do no work in an instant), so it is sample 0's kinetic
// energy plus sample 0's accounts; the elastic energy there is sample 0's, and
// the accounts (input work, dissipated, per element too) count from 0 [J].
double kinetic_at_start(const Result& r);

// Energy balance of a run from its initial condition to sample k: input work =
// change of kinetic + change of elastic + dissipated, events at t_start
// included. residual = input - (the three); relative = |residual| / the
// largest of the terms, the largest any of them reached up to sample k
// (energy_peak: a drive cycle that ends at rest has terms of roundoff at its
// end, and its residual, the roundoff of 2000 J exchanged, read as 100 %),
// the initial energy, and the energies' roundoff (64 eps times the largest sum
// of |element torque x its coordinate| at sample 0 or k: terms all below it
// are roundoff).
struct EnergyBalance {
  double input = 0.0, kinetic_change = 0.0, elastic_change = 0.0, dissipated = 0.0;
  double residual = 0.0, relative = 0.0;
};
EnergyBalance energy_balance(const Result& r, int k);
// The largest |term| of the balance over samples 0..k [J].
double energy_peak(const Result& r, int k);
// The same from its terms [J] (an embedded Simulator's, at its state):
// stored0 the initial kinetic + elastic energy or the terms' peak, the
// larger; roundoff the energies' roundoff.
EnergyBalance energy_balance(double input, double kinetic_change, double elastic_change, double dissipated,
                             double stored0, double roundoff);
// The energies' roundoff at one state [J]: 64 eps times the sum over the ne
// elements of |torque x| (x the coordinate each acts on: the work its torque
// can do over its angle; an energy is a sum of such products).
double energy_roundoff(const double* torque, const double* x, int ne);

// A run whose relative energy residual at its last sample exceeds this is
// flagged as suspect (RunStats::energy_residual_exceeded). The models in
// models/ close their balance to 1e-6 or better at their settings; a residual
// of 1e-3 means the integration lost or made energy: tolerances too loose, or
// a time step too coarse for the stiffest spring (README, "Energy balance").
inline constexpr double kEnergyResidualLimit = 1e-3;
// The exact integrator's energies are closed-form integrals, so its residual
// is roundoff: 7e-14 on the gear train, 6e-11 on contacts of 1e12 N m/rad
// between wheels of 1e-6 and 1e-2 kg m^2 (since its slow blocks are oblique
// projections: 6e-8 before, and the limit 1e-6). Above this limit its
// self-check failed (a mode split too ill-conditioned to keep momentum, e.g.
// 1e18 N m/rad overdamped: 2.2e-7), and the run is flagged; `auto` repeats it
// with cvode_bdf (solvers/simulator.cpp).
inline constexpr double kExactEnergyResidualLimit = 1e-8;
// The limit for r's integrator (kExactEnergyResidualLimit for exact).
double energy_residual_limit(const Result& r);
double energy_residual_limit(const std::string& integrator);

// The largest fall of r's dissipated energy below its running maximum [J]
// and the time of the sample where it is reached (0, NaN when it never falls),
// relative to the run's scale (the balance's: its largest term, or the
// initial kinetic + elastic energy if larger).
// Dissipation only grows; a fall is kinetic energy an impulse created.
struct DissipationFall {
  double fall = 0.0;  // [J]
  double time = NAN;  // [s]
  double relative = 0.0;
};
DissipationFall dissipation_fall(const Result& r);

// Books the energy balance of r in r.stats (energy_residual: the largest
// relative residual over its samples, each against the run's largest term,
// at the last sample alone for time stepping, whose samples between steps
// are no states of the scheme; energy_residual_exceeded, set too when the
// dissipated energy falls by more than the limit of the same scale,
// dissipation_fall); nothing for a run without samples.
void check_energy_balance(Result& r);

}  // namespace luztar
