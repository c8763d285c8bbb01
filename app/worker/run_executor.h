// Trains one claimed run to the end, committing progress to the store as it goes:
// - metrics every few seconds (and always with a checkpoint), each commit one transaction;
// - every K steps a checkpoint (model + AdamW state + step) in the same transaction as the
//   metrics up to that step, plus model-only weights for the GUI, plus P_l / P_w snapshots for
//   talking-heads kinds;
// - on start, a run with a checkpoint resumes from it and first drops whatever the crashed
//   attempt logged after it, so the final metrics equal an uninterrupted run's.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "experiments_db/run_store.h"

namespace headroom::worker {

enum class RunOutcome { Finished, Cancelled, Failed, Stopped };

// A clean stop: after SIGTERM or SIGINT (Ctrl-C) the run being trained finishes its step,
// checkpoints there, commits, goes back to the queue (RunStore::release) and execute_run
// returns Stopped; the commands then exit 0. A second signal exits at once (the run is then
// resumed from its last checkpoint like after a crash). Signals are forwarded to the
// processes registered with forward_stop_to (the `--workers N` children).
void install_stop_handlers();
bool stop_requested();
void forward_stop_to(const std::vector<int>& pids);

struct ExecOptions {
  std::string worker_id;
  std::string device = "cpu";  // resolved (resolve_device): every run this worker claims trains here
  bool quiet = false;
  bool tty = false;                // one updating line per run instead of plain lines
  double commit_interval_s = 2.0;  // metrics reach the DB at least this often
  // A full checkpoint (weights + AdamW moments, 12 bytes a parameter: what a resume needs) at most
  // this often, in seconds since the run's last one (or its start): at a checkpoint_every step
  // before that, only the weights (4 bytes a parameter, what the GUI reads) are stored. The last
  // step and a stop always write one. 0: at every checkpoint_every step, as the run's spec says.
  double checkpoint_interval_s = 0;
  // Testing aid: exit the process abruptly (no unwinding, like SIGKILL) after this step.
  int64_t crash_after_step = -1;
};

// Never throws for a training failure: the run is marked failed with the message, which is
// also returned in *error. Throws DbError only when the store itself fails.
RunOutcome execute_run(db::RunStore& store, const db::RunRecord& run, const ExecOptions& options, std::string* error);

// Process-wide settings for training: torch's intra-op threads (`threads`; 0: $OMP_NUM_THREADS if
// set, else every core), OpenBLAS at one thread (the model splits its matmuls over torch's pool),
// and glibc malloc tuned to keep big attention buffers mapped (see README, "Performance").
void configure_training_process(int threads);

}  // namespace headroom::worker
