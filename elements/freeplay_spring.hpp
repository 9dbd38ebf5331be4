#pragma once
// Freeplay spring law (Part 2, sections 2.1-2.3): torque T = k luz(x, a) + c x'
// on the relative angle x = q_a - p q_b. T acts as -T on body a and +p T on b.
//
// Inside the variable structure the spring is on one side of its freeplay:
// side 0 (|x| < a, no contact, T = c x'), +1 (x >= a, T = k (x - a) + c x') or
// -1 (x <= -a, T = k (x + a) + c x'). The two kinks of luz are events:
// x - a = 0 and x + a = 0.
#include <cstdint>

#include "core/model.hpp"

namespace luztar {

// Freeplay side for a deflection x and its rate; exactly at a boundary the
// rate tells which side the motion goes to.
std::int8_t freeplay_side(double x, double a, double rate);

// Spring torque in a given side (equals k luz(x, a) + c x' when side matches x).
double spring_torque(const Spring& s, double x, double rate, std::int8_t side);

// True when the spring has kinks to watch (k > 0 and a > 0).
inline bool has_freeplay_events(const Spring& s) { return s.freeplay > 0.0 && s.stiffness > 0.0; }

}  // namespace luztar
