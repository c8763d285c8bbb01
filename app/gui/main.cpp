// headroom: the desktop GUI. Parses the command line and hands over to App.
#include <iostream>

#include "app/gui/app.h"
#include "app/gui/gui_options.h"

int main(int argc, char** argv) {
  headroom::gui::GuiOptions options;
  const headroom::gui::ParseResult parsed = headroom::gui::parse_gui_options(argc, argv, &options, std::cout, std::cerr);
  if (!parsed.run) return parsed.exit_code;
  headroom::gui::App app(std::move(options));
  return app.run();
}
