#include "app/gui/explorer/figure_builder.h"

#include "app/gui/mailbox_thread.h"

namespace headroom::explorer {

struct FigureBuilder::State {
  gui::MailboxThread<FigureRequest, BuiltFigures> thread{[](std::uint64_t id, FigureRequest& request) {
    auto answer = std::make_shared<BuiltFigures>();
    answer->request = id;
    if (request.rows) {
      answer->rows_version = request.rows->version;
      answer->figures = build_figures(request.rows->suites, request.rows->rows, request.reference_dir,
                                      &answer->warnings, request.axes);
    }
    return std::shared_ptr<const BuiltFigures>(std::move(answer));
  }};
};

FigureBuilder::FigureBuilder() : state_(std::make_unique<State>()) {}

FigureBuilder::~FigureBuilder() = default;

std::uint64_t FigureBuilder::build(FigureRequest request) { return state_->thread.post(std::move(request)); }

std::shared_ptr<const BuiltFigures> FigureBuilder::built() const { return state_->thread.snapshot(); }

}  // namespace headroom::explorer
