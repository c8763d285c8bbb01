// The explorer's worker bar: enqueue a suite at a scale, start / stop `headroom-worker serve`
// (a child process, no shell), and its last output lines. The GUI writes to a DB only through
// these worker commands.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "app/gui/explorer/suite_catalog.h"
#include "app/gui/explorer/worker_process.h"
#include "app/gui/views/explorer_session.h"

namespace headroom::gui {

class ExplorerWorkerBar {
 public:
  explicit ExplorerWorkerBar(std::string suites_dir) : suites_dir_(std::move(suites_dir)) {}
  // Every frame, drawn or not: collects output and starts the next queued command.
  void poll(ExplorerSession& session);
  void draw(ExplorerSession& session);
  // An empty DB: offer every quick suite and a worker to run them, and list what each suite is.
  void draw_empty_db_offer(ExplorerSession& session);
  // The shipped suites (io::share_dir()/suites/*.toml), read once.
  const std::vector<explorer::SuiteInfo>& suites() const;
  // What Enqueue would add: "<suite file stem> <scale>" (for the window's state).
  std::string choice() const;
  // Where the empty DB's suite table drew each row (its top, window pixels), by file stem; empty
  // when the explorer last drew no such table (--state-out: tests click a row by name).
  const std::vector<std::pair<std::string, float>>& suite_rows_drawn() const { return suite_rows_; }
  // The combo's open list of suites as last drawn (window pixels: left, top, right, bottom, and the
  // right end of its longest line, which ImGui would cut off at the list's edge); empty when it was
  // closed (--state-out: a test checks that the list and its lines stay inside the window).
  const std::vector<float>& suite_list_drawn() const { return suite_list_; }
  // The suite combo itself, as last drawn (the same four numbers; empty where it was not drawn).
  const std::vector<float>& suite_combo_drawn() const { return suite_combo_; }
  // How many runs Enqueue would add (-1: none, the suite has no values for the scale or cannot be read).
  int choice_runs() const;

 private:
  void start(std::vector<std::string> args, ExplorerSession& session);
  void enqueue_suite(const std::string& suite_file, const std::string& scale, const std::string& db_path);
  // What the suite combo and the Enqueue button say of a suite: what it reproduces, its runs per
  // scale, the full scale's estimate, or why its file cannot be read.
  static std::string describe(const explorer::SuiteInfo& suite);
  // The shipped suites as a table, a row per suite; clicking a row picks it in the combo.
  void draw_suite_table();
  // Points the suite and scale combos at this suite's file (if shipped) and scale.
  void preselect(const std::string& suite_name, const std::string& scale);

  std::string suites_dir_;
  explorer::WorkerProcess worker_;
  std::deque<std::vector<std::string>> queued_commands_;
  int suite_index_ = 0;
  std::string preselected_for_;  // the DB whose suite the combos were last pointed at
  int scale_index_ = 0;
  mutable std::vector<explorer::SuiteInfo> suites_;
  mutable bool suites_loaded_ = false;
  std::vector<std::pair<std::string, float>> suite_rows_;
  std::vector<float> suite_list_, suite_combo_;
};

}  // namespace headroom::gui
