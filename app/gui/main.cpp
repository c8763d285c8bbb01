// headroom: the desktop GUI. Parses the command line and hands over to App.
#include <malloc.h>

#include <iostream>

#include "app/gui/app.h"
#include "app/gui/gui_options.h"
#include "core/io/blocking_io.h"

int main(int argc, char** argv) {
  // Everything that reads a DB or decodes a checkpoint belongs to a background owner; the state
  // file reports any that ran here (the GUI tests require none).
  headroom::io::mark_ui_thread();
  // The explorer builds and drops tables of up to 100,000 rows (~150 MB). glibc's defaults hand
  // freed heap back to the kernel and fault it in again page by page, which was ~35% of opening
  // such a DB here (README, explorer at 100,000 runs). Keep up to 1 GB of freed heap for reuse.
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  headroom::gui::GuiOptions options;
  const headroom::gui::ParseResult parsed =
      headroom::gui::parse_gui_options(argc, argv, &options, std::cout, std::cerr);
  if (!parsed.run) return parsed.exit_code;
  headroom::gui::App app(std::move(options));
  return app.run();
}
