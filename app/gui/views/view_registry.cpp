#include "app/gui/views/view_registry.h"

#include <cctype>

#include "app/gui/views/about_view.h"
#include "app/gui/views/explorer_view.h"
#include "app/gui/views/lab_view.h"
#include "app/gui/views/widgets_demo_view.h"

namespace headroom::gui {

std::vector<std::unique_ptr<View>> make_views(ViewContext& context) {
  std::vector<std::unique_ptr<View>> views;
  // To add a view: include its header above and push it here, in tab order.
  views.push_back(std::make_unique<LabView>(context));
  views.push_back(std::make_unique<ExplorerView>(context));
  views.push_back(std::make_unique<WidgetsDemoView>(context));
  views.push_back(std::make_unique<AboutView>(context));
  return views;
}

namespace {
std::string normalize(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != ' ' && c != '-' && c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}
}  // namespace

int find_view(const std::vector<std::unique_ptr<View>>& views, const std::string& name) {
  for (size_t i = 0; i < views.size(); ++i)
    if (views[i]->name() == name) return static_cast<int>(i);
  const std::string want = normalize(name);
  for (size_t i = 0; i < views.size(); ++i)
    if (normalize(views[i]->name()) == want) return static_cast<int>(i);
  return -1;
}

std::string view_names_list(const std::vector<std::unique_ptr<View>>& views) {
  std::string s;
  for (size_t i = 0; i < views.size(); ++i) s += (i ? ", '" : "'") + std::string(views[i]->name()) + "'";
  return s;
}

}  // namespace headroom::gui
