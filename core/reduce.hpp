#pragma once
// Reduction of the redundant model with the luz/tar algebra (Part 2, section 4):
// the limits "small inertia -> 0" and "large stiffness -> infinity" taken
// exactly on the model description, as in Simplifications 1-3.
//
//  1. Rigid connection (a spring with stiffness .inf and no freeplay,
//     q_a = p q_b): the lighter body is expressed through the other and merged
//     into it with its reflected inertia p^2 I; its springs, bearings and torques
//     are carried over with the ratio applied (Theorem 3.2: k luz(p x, a) =
//     p^2 k luz(x, a/p) seen from the kept body, mu tar(p v, MT0/mu) likewise).
//     Simplification 3.
//  2. Massless frictionless body between two undamped freeplay springs: the
//     torque balance k1 luz(x1, a1) = k2 luz(x2, a2) with x1 + x2 = x is solved by
//     Theorem 3.6 (the series case of Theorem 4.3): one spring of stiffness
//     (1/k1 + 1/k2)^-1 and freeplay a1 + a2 on x. Repeated along a gear train it
//     gives Simplification 2: k = (1/k_psidelta + 1/k_deltagamma + p^2/k_gammaphi)^-1,
//     freeplay (psi - delta)_0 + (delta - p gamma)_0 + p (gamma - phi)_0.
//     A massless frictionless body on one spring only carries no torque and is
//     dropped with its spring.
//  3. Massless bodies on viscous bearings stay: their equation degenerates to
//     the first-order mu q' = luz(M, MT0) (Theorem 5.3, Simplification 1), which
//     the solver integrates without stick events.
// Anything else massless (a clutch on it, Coulomb friction without a viscous
// part, a torque on a frictionless one, three or more springs on a frictionless
// one, damped springs on it) is a ModelError naming the body. So is a
// measurement (signal kinds angle, velocity) of a massless body a reduction
// eliminates; a rigidly merged body is measured through the body it joins.
#include <map>
#include <string>
#include <vector>

#include "core/model_spec.hpp"

namespace luztar {

struct Reduction {
  ModelSpec spec;                  // the reduced model (valid, nothing left to reduce)
  std::vector<std::string> steps;  // what was done, in the paper's terms, in order
  // Elements a rigid merge carried onto another body, by name: the torque
  // they act with as written is `scale` times the reduced model's (a torque
  // on a wheel merged into its motor through ratio p is p times smaller on
  // the motor). A negative scale also reverses the element's sides. Elements
  // not listed: 1.
  std::map<std::string, double> output_scale;
  // Every body of the file the reduction removed, in the file's order, with
  // what gives its motion from the bodies that stay (core/model.hpp
  // RemovedBody), so that results report every body written:
  //  - merged by a rigid connection: q = factor q_kept (kept "": fixed to the
  //    base, q = 0); `kept` may itself be removed later (a gear merged into a
  //    massless wheel that is then eliminated);
  //  - eliminated massless and frictionless (step 2): its springs' torques
  //    balance, sum k luz(q - u q_other; [lower, upper]) = 0 (each spring as
  //    seen from it when it was eliminated; other "": the base); one spring or
  //    none when it carried no torque.
  struct Removed {
    std::string name, kept;
    double factor = 0.0;
    bool balanced = false;  // eliminated (springs) rather than merged (kept, factor)
    struct Spring {
      std::string other;
      double u = 0.0, k = 0.0, lower = 0.0, upper = 0.0;
    };
    std::vector<Spring> springs;
  };
  std::vector<Removed> removed;
};

Reduction reduce(const ModelSpec& spec);

}  // namespace luztar
