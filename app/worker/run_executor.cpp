#include "app/worker/run_executor.h"

#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <stdexcept>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <iterator>
#include <mutex>
#include <optional>
#include <sstream>

#include "app/worker/run_config.h"
#include "core/attention/fused_attention.h"
#include "core/io/spec_json.h"
#include "core/io/tensor_bridge.h"
#include "core/train/blas_threads.h"
#include "core/train/trainer.h"
#include "experiments_db/db_error.h"

namespace headroom::worker {
namespace {

using Clock = std::chrono::steady_clock;

// Corpora and tokenizers are loaded once per process and shared by its runs.
std::shared_ptr<const core::DataSource> data_for(const core::TrainSpec& t) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const core::DataSource>> cache;
  std::lock_guard<std::mutex> lock(mu);
  const std::string key = t.corpus + "|" + t.tokenizer;
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  std::shared_ptr<const core::DataSource> src(core::make_data_source(t.corpus, t.tokenizer));
  cache.emplace(key, src);
  return src;
}

std::string format_duration(double s) {
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%.0fs", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", int(s) / 3600, (int(s) % 3600) / 60);
  return buf;
}

core::StFile talking_heads_snapshot(core::Trainer& tr) {
  core::StFile f;
  auto& blocks = tr.model()->blocks;
  for (size_t i = 0; i < blocks->size(); ++i) {
    auto* block = blocks[i]->as<core::TransformerBlockImpl>();
    for (const auto& [name, value] : block->attn->th_parameters())
      if (name == "P_l" || name == "P_w")
        f.tensors.push_back(core::to_st_tensor("layer" + std::to_string(i) + "." + name, value));
  }
  f.metadata["step"] = std::to_string(tr.current_step());
  return f;
}

core::StFile weights_only(core::Trainer& tr) {
  core::StFile f;
  for (const auto& item : tr.model()->named_parameters())
    f.tensors.push_back(core::to_st_tensor(item.key(), item.value()));
  f.metadata = {{"format", "headroom weights v1"},
                {"step", std::to_string(tr.current_step())},
                {"model", core::to_json(tr.model_spec()).dump()}};
  return f;
}

volatile sig_atomic_t g_stop = 0;
// Children to pass a stop on to; written before the handler is installed, then only read.
std::array<pid_t, 64> g_forward_pids{};
std::atomic<int> g_forward_count{0};

void on_stop_signal(int signo) {
  if (g_stop) _exit(128 + signo);  // second signal: leave now
  g_stop = 1;
  for (int i = 0; i < g_forward_count.load(); ++i) kill(g_forward_pids[static_cast<size_t>(i)], SIGTERM);
}

}  // namespace

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
}

bool stop_requested() { return g_stop != 0; }

void forward_stop_to(const std::vector<int>& pids) {
  const size_t n = std::min(pids.size(), g_forward_pids.size());
  for (size_t i = 0; i < n; ++i) g_forward_pids[i] = pids[i];
  g_forward_count.store(static_cast<int>(n));
}

void configure_training_process(int threads) {
  // glibc returns big freed blocks to the OS and maps them again next step; for training's
  // 16-64 MB attention tensors that cost 10-25% of step time here. Keep them in the heap.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  // One thread pool over all cores: torch's. The model splits its own matmuls across it
  // (parallel_matmul.h, fused_attention.h), so OpenBLAS runs each part on one thread; an OpenBLAS
  // pool beside torch's would leave the work between GEMMs on one core and spin against it.
  if (threads <= 0) {
    const char* env = std::getenv("OMP_NUM_THREADS");
    threads = env && std::atoi(env) > 0 ? std::atoi(env) : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  }
  at::set_num_threads(threads);
  core::set_openblas_threads(1);
}

