#pragma once
// The links of the variable structure, numbered in one range so that static
// splits, mode selection and roots treat them alike: friction element i is
// link i (a stuck bearing or clutch, w_a = w_b), the rigid freeplay spring s is
// link nf + s (teeth in persistent contact, w_a = p w_b, the contact torque
// one-sided: side * lambda >= 0).
#include "bodies/clusters.hpp"
#include "core/model.hpp"

namespace luztar {

inline int num_links(const Model& m) { return static_cast<int>(m.frictions.size() + m.springs.size()); }
inline bool is_contact_link(const Model& m, int link) { return link >= static_cast<int>(m.frictions.size()); }
inline int contact_link(const Model& m, int spring) { return static_cast<int>(m.frictions.size()) + spring; }
inline int link_spring(const Model& m, int link) { return link - static_cast<int>(m.frictions.size()); }

inline Link link_of(const Model& m, int link) {
  if (!is_contact_link(m, link)) return {m.frictions[link].a, m.frictions[link].b, 1.0};
  const Spring& s = m.springs[link_spring(m, link)];
  return {s.a, s.b, s.ratio};
}

}  // namespace luztar
