#pragma once
// Numbers as text: every number luztar writes (YAML, CSV, HDF5 text, the
// summary's model values) is the shortest text that reads back to the same
// double (std::to_chars), so `rtol: 1e-11` stays 1e-11, not 9.9999999999999994e-12.
#include <charconv>
#include <string>

namespace luztar {

// Writes the shortest round-trip text of v into [first, last) (32 bytes always
// suffice); returns the end. The exponent without leading zeros ("1e-4", not
// to_chars' "1e-04"); "inf", "-inf", "nan" for the non-finite.
inline char* shortest(char* first, char* last, double v) {
  char* end = std::to_chars(first, last, v).ptr;
  char* e = first;
  while (e < end && *e != 'e') ++e;
  if (e == end) return end;
  char* digits = e + 1;
  if (digits < end && (*digits == '-' || *digits == '+')) ++digits;
  char* nonzero = digits;
  while (nonzero + 1 < end && *nonzero == '0') ++nonzero;
  for (char* from = nonzero; from < end;) *digits++ = *from++;
  return digits;
}

inline std::string shortest(double v) {
  char buf[32];
  return std::string(buf, shortest(buf, buf + sizeof buf, v));
}

}  // namespace luztar