namespace {

struct ResumePoint {
  int64_t step = 0;
  core::StFile state;
};

// The newest checkpoint of the run that decodes (its CRC-32 matches), or nullopt. A damaged one is
// said on stderr and skipped: the worker keeps the two newest, so the one before is still there.
// *stored: whether the run had any checkpoint at all, damaged or not.
std::optional<ResumePoint> newest_good_checkpoint(db::RunStore& store, const db::RunRecord& run, bool* stored) {
  const std::string kind(db::kCheckpointArtifact);
  const auto steps = store.artifact_steps(run.id, kind);
  *stored = !steps.empty();
  for (auto step = steps.rbegin(); step != steps.rend(); ++step) {
    const auto ck = store.artifact_at(run.id, kind, *step);
    if (!ck) continue;
    try {
      return ResumePoint{*step,
                         core::decode_safetensors(ck->bytes.data(), ck->bytes.size(),
                                                  "run " + run.name + " checkpoint at step " + std::to_string(*step))};
    } catch (const core::SafetensorsError& e) {
      const auto older = std::next(step);
      std::cerr << run.name << ": " << e.what() << "; "
                << (older != steps.rend() ? "resuming from the checkpoint at step " + std::to_string(*older)
                                          : std::string("no older checkpoint, so training starts again from step 0"))
                << "\n"
                << std::flush;
    }
  }
  return std::nullopt;
}

// A LibTorch without CBLAS trains every attention kind through ATen ops: correct, slower on the
// CPU. Said once per process, on the first CPU run.
void say_once_if_no_fused_core() {
  static bool said = false;
  if (said) return;
  said = true;
  if (const auto why = core::fused_attention_unavailable_reason(); !why.empty())
    std::cerr << "headroom-worker: note: " << why << "\n" << std::flush;
}

// Refuses, before anything is allocated, a CPU run whose weights, gradients and AdamW moments
// (16 bytes a parameter in fp32) alone exceed this machine's memory: allocating them would fail or
// wake the OOM killer, which gives no message at all. Activations come on top.
void check_fits_in_memory(const db::RunRecord& run, const std::string& device) {
  if (device.rfind("cpu", 0) != 0 || run.param_count <= 0) return;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return;
  const double need = 16.0 * static_cast<double>(run.param_count), have = double(pages) * double(page);
  if (need <= have) return;
  std::ostringstream m;
  m.precision(3);
  m << "the model has " << run.param_count << " parameters: its weights, gradients and AdamW state need "
    << need / double(1 << 30) << " GiB (16 bytes a parameter), more than this machine's " << have / double(1 << 30)
    << " GiB; make model.width, model.depth or model.vocab smaller, or train on a GPU with enough memory";
  throw std::runtime_error(m.str());
}

// One line for a training error: LibTorch's exceptions carry a stack trace of ~25 frames, which
// belongs neither on a terminal nor in the DB's error column; running out of memory says so.
std::string describe_error(const std::exception& e) {
  std::string text = e.what();
  if (const auto* c10 = dynamic_cast<const c10::Error*>(&e)) text = c10->what_without_backtrace();
  if (const auto nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  if (text.find("can't allocate memory") != std::string::npos || text.find("out of memory") != std::string::npos)
    text =
        "out of memory: the model, batch or context is too large for this device; make train.batch, "
        "model.context, model.width or model.depth smaller (" +
        text + ")";
  return text;
}

}  // namespace

RunOutcome execute_run(db::RunStore& store, const db::RunRecord& run, const ExecOptions& o, std::string* error) {
  std::string err;
  int64_t saved_step = run.current_step;  // what the DB holds of this run: kept whatever happens next
  try {
    if (!nlohmann::json::accept(run.config_json))  // Headroom writes JSON: the row was edited or damaged
      throw std::invalid_argument(
          "its stored config is not JSON (the DB was edited or damaged); enqueue the run "
          "again, into a new DB if need be");
    RunConfig config = run_config_from_json(nlohmann::json::parse(run.config_json), "run " + run.name);
    // This worker's device, whatever the run last trained on (the claim wrote it into the stored
    // config): checkpoints load onto any device.
    config.train.device = o.device;
    check_fits_in_memory(run, o.device);
    core::Trainer tr(config.model, config.train, data_for(config.train));
    if (tr.device().is_cpu()) say_once_if_no_fused_core();
    const bool th_kind = core::is_talking_heads_family(config.model.attention.kind);
    const auto& ts = config.train;

    double wall = 0;
    db::Progress pending;
    pending.run_id = run.id;
    pending.worker_id = o.worker_id;
    std::vector<std::vector<uint8_t>> blobs;  // owns artifact bytes until committed

    double initial_val = NAN;  // the validation loss before step 1 (a fresh start only)
    bool had_checkpoint = false;
    if (auto resume = newest_good_checkpoint(store, run, &had_checkpoint)) {
      if (!o.quiet) std::cout << "resuming " << run.name << " from step " << resume->step << "\n";
      tr.load_state(resume->state);
      const auto& meta = resume->state.metadata;
      if (auto d = meta.find("device"); !o.quiet && d != meta.end() && d->second != tr.device().str())
        std::cout << run.name << ": the checkpoint at step " << resume->step << " was written on " << d->second
                  << "; training goes on on " << tr.device().str() << "\n";
      if (auto w = meta.find("wall_seconds"); w != meta.end()) wall = std::stod(w->second);
      store.delete_progress_after(run.id, resume->step);
      saved_step = resume->step;
    } else {
      // (Damaged checkpoints were named on stderr by newest_good_checkpoint.)
      if (!o.quiet && run.current_step > 0 && !had_checkpoint)
        std::cout << run.name << ": stopped at step " << run.current_step
                  << " before its first checkpoint was saved, so training starts again from step 0\n";
      store.delete_progress_after(run.id, 0);
      initial_val = tr.evaluate();
      pending.metrics.push_back({"val_loss", 0, 0, 0.0, initial_val});
      if (th_kind) {
        blobs.push_back(core::encode_safetensors(talking_heads_snapshot(tr)));
        pending.artifacts.push_back(
            {std::string(db::kTalkingHeadsArtifact), 0, db::BlobView(blobs.back().data(), blobs.back().size())});
      }
    }
    const int64_t start_step = tr.current_step();
    auto last_commit = Clock::now();
    const auto started = Clock::now();
    auto last_full_checkpoint = started;  // a resumed run has just loaded one; a fresh one has nothing to lose
    double window_seconds = 0;
    int64_t window_tokens = 0;
    double last_loss = NAN, last_val = initial_val, last_tps = NAN;
    int last_printed_decile = -1;
    int64_t last_printed_step = -1;

    auto add_checkpoint = [&](int64_t step) {
      auto state = tr.save_state();
      state.metadata["wall_seconds"] = std::to_string(wall);
      blobs.push_back(core::encode_safetensors(state));
      pending.artifacts.push_back(
          {std::string(db::kCheckpointArtifact), step, db::BlobView(blobs.back().data(), blobs.back().size())});
    };
    auto commit = [&](int64_t step) {
      pending.current_step = step;
      const bool ok = store.commit_progress(pending);
      if (ok) saved_step = step;
      pending.metrics.clear();
      pending.artifacts.clear();
      blobs.clear();
      last_commit = Clock::now();
      return ok;
    };
    auto print = [&](bool final_line) {
      if (o.quiet) return;
      const int64_t step = tr.current_step();
      const double done = double(step - start_step);
      const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
      const double eta = done > 0 ? elapsed / done * double(ts.steps - step) : 0;
      // "-" for what is not measured yet: no validation since a resume, no speed before the first window.
      auto number = [](double v, const char* format) {
        if (!std::isfinite(v)) return std::string("-");
        char text[32];
        std::snprintf(text, sizeof text, format, v);
        return std::string(text);
      };
      char line[512];
      std::snprintf(line, sizeof line, "%s  step %lld/%lld  loss %s  val %s  %s tok/s  ETA %s", run.name.c_str(),
                    static_cast<long long>(step), static_cast<long long>(ts.steps), number(last_loss, "%.4f").c_str(),
                    number(last_val, "%.4f").c_str(), number(last_tps, "%.0f").c_str(), format_duration(eta).c_str());
      if (o.tty) {
        std::cout << "\r\033[K" << line << (final_line ? "\n" : "") << std::flush;
      } else {
        // A line a decile, and the last step's; each step once (the last step's commit printed it).
        const int decile = int(10.0 * step / ts.steps);
        if (step != last_printed_step && (final_line || decile != last_printed_decile)) {
          std::cout << line << "\n" << std::flush;
          last_printed_step = step;
        }
        last_printed_decile = decile;
      }
    };

    while (!tr.finished()) {
      const auto m = tr.step();
      wall += m.seconds;
      window_seconds += m.seconds;
      window_tokens += tr.tokens_per_step();
      last_loss = m.train_loss;
      const bool last = tr.finished();
      if (!std::isfinite(m.train_loss))
        throw std::runtime_error("training diverged at step " + std::to_string(m.step) + " (loss is " +
                                 std::to_string(m.train_loss) + "); lower lr");
      if (m.step % ts.log_every == 0 || last) {
        pending.metrics.push_back({"train_loss", m.step, m.tokens, wall, m.train_loss});
        pending.metrics.push_back({"lr", m.step, m.tokens, wall, m.lr});
        pending.metrics.push_back({"grad_norm", m.step, m.tokens, wall, m.grad_norm});
        last_tps = window_tokens / std::max(1e-9, window_seconds);
        pending.metrics.push_back({"tokens_per_s", m.step, m.tokens, wall, last_tps});
        window_seconds = 0;
        window_tokens = 0;
      }
      if (m.step % ts.eval_every == 0 || last) {
        last_val = tr.evaluate();
        pending.metrics.push_back({"val_loss", m.step, m.tokens, wall, last_val});
        if (th_kind) {
          blobs.push_back(core::encode_safetensors(talking_heads_snapshot(tr)));
          pending.artifacts.push_back(
              {std::string(db::kTalkingHeadsArtifact), m.step, db::BlobView(blobs.back().data(), blobs.back().size())});
        }
      }
      const bool checkpoint = m.step % ts.checkpoint_every == 0 || last;
      const bool full_checkpoint =
          checkpoint && (last || std::chrono::duration<double>(Clock::now() - last_full_checkpoint).count() >=
                                     o.checkpoint_interval_s);
      if (full_checkpoint) add_checkpoint(m.step);
      if (checkpoint) {
        blobs.push_back(core::encode_safetensors(weights_only(tr)));
        pending.artifacts.push_back(
            {std::string(db::kWeightsArtifact), m.step, db::BlobView(blobs.back().data(), blobs.back().size())});
      }
      if (checkpoint || std::chrono::duration<double>(Clock::now() - last_commit).count() > o.commit_interval_s) {
        if (!commit(m.step)) {
          if (!o.quiet) std::cout << (o.tty ? "\n" : "") << run.name << ": cancelled or taken over; stopping\n";
          return RunOutcome::Cancelled;
        }
        // Full checkpoints are large: keep the two newest while training (the older one is the way
        // back when the newer is damaged), the last one when done; weights stay for the GUI.
        if (full_checkpoint) {
          store.prune_artifacts(run.id, std::string(db::kCheckpointArtifact), last ? 1 : 2);
          last_full_checkpoint = Clock::now();
        }
        print(false);
      }
      if (o.crash_after_step >= 0 && m.step >= o.crash_after_step) _exit(137);
      if (stop_requested() && !last) {
        // Checkpoint here (unless this step just did), so no step is trained twice.
        if (!full_checkpoint) add_checkpoint(m.step);
        const bool owned = commit(m.step) && store.release(run.id, o.worker_id);
        store.prune_artifacts(run.id, std::string(db::kCheckpointArtifact), 2);
        if (!o.quiet)
          std::cout << (o.tty ? "\n" : "") << run.name << ": stopped at step " << m.step
                    << (owned ? "; queued again, `serve` resumes it from here\n" : "\n") << std::flush;
        return RunOutcome::Stopped;
      }
    }
    print(true);
    if (!store.finish(run.id, o.worker_id)) return RunOutcome::Cancelled;
    return RunOutcome::Finished;
  } catch (const db::DbError& e) {
    // The store failed (disk full, locked, read-only): nothing more can be written, and nothing
    // committed is lost. Say how much of the run is safe and how to go on.
    throw db::DbError(std::string(e.what()) + ". Run " + run.name + " keeps every step committed before this (" +
                          (saved_step > 0 ? "up to step " + std::to_string(saved_step) : std::string("none yet")) +
                          "); once that is fixed, `headroom-worker serve --db " + store.db_path() +
                          "` resumes it from its last checkpoint",
                      e.sqlite_code());
  } catch (const std::exception& e) {
    err = describe_error(e);
  }
  if (error) *error = err;
  store.fail(run.id, o.worker_id, err);
  std::cerr << run.name << ": failed: " << err << "\n";  // --quiet hides progress, never a failure
  return RunOutcome::Failed;
}

}  // namespace headroom::worker
