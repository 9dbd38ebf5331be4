#include "elements/freeplay_spring.hpp"

namespace luztar {

std::int8_t freeplay_side(double x, double a, double rate) {
  if (x > a || (x == a && rate > 0.0)) return 1;
  if (x < -a || (x == -a && rate < 0.0)) return -1;
  return 0;
}

double spring_torque(const Spring& s, double x, double rate, std::int8_t side) {
  double elastic = 0.0;
  if (s.freeplay == 0.0) {
    elastic = s.stiffness * x;  // a plain linear spring: no kinks
  } else if (side != 0) {
    elastic = s.stiffness * (x - side * s.freeplay);
  }
  return elastic + s.damping * rate;
}

}  // namespace luztar
