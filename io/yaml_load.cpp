#include "io/yaml_load.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <map>
#include <sstream>
#include <vector>

#include "core/errors.hpp"

namespace luztar::io {

namespace {

std::string where(const std::string& origin, const YAML::Mark& m) {
  return origin + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

// Parser events of one document: the anchors of the collections still open;
// an alias to one of them is the collection inside itself.
class AliasCycles : public YAML::EventHandler {
 public:
  explicit AliasCycles(const std::string& origin) : origin_(origin) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override { pending_.clear(); }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {
    pending_.clear();
  }
  void OnAnchor(const YAML::Mark&, const std::string& name) override { pending_ = name; }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    for (YAML::anchor_t a : open_)
      if (a == anchor)
        throw ModelError("", "the alias *" + names_[anchor] + " lies inside the node &" + names_[anchor] +
                                 " it refers to (a node cannot contain itself)",
                         where(origin_, mark));
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(anchor);
  }
  void OnSequenceEnd() override { open_.pop_back(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(anchor);
  }
  void OnMapEnd() override { open_.pop_back(); }

 private:
  void open(YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) names_[anchor] = pending_;
    pending_.clear();
    open_.push_back(anchor);
  }
  const std::string& origin_;
  std::vector<YAML::anchor_t> open_;             // anchors of the open collections (NullAnchor: none)
  std::map<YAML::anchor_t, std::string> names_;  // anchor id -> its name in the text
  std::string pending_;                          // name of the anchor of the next node
};

}  // namespace

YAML::Node load_yaml_text(const std::string& text, const std::string& origin) {
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    AliasCycles cycles(origin);
    parser.HandleNextDocument(cycles);
    return YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {  // its own text is "bad file"
    throw ModelError("", "the YAML is nested too deeply (yaml-cpp's parser stops at a depth of 2000)",
                     where(origin, e.mark));
  } catch (const YAML::ParserException& e) {
    throw ModelError("", "YAML syntax error: " + e.msg, where(origin, e.mark));
  }
}

}  // namespace luztar::io
