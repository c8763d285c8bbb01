// Where Headroom's shipped data (suites, the papers' reference tables) is found at run time.
#pragma once

#include <string>

namespace headroom::io {

// The directory holding suites/ and reference/, in this order:
//  1. $HEADROOM_ASSETS, when set and not empty;
//  2. <this program's directory>/../share/headroom -- an installed Headroom (`cmake --install`,
//     the .deb), wherever its prefix is;
//  3. the source tree's assets/, only for a program run from inside the build tree it was built in
//     (an installed program never reads the source tree, even if it still exists).
// When none exists, (2)'s path, so a message naming it says where the data was expected.
std::string share_dir();

// The running program's own path (/proc/self/exe), or "" when it cannot be read.
std::string self_path();

}  // namespace headroom::io
