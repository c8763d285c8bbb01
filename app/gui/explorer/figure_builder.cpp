#include "app/gui/explorer/figure_builder.h"

#include "app/gui/mailbox_thread.h"

namespace headroom::explorer {

std::vector<Figure> build_snapshot_figures(const RowsSnapshot& rows, const std::string& reference_dir,
                                           const std::map<std::string, FigureAxis>& axes, std::string* warnings) {
  const auto pooled = pooled_suites(rows.suites);
  std::vector<Figure> figures;
  for (size_t i = 0; i < rows.suites.size(); ++i) {
    const auto& suite = rows.suites[i];
    const auto chosen = axes.find(suite.name);
    const FigureAxis axis = chosen != axes.end() ? chosen->second : FigureAxis::Default;
    if (auto f = build_figure(suite, rows.rows, reference_dir, warnings, axis, pooled[i]))
      figures.push_back(std::move(*f));
  }
  return figures;
}

struct FigureBuilder::State {
  gui::MailboxThread<FigureRequest, BuiltFigures> thread{[](std::uint64_t id, FigureRequest& request) {
    auto answer = std::make_shared<BuiltFigures>();
    answer->request = id;
    if (request.rows) {
      answer->rows_version = request.rows->version;
      answer->figures = build_snapshot_figures(*request.rows, request.reference_dir, request.axes, &answer->warnings);
    }
    return std::shared_ptr<const BuiltFigures>(std::move(answer));
  }};
};

FigureBuilder::FigureBuilder() : state_(std::make_unique<State>()) {}

FigureBuilder::~FigureBuilder() = default;

std::uint64_t FigureBuilder::build(FigureRequest request) { return state_->thread.post(std::move(request)); }

std::shared_ptr<const BuiltFigures> FigureBuilder::built() const { return state_->thread.snapshot(); }

}  // namespace headroom::explorer
