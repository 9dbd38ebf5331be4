#pragma once
// Reads a (time, value) table from a CSV file for table signals (and a
// (speed, value) table for friction tables).
// Format: two numeric columns separated by a comma (or ';' / whitespace); an
// optional first line of column names; '#' starts a comment. Times must
// increase strictly. Errors name the file and line.
#include <string>
#include <vector>

namespace luztar::io {

struct Table {
  std::vector<double> t, v;
};

// Throws std::runtime_error("file:line: ..."), or ModelError when the file cannot
// be read (io/text_file.hpp). `first`: what the first column holds, in the
// messages ("time"; a friction table's "speed"); it must increase strictly.
Table read_csv_table(const std::string& path, const char* first = "time");
// The same in two steps: the file's text (throws std::runtime_error("file: ...")
// when it cannot be read), and the table in a text read from `path`.
std::string read_table_file(const std::string& path);
Table parse_csv_table(const std::string& text, const std::string& path, const char* first = "time");

}  // namespace luztar::io
