#pragma once
// The state of an event-driven simulation as plain data: everything that
// decides how it goes on from its time, and nothing else. It is the snapshot
// (Simulator::snapshot / restore copy this one value); what is derived from it
// (the mode structure, the integrator's vector, its history) is rebuilt by a
// restart, and scratch lives apart (Workspace, the event pipeline's storage).
#include <cstddef>
#include <vector>

#include "core/result.hpp"
#include "core/state.hpp"
#include "solvers/blocks/sampled_blocks.hpp"

namespace luztar {

struct SimData {
  State state;                       // time, angles, velocities, modes, energy accounts
  std::vector<double> inputs;        // (Model::num_input_values) named inputs, then held outputs of sampled blocks
  BlockSampler blocks;               // sampled blocks: their next instant and samples taken (outputs in `inputs`)
  std::vector<double> time_stuck;    // (ne) seconds stuck, booked up to segment_start [s]
  std::vector<double> algebraic_q;   // (nb) last angles of algebraic bodies (warm start of their solve) [rad]
  std::vector<double> recent_events; // times of the latest events, at most simulation.event_storm.events [s]
  double segment_start = 0.0;        // start of the current integrator segment [s]
  std::size_t events = 0;            // length of the event log (set by Simulator::snapshot)
  RunStats stats;                    // event-pipeline counters (the integrator's are added by Simulator::stats)
  bool inputs_changed = false;       // an input was set since the last step
};

}  // namespace luztar
