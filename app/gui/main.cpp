// headroom: the desktop GUI. Parses the command line and hands over to App.
#include <iostream>

#include "app/gui/app.h"
#include "app/gui/gui_options.h"
#include "core/io/blocking_io.h"

int main(int argc, char** argv) {
  // Everything that reads a DB or decodes a checkpoint belongs to a background owner; the state
  // file reports any that ran here (the GUI tests require none).
  headroom::io::mark_ui_thread();
  headroom::gui::GuiOptions options;
  const headroom::gui::ParseResult parsed =
      headroom::gui::parse_gui_options(argc, argv, &options, std::cout, std::cerr);
  if (!parsed.run) return parsed.exit_code;
  headroom::gui::App app(std::move(options));
  return app.run();
}
