#pragma once
// `luztar info` and `luztar compare`: stored results read back (io/hdf5_reader)
// and reported, for regression checks.
#include <optional>
#include <ostream>
#include <string>

namespace luztar::app {

// info FILE: the summary of a stored run (status, solver and its statistics,
// energy balance and residual, events by kind, time stuck), as `run` printed
// it. With `around`: also the events within [around - window, around + window]
// (window default: the run's output step), one per line. Throws
// std::runtime_error for a file that is not a luztar result.
void print_info(std::ostream& out, const std::string& path, std::optional<double> around,
                std::optional<double> window);

struct CompareOptions {
  double tolerance = 1e-9;   // see compare_results
  bool interpolate = false;  // B's signals at A's times (linear), where B's run covers them
};

// compare A B: for every stored signal (time grid, bodies.*.angle|velocity,
// elements.*.torque|state, blocks.*, energy.*) the largest absolute difference
// max_k |a_k - b_k| and the relative one (that divided by max_k |a_k|); the
// event logs element by element (the first event that differs in element, kind
// or states; the largest event-time difference before it). A signal is within
// the tolerance when its absolute difference is <= tolerance * max(1,
// max_k |a_k|); the events when both logs are the same sequence with times
// within tolerance * max(1, t_end). Returns 0 when everything is within, 1
// when not. Throws std::runtime_error when a file cannot be read, or when the
// time grids differ and !interpolate ("the time grids differ (...): compare
// on A's grid with --interpolate").
int compare_results(std::ostream& out, const std::string& a, const std::string& b, const CompareOptions& o);

}  // namespace luztar::app
