// png_check FILE.png WIDTH HEIGHT [MIN_COLORS]
// Verifies a screenshot: it loads, has the expected size, and is not blank (at least
// MIN_COLORS distinct colors, default 20). Prints what is wrong and exits 1 otherwise.
#include <stb_image.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr, "usage: png_check FILE.png WIDTH HEIGHT [MIN_COLORS]\n");
    return 2;
  }
  const char* path = argv[1];
  const int want_w = std::atoi(argv[2]), want_h = std::atoi(argv[3]);
  const int min_colors = argc == 5 ? std::atoi(argv[4]) : 20;
  int w = 0, h = 0, channels = 0;
  unsigned char* px = stbi_load(path, &w, &h, &channels, 4);
  if (px == nullptr) {
    std::fprintf(stderr, "png_check: FAIL: cannot load '%s': %s\n", path, stbi_failure_reason());
    return 1;
  }
  int rc = 0;
  if (w != want_w || h != want_h) {
    std::fprintf(stderr, "png_check: FAIL: '%s' is %dx%d, expected %dx%d\n", path, w, h, want_w, want_h);
    rc = 1;
  }
  std::unordered_set<unsigned> colors;
  for (size_t i = 0; i < static_cast<size_t>(w) * h; ++i) {
    unsigned c;
    std::memcpy(&c, px + 4 * i, 4);
    colors.insert(c | 0xFF000000u);  // ignore alpha
  }
  stbi_image_free(px);
  if (static_cast<int>(colors.size()) < min_colors) {
    std::fprintf(stderr, "png_check: FAIL: '%s' has only %zu distinct colors (need >= %d): blank or failed render?\n",
                 path, colors.size(), min_colors);
    rc = 1;
  }
  if (rc == 0) std::printf("png_check: OK: '%s' is %dx%d with %zu distinct colors\n", path, w, h, colors.size());
  return rc;
}
