// The explorer's filter box: any text parses or is refused with a message, and a parsed filter
// can be matched against runs without crashing.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "app/gui/explorer/run_filter.h"

namespace {

std::vector<headroom::explorer::RunRow> sample_rows() {
  using headroom::db::RunRecord;
  std::vector<headroom::explorer::RunRow> rows;
  RunRecord a;
  a.id = 1;
  a.suite_name = "th-heads";
  a.name = "th-heads/talking-heads/heads=8";
  a.config_json =
      R"({"model":{"width":64,"depth":2,"vocab":256,"context":64,"embed_rank":0,)"
      R"("attention":{"kind":"talking-heads","heads":8,"d_k":8,"causal":true}},"train":{"lr":0.003,"steps":300}})";
  rows.push_back(headroom::explorer::make_run_row(a, {{"val_loss", 2.5}, {"tokens_per_s", 1e5}}, 2.4));
  RunRecord b;
  b.id = 2;
  b.name = "adhoc";
  b.config_json = "{not json";
  rows.push_back(headroom::explorer::make_run_row(b, {}, headroom::explorer::kNaN));
  return rows;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<headroom::explorer::RunRow> rows = sample_rows();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  const auto filter = headroom::explorer::parse_run_filter(text, &error);
  if (!filter) {
    if (error.empty()) __builtin_trap();  // a refusal always says what is wrong
    return 0;
  }
  for (const auto& row : rows) (void)headroom::explorer::matches(*filter, row);
  return 0;
}
