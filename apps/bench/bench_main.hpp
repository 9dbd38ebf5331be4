#pragma once
// The entry of a benchmark program: its arguments checked (--help prints the
// usage; an option it does not know is an error), its body run, and a failure
// inside it (a model file that cannot be read) reported as one line and exit
// status 2 rather than an uncaught exception.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <initializer_list>
#include <string>
#include <vector>

namespace luztar::app {

// body(args) gets the arguments after the program name; options: the ones it takes.
template <class Body>
int bench_main(int argc, char** argv, const char* usage, std::initializer_list<const char*> options, Body&& body) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& a : args) {
    if (a == "-h" || a == "--help") {
      std::printf("%s\n", usage);
      return 0;
    }
    if (a.size() > 1 && a[0] == '-' &&
        std::none_of(options.begin(), options.end(), [&](const char* o) { return a == o; })) {
      std::fprintf(stderr, "%s: unknown option '%s'\n%s\n", argv[0], a.c_str(), usage);
      return 2;
    }
  }
  try {
    return body(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 2;
  }
}

}  // namespace luztar::app
