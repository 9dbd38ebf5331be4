#pragma once
// Reading an input file (model, sweep, table) whole. Only a regular file is
// read: a directory, a device (/dev/zero never ends) or a pipe (blocks) named
// where a file belongs is refused before it is opened.
#include <string>

namespace luztar::io {

// The text of the file at `path`. Throws ModelError (where = `path`)
// "cannot open the <what>: <reason>", e.g.
//   data/x.csv: cannot open the table file: No such file or directory
//   /dev/zero: cannot open the table file: it is a character device, not a regular file
std::string read_text_file(const std::string& path, const std::string& what);

}  // namespace luztar::io
