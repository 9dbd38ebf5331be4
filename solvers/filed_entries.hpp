#pragma once
// A few entries filed under one key (a shelf), least recently used replaced:
// where the simulator keeps what it built for a structure (static splits,
// Delassus blocks), so that meeting the structure again costs no allocation
// and no rebuild. Entry needs a `long used` stamp.
#include <cstddef>
#include <vector>

namespace luztar {

// The entry `same` accepts (found = true), else the least recently used one
// when the shelf is full, else a new one (found = false: the caller fills it).
template <class Entry, class Same>
Entry& file_lookup(std::vector<Entry>& shelf, long now, Same&& same, bool& found, std::size_t per_shelf = 4) {
  Entry* oldest = nullptr;
  for (Entry& e : shelf) {
    if (same(e)) {
      e.used = now;
      found = true;
      return e;
    }
    if (!oldest || e.used < oldest->used) oldest = &e;
  }
  if (!oldest || shelf.size() < per_shelf) {
    shelf.emplace_back();
    oldest = &shelf.back();
  }
  oldest->used = now;
  found = false;
  return *oldest;
}

}  // namespace luztar
