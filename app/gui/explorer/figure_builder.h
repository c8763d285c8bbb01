// The paper figures built off the UI thread: a rebuild parses every stored suite's TOML and reads
// the reference CSVs it names from disk, which a frame must not wait for (and, while a worker
// writes, the rows change every second or so).
//
// The UI posts the rows snapshot with each figure's x axis; a background thread answers with the
// figures (and their warnings), tagged with the request and the rows version they were built
// from. Latest wins, as the table's order (table_order.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/explorer/explorer_loader.h"
#include "app/gui/explorer/figures.h"

namespace headroom::explorer {

struct FigureRequest {
  std::shared_ptr<const RowsSnapshot> rows;
  std::string reference_dir;               // where the suites' [suite] reference CSVs are
  std::map<std::string, FigureAxis> axes;  // by suite name; absent: the figure's default
};

struct BuiltFigures {
  std::uint64_t request = 0;       // the request this answers (0: none yet)
  std::uint64_t rows_version = 0;  // RowsSnapshot::version the figures were built from
  std::vector<Figure> figures;     // in the store's suite order
  std::string warnings;            // problems with reference files, one line each
};

class FigureBuilder {
 public:
  FigureBuilder();
  ~FigureBuilder();
  FigureBuilder(const FigureBuilder&) = delete;
  FigureBuilder& operator=(const FigureBuilder&) = delete;

  // Replaces any pending request; returns its id.
  std::uint64_t build(FigureRequest request);
  // The newest answer; never null (request 0 and no figures before the first).
  std::shared_ptr<const BuiltFigures> built() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace headroom::explorer
