#include "app/gui/explorer/figure_builder.h"

#include <thread>

#include "app/gui/mailbox.h"
#include "app/gui/thread_priority.h"

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
  gui::Mailbox<FigureRequest, BuiltFigures> box;
  std::thread thread;  // last: starts once the mailbox exists

  void loop() {
    // Below the UI thread like the explorer's reader: the tab keeps its last figures meanwhile.
    gui::lower_this_thread_priority(5);
    std::optional<decltype(box)::Taken> taken;
    while (box.wait(&taken)) {
      if (!taken) continue;
      auto answer = std::make_shared<BuiltFigures>();
      answer->request = taken->id;
      if (const auto& rows = taken->request.rows) {
        answer->rows_version = rows->version;
        answer->figures =
            build_snapshot_figures(*rows, taken->request.reference_dir, taken->request.axes, &answer->warnings);
      }
      box.publish(std::move(answer));
    }
  }
};

FigureBuilder::FigureBuilder() : state_(std::make_unique<State>()) {
  state_->thread = std::thread([s = state_.get()] { s->loop(); });
}

FigureBuilder::~FigureBuilder() {
  state_->box.close();
  state_->thread.join();
}

std::uint64_t FigureBuilder::build(FigureRequest request) { return state_->box.post(std::move(request)); }

std::shared_ptr<const BuiltFigures> FigureBuilder::built() const { return state_->box.snapshot(); }

}  // namespace headroom::explorer
