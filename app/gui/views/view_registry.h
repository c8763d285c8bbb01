// The list of views (tabs) the GUI shows, in tab order.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/gui/views/view.h"

namespace headroom::gui {

std::vector<std::unique_ptr<View>> make_views(ViewContext& context);

// Index of the view called `name`, matched case-insensitively and ignoring spaces,
// '-' and '_' ("widgets-demo" finds "Widgets demo"); -1 when none matches.
int find_view(const std::vector<std::unique_ptr<View>>& views, const std::string& name);

// "'Widgets demo', 'About'" for error messages.
std::string view_names_list(const std::vector<std::unique_ptr<View>>& views);

}  // namespace headroom::gui
