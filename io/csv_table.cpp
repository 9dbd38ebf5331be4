#include "io/csv_table.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "io/text_file.hpp"

namespace luztar::io {

namespace {
bool parse_number(const std::string& s, double& out) {
  std::size_t used = 0;
  try {
    out = std::stod(s, &used);
  } catch (const std::exception&) {
    return false;
  }
  while (used < s.size() && std::isspace(static_cast<unsigned char>(s[used]))) ++used;
  return used == s.size();
}
std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}
}  // namespace

std::string read_table_file(const std::string& path) { return read_text_file(path, "table file"); }

Table read_csv_table(const std::string& path, const char* first) {
  return parse_csv_table(read_table_file(path), path, first);
}

Table parse_csv_table(const std::string& text, const std::string& path, const char* first) {
  std::istringstream in(text);
  Table table;
  std::string line;
  int lineno = 0;
  bool header_allowed = true;
  while (std::getline(in, line)) {
    ++lineno;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    line = trim(line);
    if (line.empty()) continue;
    for (char& c : line)
      if (c == ';' || c == '\t') c = ',';
    std::vector<std::string> cells;
    if (line.find(',') != std::string::npos) {
      std::stringstream ss(line);
      std::string cell;
      while (std::getline(ss, cell, ',')) cells.push_back(trim(cell));
    } else {
      std::stringstream ss(line);
      std::string cell;
      while (ss >> cell) cells.push_back(cell);
    }
    const std::string where = path + ":" + std::to_string(lineno) + ": ";
    double t = 0.0, v = 0.0;
    if (cells.size() != 2)
      throw std::runtime_error(where + "expected 2 columns (" + first + ", value), found " + std::to_string(cells.size()));
    const bool ok_t = parse_number(cells[0], t), ok_v = parse_number(cells[1], v);
    if (!ok_t || !ok_v) {
      if (header_allowed) {  // a line of column names
        header_allowed = false;
        continue;
      }
      throw std::runtime_error(where + "'" + (ok_t ? cells[1] : cells[0]) + "' is not a number");
    }
    header_allowed = false;
    if (!std::isfinite(t) || !std::isfinite(v)) throw std::runtime_error(where + "values must be finite");
    if (!table.t.empty() && !(t > table.t.back())) {
      std::ostringstream os;
      os << where << first << " " << t << " is not " << (std::string(first) == "time" ? "later" : "greater")
         << " than " << table.t.back() << " on the line before (" << first << "s must increase strictly)";
      throw std::runtime_error(os.str());
    }
    table.t.push_back(t);
    table.v.push_back(v);
  }
  if (table.t.empty()) throw std::runtime_error(path + ": the table has no data rows");
  return table;
}

}  // namespace luztar::io
