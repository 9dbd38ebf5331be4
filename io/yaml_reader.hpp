#pragma once
// Internal to io/: the strict reader of one model file (io/yaml_model.hpp),
// shared by its parts: the basics (scalars, keys, locations, table files:
// io/yaml_reader.cpp), signals (io/yaml_signals.cpp), elements
// (io/yaml_elements.cpp) and the file's sections (io/yaml_model.cpp). Every
// mistake is a ModelError at file:line:col and the field's dotted path.
#include <yaml-cpp/yaml.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/model_spec.hpp"
#include "core/units.hpp"
#include "io/csv_table.hpp"
#include "io/yaml_model.hpp"

namespace luztar::io::model_file {

class Reader {
 public:
  // origin: the file's name in messages; base_dir: where its table files are
  // looked up; files: their snapshot (null: read from disk).
  Reader(std::string origin, std::string base_dir, InputFiles* files)
      : origin_(std::move(origin)), base_dir_(std::move(base_dir)), files_(files) {}

  // --- basics (io/yaml_reader.cpp) ---
  std::string where(const YAML::Mark& m) const;
  [[noreturn]] void fail(const YAML::Node& n, const std::string& field, const std::string& detail) const;
  // Records where a field was written, for rule errors found after parsing
  // (ModelSpec::locations, looked up by where(spec, field)).
  void remember(const std::string& field, const YAML::Node& n);

  const YAML::Node& require_map(const YAML::Node& n, const std::string& field) const;
  void check_keys(const YAML::Node& map, const std::string& field, const std::vector<const char*>& allowed) const;
  YAML::Node required(const YAML::Node& map, const char* key, const std::string& field) const;
  // A number, optionally with a unit of the field's dimension (core/units.hpp), in SI.
  double number(const YAML::Node& n, const std::string& field);
  double number(const YAML::Node& n, const std::string& field, Dimension dim);
  double number_or(const YAML::Node& map, const char* key, const std::string& parent, double fallback);
  long integer(const YAML::Node& n, const std::string& field);
  std::string text(const YAML::Node& n, const std::string& field);
  static const char* kind(const YAML::Node& n);

  // A table file, from the snapshot when it holds it, else from disk (kept in
  // the snapshot); `first`: what its first column holds ("time", "speed").
  Table table(const std::string& path, const char* first = "time");
  // A file named in the model: relative to the model's folder.
  std::string model_relative(const std::string& name) const;

  // A list of pairs `[x, y]` at `f` (f[i] each) into x and y, x of dimension
  // dx, y of dy; each(i, field) is called after pair i is read.
  template <class Each>
  void point_pairs(const YAML::Node& pts, const std::string& f, const char* pair, Dimension dx, Dimension dy,
                   std::vector<double>& x, std::vector<double>& y, Each&& each) {
    remember(f, pts);
    if (!pts.IsSequence()) fail(pts, f, std::string("expected a list of ") + pair + " pairs");
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const std::string pf = f + "[" + std::to_string(i) + "]";
      if (!pts[i].IsSequence() || pts[i].size() != 2) fail(pts[i], pf, std::string("expected a ") + pair + " pair");
      x.push_back(number(pts[i][0], pf, dx));
      y.push_back(number(pts[i][1], pf, dy));
      each(i, pf);
    }
  }

  // --- signals (io/yaml_signals.cpp) ---
  // A signal: a number (with a unit), a signal's name, or {kind: ...}.
  Signal signal(const YAML::Node& n, const std::string& field);
  // The input and the sample period of a sampled block.
  void sampled_block(const YAML::Node& body, const std::string& f, Signal& s);

  // --- elements (io/yaml_elements.cpp) ---
  // An element: its kind by `type`, then its kind's field table
  // (core/model_spec.hpp), keys checked against it.
  ElementSpec element(const std::string& name, const YAML::Node& e, const std::string& field);
  SpeedTable speed_table(const YAML::Node& body, const std::string& f, Dimension speed_dim, Dimension value_dim);
  template <class S>
  void bounds(const YAML::Node& n, const std::string& at, const SpecField<S>& f, S& s);
  template <class S>
  void points(const YAML::Node& n, const std::string& at, const SpecField<S>& f, S& s);
  template <class S>
  bool one_of_two(const YAML::Node& e, const std::string& field, const SpecField<S>& f, const S& s);
  void attachment(const YAML::Node& e, const std::string& field, std::string& a, std::string& b,
                  std::vector<CoordinateTerm>* coordinate);
  void read_coordinate(const YAML::Node& n, const std::string& at, std::vector<CoordinateTerm>& out);
  template <class Fields>
  void written_together(const YAML::Node& e, const std::string& field, const Fields& fields) const;
  template <class S>
  void read_field(const YAML::Node& e, const std::string& field, const SpecField<S>& f, S& s);

  // --- the file's sections (io/yaml_model.cpp) ---
  void simulation(const YAML::Node& n, SimulationSettings& s);
  template <class F>
  void named_entries(const YAML::Node& map, const std::string& field, bool column, F&& each);
  // The whole file: name, description, simulation, signals, bodies, elements.
  ModelSpec model(const YAML::Node& root);

 private:
  // A body's or element's own dimension in the current context: translational()
  // of it while a translational body or an element on translational bodies is read.
  Dimension in_context(Dimension d) const { return translational_owner_.empty() ? d : translational(d); }
  // A unit error in the current context: a rotational unit given on a
  // translational owner says so ("..., but element 'stop' acts on a translational coordinate (...)").
  std::string unit_error(const std::string& text, Dimension dim, const std::string& error) const;
  // Whether the element `e` is on translational bodies only (its `body`,
  // `bodies`, `coordinate` or `rack`), as read so far.
  bool on_translational_bodies(const YAML::Node& e) const;
  void body(const std::string& name, const YAML::Node& n, const std::string& f, BodySpec& b);
  void prescribed(const YAML::Node& n, const std::string& f, BodySpec& b);

  std::string origin_, base_dir_;
  std::set<std::string> translational_bodies_;  // the translational bodies read so far
  // While a translational body or an element on translational bodies is read:
  // what it is ("body 'rack' is translational", "element 'stop' acts on a
  // translational coordinate"); "" otherwise.
  std::string translational_owner_;
  std::map<std::string, std::string> locations_;
  InputFiles* files_;  // null: tables are read from disk
};

}  // namespace luztar::io::model_file
