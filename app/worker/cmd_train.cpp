// `headroom-worker train`: one named run. Running the same command again after the process
// died resumes it from its last checkpoint; after it finished, says so and exits 0.
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>

#include "app/worker/run_executor.h"
#include "app/worker/worker_cli.h"
#include "app/worker/worker_common.h"
#include "core/io/spec_json.h"
#include "core/model/model_spec.h"
#include "experiments_db/db_error.h"
#include "experiments_db/run_liveness.h"

namespace headroom::worker {
namespace {

struct TrainOptions {
  std::string db, name;
  std::string kind = "multi-head";
  int d_model = 64, heads = 4;
  std::optional<int> heads_k, heads_v, d_k, d_v;
  bool causal_flag = false, bidirectional = false;
  std::string dynamic;
  int layers = 2, vocab = 0, embed_rank = 0, pos_rank = 0, context = 64, mlp_ratio = 4;
  core::TrainSpec train;
  std::string schedule = "cosine";
  double stale_after = 300;
  bool quiet = false;
  int64_t crash_after_step = -1;
  int niceness = kDefaultNiceness;
  double lock_wait = kDefaultLockWaitS;
  double checkpoint_interval = 0;  // ExecOptions::checkpoint_interval_s
  std::string device = "auto", precision = "fp32";
  std::string positions = "learned", pos_init = "random";
  double pos_init_scale = 1.0;
  std::optional<uint64_t> data_seed;  // core::TrainSpec::data_seed
};

nlohmann::json config_json(const TrainOptions& o, const std::string& device) {
  nlohmann::json attention = {
      {"kind", o.kind}, {"d_model", o.d_model}, {"heads", o.heads}, {"causal", !o.bidirectional}};
  if (o.heads_k) attention["heads_k"] = *o.heads_k;
  if (o.heads_v) attention["heads_v"] = *o.heads_v;
  if (o.d_k) attention["d_k"] = *o.d_k;
  if (o.d_v) attention["d_v"] = *o.d_v;
  if (!o.dynamic.empty()) attention["dynamic"] = o.dynamic;
  core::TrainSpec t = o.train;
  t.data_seed = o.data_seed;
  auto sched = core::parse_lr_schedule(o.schedule);
  if (!sched) throw std::invalid_argument("--schedule " + o.schedule + ": use cosine, inverse-sqrt or constant");
  t.schedule = *sched;
  t.precision = *core::parse_precision(o.precision);  // CLI checked the spelling
  t.device = device;
  return {{"model",
           {{"vocab", o.vocab},
            {"width", o.d_model},
            {"depth", o.layers},
            {"embed_rank", o.embed_rank},
            {"pos_rank", o.pos_rank},
            {"positions", o.positions},
            {"pos_init", o.pos_init},
            {"pos_init_scale", o.pos_init_scale},
            {"context", o.context},
            {"mlp_ratio", o.mlp_ratio},
            {"attention", attention}}},
          {"train", core::to_json(t)}};
}

// run_config_from_json names a field by its config path ("train flags: model.attention.heads:
// ..."); here the user gave flags, so the message names the flag ("--heads: ...") where one sets it.
std::string in_flag_terms(const std::string& message) {
  static const std::pair<const char*, const char*> kFlagOf[] = {
      {"model.attention.kind", "--attention"},
      {"model.attention.d_model", "--d-model"},
      {"model.width", "--d-model"},
      {"model.attention.heads", "--heads"},
      {"model.attention.heads_k", "--heads-k"},
      {"model.attention.heads_v", "--heads-v"},
      {"model.attention.d_k", "--dk"},
      {"model.attention.d_v", "--dv"},
      {"model.attention.dynamic", "--dynamic"},
      {"model.depth", "--layers"},
      {"model.vocab", "--vocab"},
      {"model.embed_rank", "--embed-rank"},
      {"model.pos_rank", "--pos-rank"},
      {"model.positions", "--positions"},
      {"model.pos_init", "--pos-init"},
      {"model.pos_init_scale", "--pos-init-scale"},
      {"model.context", "--context"},
      {"model.mlp_ratio", "--mlp-ratio"},
      {"train.corpus", "--corpus"},
      {"train.tokenizer", "--tokenizer"},
      {"train.steps", "--steps"},
      {"train.batch", "--batch"},
      {"train.lr", "--lr"},
      {"train.warmup", "--warmup"},
      {"train.weight_decay", "--weight-decay"},
      {"train.clip", "--clip"},
      {"train.seed", "--seed"},
      {"train.data_seed", "--data-seed"},
      {"train.eval_every", "--eval-every"},
      {"train.log_every", "--log-every"},
      {"train.checkpoint_every", "--checkpoint-every"},
  };
  const std::string prefix = "train flags: ";
  if (message.rfind(prefix, 0) != 0) return message;
  for (const auto& [path, flag] : kFlagOf) {
    const std::string field = prefix + path + ": ";
    if (message.rfind(field, 0) == 0) return flag + (": " + message.substr(field.size()));
  }
  return message;
}

int run_train(const TrainOptions& o) {
  if (!o.dynamic.empty() && o.kind != "dynamic-proj") {  // it would be ignored in silence
    std::cerr << "headroom-worker train: --dynamic " << o.dynamic
              << " picks dynamic-proj's projections (TH appendix A); it needs --attention dynamic-proj (this run is "
              << o.kind << ")\n";
    return kExitBadInput;
  }
  const auto device = resolve_device_flag(o.device, "train");
  if (!device) return kExitBadInput;
  RunConfig config;
  try {
    config = run_config_from_json(config_json(o, *device), "train flags");
  } catch (const std::invalid_argument& e) {
    std::cerr << "headroom-worker train: " << in_flag_terms(e.what()) << "\n";
    return kExitBadInput;
  }
  lower_priority(o.niceness);
  configure_training_process(0);
  install_stop_handlers();
  // A run of this name with other flags is refused, and a finished one reported; nullopt: go on.
  auto settled = [&](db::RunStore& store) -> std::optional<int> {
    const auto existing = store.find_run(o.name);
    if (!existing) return std::nullopt;
    if (const auto difference = config_difference(existing->config_json, config)) {
      std::cerr << "headroom-worker train: run " << o.name << " in " << o.db
                << " was started with a different configuration (" << *difference
                << "); give a new --name, or repeat its flags to resume it\n";
      return kExitBadInput;
    }
    if (existing->status == db::RunStatus::Done) {
      std::cout << "run " << o.name << " already finished (" << existing->current_step << " steps); nothing to do\n";
      return kExitOk;
    }
    return std::nullopt;
  };
  // Asked through a read-only connection first: then neither answer changes the file (a writing
  // open turns a shared results file's journal into WAL).
  if (std::error_code missing; std::filesystem::exists(o.db, missing)) {
    try {
      auto reader = db::Connection::open(o.db, db::OpenMode::ReadOnly, static_cast<int>(o.lock_wait * 1000));
      db::RunStore store(reader);
      if (const auto rc = settled(store)) return *rc;
    } catch (const db::DbError&) {
      // An older schema, a foreign or damaged file: the writing open below says what is wrong.
    }
  }
  auto conn = open_waiting(o.db, db::OpenMode::Create, o.lock_wait);
  db::RunStore store(conn);
  const std::string me = db::local_worker_id();
  const std::string wanted = to_json(config).dump();

  if (store.find_run(o.name)) {
    if (const auto rc = settled(store)) return *rc;
  } else {
    db::NewRun n;
    n.name = o.name;
    n.config_json = wanted;
    n.seed = static_cast<int64_t>(config.train.seed);
    n.param_count = core::parameter_count(config.model);
    n.software_version = HEADROOM_VERSION;
    store.enqueue_run(n);
  }
  std::optional<db::RunRecord> run = reclaim_dead_local_run(store, me, *device, o.name);
  if (!run) run = store.claim_by_name(o.name, me, o.stale_after, *device);
  if (!run) {
    std::cout << "run " << o.name << " already finished; nothing to do\n";
    return kExitOk;
  }
  if (!o.quiet) note_cpu_kernels(*device, "train");
  ExecOptions exec;
  exec.worker_id = me;
  exec.device = *device;
  exec.quiet = o.quiet;
  exec.tty = stdout_is_tty();
  exec.crash_after_step = o.crash_after_step;
  exec.checkpoint_interval_s = o.checkpoint_interval;
  std::string error;
  switch (execute_run(store, *run, exec, &error)) {
    case RunOutcome::Finished: return kExitOk;
    case RunOutcome::Cancelled: return kExitFailure;
    case RunOutcome::Failed: return kExitFailure;
    case RunOutcome::Stopped: return kExitOk;  // checkpointed; the same command resumes it
  }
  return kExitFailure;
}

}  // namespace

Command register_train(CLI::App& root) {
  auto o = std::make_shared<TrainOptions>();
  auto* app = root.add_subcommand("train", "Train one named run into a DB (resumes it if it was interrupted)");
  app->add_option("--db", o->db, "Experiments database (created if missing)")->required();
  app->add_option("--name", o->name, "Run name, unique in the DB")->required();
  app->add_option("--attention", o->kind, "Attention kind (default multi-head)");
  app->add_option("--d-model", o->d_model, "Model width d (default 64)");
  app->add_option("--heads", o->heads, "Heads h (default 4)");
  app->add_option("--heads-k", o->heads_k, "Query/key heads h_k (talking-heads kinds)");
  app->add_option("--heads-v", o->heads_v, "Value heads h_v (talking-heads kinds)");
  app->add_option("--dk", o->d_k, "Query/key size per head (default d_model/heads)");
  app->add_option("--dv", o->d_v, "Value size per head (default d_model/heads)");
  app->add_option("--dynamic", o->dynamic, "dynamic-proj only: Xl,Ml,Xw,Mw subset");
  auto* causal = app->add_flag("--causal", o->causal_flag, "Causal attention (the default for language modelling)");
  app->add_flag("--bidirectional", o->bidirectional, "No causal mask")->excludes(causal);
  app->add_option("--layers", o->layers, "Layers L (default 2)");
  app->add_option("--vocab", o->vocab, "Vocabulary V (default: the data's)");
  // 0 means "unfactorised" inside a ModelSpec, but as a rank it is impossible: refuse it here.
  auto rank_check = [](const char* flag) {
    return CLI::Validator(
        [flag](std::string& v) -> std::string {
          long r = 0;
          try {
            r = std::stol(v);
          } catch (const std::exception&) {
            return std::string(flag) + " " + v + " is not a number";
          }
          if (r < 1)
            return std::string(flag) + " " + v +
                   " is not a rank: give r >= 1 to factorise (a rank-r embedding; below d it is a bottleneck), "
                   "or leave " +
                   flag + " out for the unfactorised, full-rank embedding";
          return {};
        },
        "RANK>=1");
  };
  app->add_option("--embed-rank", o->embed_rank, "Embedding rank r >= 1 (VB §5.1; default unfactorised, full rank)")
      ->check(rank_check("--embed-rank"));
  app->add_option("--pos-rank", o->pos_rank, "Positional embedding rank >= 1 (VB C.4; default unfactorised)")
      ->check(rank_check("--pos-rank"));
  // A word a core parser must accept; the message names what the flag takes.
  auto word_check = [](std::string flag, bool (*accepts)(const std::string&), std::string what, std::string words) {
    return CLI::Validator(
        [flag, accepts, what](std::string& v) -> std::string {
          return accepts(v) ? std::string() : flag + " " + v + " is not " + what;
        },
        words);
  };
  app->add_option("--positions", o->positions,
                  "learned (default) or none: no positional embedding, position only from the causal mask")
      ->check(word_check(
          "--positions", [](const std::string& v) { return core::parse_positions(v).has_value(); },
          "a kind of positional embedding: learned (a trained table) or none (position only from the causal mask)",
          "learned|none"));
  app->add_option("--pos-init", o->pos_init,
                  "random (default) or zero: the positional table starts at zero (P = 0 at step 0; the "
                  "projection of a factorised one stays random)")
      ->check(word_check(
          "--pos-init", [](const std::string& v) { return core::parse_pos_init(v).has_value(); },
          "a way to start the positional embedding: random (N(0, 0.02^2)) or zero (P = 0 at step 0)", "random|zero"));
  app->add_option("--pos-init-scale", o->pos_init_scale,
                  "Scale of the random positional start (default 1: N(0, 0.02^2); 0.25: the same draws, a "
                  "quarter the size)");
  app->add_option("--context", o->context, "Context n (default 64)");
  app->add_option("--mlp-ratio", o->mlp_ratio, "Feed-forward ratio (default 4)");
  app->add_option("--corpus", o->train.corpus,
                  "kjv, linux-docs (the kernel's Documentation/, from linux-source-6.1), a text file, or "
                  "copy|reverse|induction|recall (default kjv)");
  app->add_option("--tokenizer", o->train.tokenizer, "bytes or bpe:<V> (default bytes)");
  app->add_option("--steps", o->train.steps, "Optimiser steps (default 1000)");
  app->add_option("--batch", o->train.batch, "Sequences per step (default 16)");
  app->add_option("--lr", o->train.lr, "Peak learning rate (default 1e-3)");
  app->add_option("--warmup", o->train.warmup, "Warm-up steps (default 100)");
  app->add_option("--schedule", o->schedule, "cosine (VB), inverse-sqrt (LRB) or constant");
  app->add_option("--weight-decay", o->train.weight_decay, "AdamW weight decay (default 0.01)");
  app->add_option("--clip", o->train.clip, "Gradient-norm clip (default 1; 0 = off)");
  // A seed is a whole number >= 0: refuse "-1" here, which an unsigned option would wrap to 2^64 - 1.
  auto seed_check = [](const char* flag) {
    return CLI::Validator(
        [flag](std::string& v) -> std::string {
          // CLI11 would saturate a number past 2^64 - 1 to it: a different seed than asked for.
          errno = 0;
          if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos ||
              (std::strtoull(v.c_str(), nullptr, 10), errno == ERANGE))
            return std::string(flag) + " " + v + " is not a seed: give a whole number >= 0 (at most " +
                   std::to_string(std::numeric_limits<uint64_t>::max()) + ")";
          return {};
        },
        "SEED>=0");
  };
  app->add_option("--seed", o->train.seed, "Seed for weights and batches (default 0)")->check(seed_check("--seed"));
  app->add_option("--data-seed", o->data_seed,
                  "Seed for the batches' order only (default: --seed's), to tell the start's share of a spread over "
                  "seeds from the batches'")
      ->check(seed_check("--data-seed"));
  app->add_option("--eval-every", o->train.eval_every, "Validation loss every k steps (default 100)");
  app->add_option("--log-every", o->train.log_every, "Train metrics every k steps (default 10)");
  app->add_option("--checkpoint-every", o->train.checkpoint_every, "Checkpoint every K steps (default 500)");
  add_stale_after_option(app, &o->stale_after);
  app->add_flag("--quiet", o->quiet, "No progress output");
  add_device_option(app, &o->device);
  add_precision_option(app, &o->precision);
  add_nice_option(app, &o->niceness);
  add_lock_wait_option(app, &o->lock_wait);
  add_checkpoint_interval_option(app, &o->checkpoint_interval);
  app->add_option("--crash-after-step", o->crash_after_step, "Testing: exit abruptly after this step")->group("");
  return {app, [o] { return run_train(*o); }};
}

}  // namespace headroom::worker
