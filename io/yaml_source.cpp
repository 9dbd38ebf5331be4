#include "io/yaml_source.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

namespace luztar::io {

std::string location(const std::string& origin, const YAML::Mark& m) {
  if (origin.rfind("--", 0) == 0) return origin;
  if (m.line < 0) return origin + ":1:1";
  return origin + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

namespace {

// Length of the UTF-8 sequence starting at s[i], or 0 if it is not valid
// (overlong forms, surrogates and code points above U+10FFFF included).
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return c == 0 ? 0 : 1;
  std::size_t n = 0;
  unsigned lo = 0x80, hi = 0xBF;  // bounds of the second byte
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const unsigned b = byte(i + k);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return 0;
  }
  return n;
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
                         location(origin_, mark));
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

YAML::Node parse_yaml(const std::string& text, const std::string& origin, const char* what) {
  int line = 1, column = 1;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[i])));
      throw ModelError("", std::string("the ") + what + " is not UTF-8 text (byte " + hex + "; a binary file?)",
                       origin + ":" + std::to_string(line) + ":" + std::to_string(column));
    }
    if (text[i] == '\n') ++line, column = 1;
    else ++column;
    i += n;
  }
  YAML::Node root;
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    AliasCycles cycles(origin);
    parser.HandleNextDocument(cycles);
    root = YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {  // its own text is "bad file"
    throw ModelError("", "the YAML is nested too deeply (yaml-cpp's parser stops at a depth of 2000)",
                     location(origin, e.mark));
  } catch (const YAML::Exception& e) {
    throw ModelError("", "YAML syntax error: " + e.msg, location(origin, e.mark));
  }
  if (!root || root.IsNull()) throw ModelError("", std::string("the ") + what + " is empty", origin + ":1:1");
  return root;
}

std::string key_of(const YAML::Node& key, const std::string& field, const std::string& origin) {
  if (key.IsScalar()) return key.Scalar();
  const char* got = key.IsMap() ? "a mapping" : key.IsSequence() ? "a list" : "nothing (null)";
  throw ModelError(field, std::string("a key must be a plain name, got ") + got, location(origin, key.Mark()));
}

}  // namespace luztar::io
