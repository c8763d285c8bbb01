#include "app/gui/explorer/explorer_loader.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <future>
#include <iterator>
#include <stdexcept>
#include <thread>

#include "app/gui/mailbox.h"
#include "app/gui/thread_priority.h"
#include "core/io/safetensors.h"
#include "experiments_db/connection.h"
#include "experiments_db/run_store.h"
#include "experiments_db/schema.h"

namespace headroom::explorer {
namespace {
constexpr int kLoaderNice = 5;
}  // namespace

bool CurveKey::operator<(const CurveKey& o) const {
  auto range = [](const std::optional<db::StepRange>& r) {
    return r ? std::make_tuple(1, r->first, r->last) : std::make_tuple(0, std::int64_t{0}, std::int64_t{0});
  };
  return std::make_tuple(run_id, std::cref(metric), static_cast<int>(axis), range(steps), buckets) <
         std::make_tuple(o.run_id, std::cref(o.metric), static_cast<int>(o.axis), range(o.steps), o.buckets);
}

struct ExplorerLoader::State {
  using Clock = std::chrono::steady_clock;
  struct Cached {
    Curve curve;
    std::int64_t run_step = -1;  // the run's current_step when fetched
  };
  // What the view asks; parts posted separately arrive merged.
  struct Request {
    std::optional<std::vector<CurveKey>> curves;
    bool refresh = false;
    std::optional<RunDetailRequest> run;
    bool rest_loaded = false;  // the helper reading a big DB's older runs is done
  };
  struct Snapshots {
    std::shared_ptr<const RowsSnapshot> rows = std::make_shared<RowsSnapshot>();
    std::shared_ptr<const CurvesSnapshot> curves = std::make_shared<CurvesSnapshot>();
    std::shared_ptr<const RunDetail> run = std::make_shared<RunDetail>();
  };

  double poll_seconds = 0.25;
  bool create = false;
  RowsPaging paging;
  std::string notice;  // said once the file is open (e.g. "upgraded in place ...")
  gui::Mailbox<Request, Snapshots> box;

  // Loader-thread state.
  std::map<CurveKey, Cached> cache;
  std::map<std::int64_t, std::int64_t> run_steps;  // run id -> current_step at the last reload
  std::uint64_t rows_version = 0, curves_version = 0, run_version = 0;
  std::shared_ptr<const RowsSnapshot> last_rows = std::make_shared<RowsSnapshot>();
  std::vector<std::shared_ptr<const RowsSnapshot>> retired;  // published before, maybe still drawn
  // A big DB's older runs, read by helper threads after the newest were published.
  std::future<std::vector<RunRow>> rest;
  Clock::time_point load_started;
  std::thread thread;  // last: it starts once every member above exists

  void publish_rows(RowsSnapshot r) {
    r.version = ++rows_version;
    retired.push_back(std::move(last_rows));
    last_rows = std::make_shared<const RowsSnapshot>(std::move(r));
    box.publish_with([&](Snapshots& s) { s.rows = last_rows; });
  }

  // Frees replaced row snapshots here once the view has let go of them: 100,000 rows take
  // ~100 ms to free, which must not happen inside a frame.
  void free_retired() {
    retired.erase(std::remove_if(retired.begin(), retired.end(),
                                 [](const std::shared_ptr<const RowsSnapshot>& r) { return !r || r.use_count() == 1; }),
                  retired.end());
  }

  void publish_curves(const std::vector<CurveKey>& keys) {
    auto c = std::make_shared<CurvesSnapshot>();
    c->complete = true;
    for (const auto& k : keys) {
      auto it = cache.find(k);
      const bool current = it != cache.end() && it->second.run_step == step_of(k.run_id);
      if (it != cache.end()) c->curves.emplace(k, it->second.curve);
      c->complete = c->complete && current;
    }
    c->version = ++curves_version;
    box.publish_with([&](Snapshots& s) { s.curves = std::move(c); });
  }

  std::int64_t step_of(std::int64_t run_id) const {
    auto it = run_steps.find(run_id);
    return it == run_steps.end() ? -1 : it->second;
  }

  // `full`: parse every config again (an explicit refresh); else reuse what the last load parsed.
  void reload_rows(db::RunStore& store, const std::string& path, bool full) {
    load_started = Clock::now();
    RowsSnapshot r;
    r.open = true;
    r.notice = notice;
    // The first load has nothing to reuse and the window nothing to show yet: use the cores.
    const int parts = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 4u));
    if (!full && !last_rows->rows.empty()) {
      r.rows = load_run_rows(store, last_rows->rows);
    } else if (const auto ids = store.run_ids(); ids && ids->count > paging.above) {
      // The newest runs now (the table's first page, the default selection, their curves), the
      // rest from helper threads; the loop merges them when they are done (finish_rows).
      const std::int64_t cut = std::max(ids->first, ids->last - paging.first_page + 1);
      r.rows = load_run_rows_between(store, cut, ids->last);
      r.partial = true;
      r.total_runs = ids->count;
      rest = std::async(std::launch::async, [this, path, first = ids->first, cut, parts] {
        struct Wake {  // however the read ends, the loop hears of it
          State* s;
          ~Wake() {
            s->box.update([](Request& q) { q.rest_loaded = true; });
          }
        } wake{this};
        if (paging.before_rest) paging.before_rest();
        return load_run_rows_between(path, first, cut - 1, parts);
      });
    } else {
      r.rows = load_run_rows_parallel(store, path, parts);
    }
    if (!r.partial) r.total_runs = static_cast<std::int64_t>(r.rows.size());
    r.suites = store.list_suites();
    publish_loaded(std::move(r));
  }

  // The older runs of a paged first load arrived: one snapshot of every run.
  void finish_rows() {
    RowsSnapshot r = *last_rows;
    std::vector<RunRow> rows = rest.get();  // throws what the helpers threw
    rows.reserve(rows.size() + r.rows.size());
    std::move(r.rows.begin(), r.rows.end(), std::back_inserter(rows));
    r.rows = std::move(rows);
    r.partial = false;
    r.total_runs = static_cast<std::int64_t>(r.rows.size());
    publish_loaded(std::move(r));
  }

  void publish_loaded(RowsSnapshot r) {
    r.load_ms = std::chrono::duration<double, std::milli>(Clock::now() - load_started).count();
    run_steps.clear();
    // A run's step (and status) is what its curves depend on: a finished run's never change.
    r.done = r.running = 0;
    for (const auto& row : r.rows) {
      run_steps[row.id] = row.step * 8 + static_cast<int>(row.status);
      r.done += row.status == db::RunStatus::Done;
      r.running += row.status == db::RunStatus::Running;
    }
    publish_rows(std::move(r));
  }

  // The Run tab's details: stored steps, and the P_l / P_w snapshot at the wanted step decoded.
  void load_run_detail(db::RunStore& store, const RunDetailRequest& want) {
    auto d = std::make_shared<RunDetail>();
    d->request = want;
    d->version = ++run_version;
    if (want.run_id >= 0) {
      try {
        if (const auto run = store.get_run(want.run_id)) d->config_json = run->config_json;
        d->weights_steps = store.artifact_steps(want.run_id, std::string(db::kWeightsArtifact));
        if (want.projections) {
          d->projection_steps = store.artifact_steps(want.run_id, "talking_heads");
          if (!d->projection_steps.empty()) {
            // The wanted step if stored, else the newest at or before it, else the newest.
            auto step = d->projection_steps.back();
            if (want.projection_step >= 0) {
              const auto after =
                  std::upper_bound(d->projection_steps.begin(), d->projection_steps.end(), want.projection_step);
              if (after != d->projection_steps.begin()) step = *std::prev(after);
            }
            d->projection_step = step;
            const auto a = store.artifact_at(want.run_id, "talking_heads", step);
            if (!a) throw std::runtime_error("the P_l / P_w snapshot at step " + std::to_string(step) + " is gone");
            const auto file = core::decode_safetensors(a->bytes.data(), a->bytes.size(),
                                                       "P_l/P_w snapshot at step " + std::to_string(step));
            for (const auto& t : file.tensors) {
              if (t.shape.size() != 2) continue;
              d->maps.push_back({t.name, static_cast<int>(t.shape[0]), static_cast<int>(t.shape[1]), t.as_f32()});
            }
          }
        }
      } catch (const std::exception& e) {
        d->error = e.what();
      }
    }
    box.publish_with([&](Snapshots& s) { s.run = std::move(d); });
  }

  void loop(const std::string& path) {
    std::optional<db::Connection> conn;
    try {
      if (create) db::Connection::open(path, db::OpenMode::Create);  // creates the schema, then closes
      if (const auto version = db::Connection::older_schema(path)) {
        // An older Headroom's file: upgrade it as the worker would (additive, one transaction).
        try {
          db::Connection::open(path, db::OpenMode::ReadWrite);
        } catch (const std::exception& e) {
          throw std::runtime_error(path + ": schema version " + std::to_string(*version) +
                                   " is older than this Headroom reads and upgrading it in place failed (" + e.what() +
                                   "); copy it somewhere writable, or open it with headroom-worker");
        }
        notice = "upgraded in place from schema version " + std::to_string(*version) + " to " +
                 std::to_string(db::kSchemaVersion) + " (derived columns added; nothing removed)";
      }
      conn.emplace(db::Connection::open(path, db::OpenMode::ReadOnly));
    } catch (const std::exception& e) {
      RowsSnapshot r;
      r.error = e.what();
      std::error_code ec;
      const auto folder = std::filesystem::absolute(path, ec).parent_path();
      const bool missing = !create && !std::filesystem::exists(path, ec);
      r.can_create = missing && std::filesystem::is_directory(folder, ec);
      if (missing && !r.can_create)
        r.error = path + ": no such file, and its folder " + folder.string() + " does not exist either; check the path";
      publish_rows(std::move(r));
      return;
    }
    db::RunStore store(*conn);
    std::int64_t data_version = -1;
    std::vector<CurveKey> keys;
    RunDetailRequest run_wanted;
    std::optional<decltype(box)::Taken> taken;
    bool first = true;  // the rows are read at once, not after a poll interval
    bool lowered = false, refresh_wanted = false;
    while (true) {
      // Sleep unless there is work: a new request, or curves still to fetch.
      const bool pending = std::any_of(keys.begin(), keys.end(), [&](const CurveKey& k) {
        auto it = cache.find(k);
        return it == cache.end() || it->second.run_step != step_of(k.run_id);
      });
      if (!box.wait(&taken, {}, gui::Mailbox<Request, Snapshots>::Seconds(pending || first ? 0.0 : poll_seconds)))
        return;
      first = false;
      free_retired();
      bool keys_changed = false, run_changed = false, rest_loaded = false;
      if (taken) {
        refresh_wanted = refresh_wanted || taken->request.refresh;
        rest_loaded = taken->request.rest_loaded;
        if (taken->request.curves) keys = std::move(*taken->request.curves), keys_changed = true;
        if (taken->request.run && *taken->request.run != run_wanted)
          run_wanted = *taken->request.run, run_changed = true;
      }
      try {
        bool reload = false;  // new rows published in this pass
        if (rest.valid() && rest_loaded) finish_rows(), reload = true;
        // While a paged first load still reads, changes wait for it; then one reload settles them.
        if (!rest.valid()) {
          const std::int64_t dv = conn->data_version();
          if (dv != data_version || refresh_wanted) {
            data_version = dv;
            reload_rows(store, path, refresh_wanted);
            refresh_wanted = false;
            reload = true;
          }
        }
        if (!lowered && !rest.valid()) {
          // The first load runs at the window's priority: until the rows arrive the window has
          // nothing to draw but "Opening", and on a software renderer those frames took the
          // cores from a reader below them (the open took twice as long). From here on the
          // reader runs below the UI thread and the GL rasterizer's threads: frames come first,
          // curves refine in the time left over.
          gui::lower_this_thread_priority(kLoaderNice);
          lowered = true;
        }
        if (run_changed || (reload && run_wanted.run_id >= 0)) load_run_detail(store, run_wanted);
        // Fetch what is missing or stale, publishing at least every ~50 ms and stopping early
        // when the view wants something else.
        auto slice_start = Clock::now();
        bool fetched = false;
        for (const auto& k : keys) {
          auto it = cache.find(k);
          const std::int64_t step = step_of(k.run_id);
          if (it != cache.end() && it->second.run_step == step) continue;
          Curve curve;
          try {
            curve = fetch_curve(store, k.run_id, k.metric, k.axis, k.steps, k.buckets);
          } catch (const std::exception& e) {
            // A damaged page under this curve: say so, and keep it empty until the run changes
            // instead of asking SQLite again on every pass.
            RowsSnapshot r = *last_rows;
            r.error = std::string("reading ") + path + " failed: " + e.what();
            publish_rows(std::move(r));
          }
          cache[k] = Cached{std::move(curve), step};
          fetched = true;
          if (Clock::now() - slice_start > std::chrono::milliseconds(50)) {
            publish_curves(keys);
            slice_start = Clock::now();
            if (box.superseded()) break;
          }
        }
        if (fetched || reload || keys_changed) publish_curves(keys);
        // Forget curves nobody wants any more (zoom windows pile up otherwise).
        for (auto it = cache.begin(); it != cache.end();)
          it = std::binary_search(keys.begin(), keys.end(), it->first) ? std::next(it) : cache.erase(it);
      } catch (const std::exception& e) {
        RowsSnapshot r = *last_rows;
        r.error = std::string("reading ") + path + " failed: " + e.what();
        publish_rows(std::move(r));
      }
    }
  }
};

ExplorerLoader::ExplorerLoader(std::string db_path, double poll_seconds, bool create,
                               std::function<void()> before_reading, RowsPaging paging)
    : path_(std::move(db_path)), state_(std::make_unique<State>()) {
  state_->poll_seconds = poll_seconds;
  state_->paging = paging;
  state_->create = create;
  state_->thread = std::thread([this, before = std::move(before_reading)] {
    if (before) before();
    state_->loop(path_);
  });
}

ExplorerLoader::~ExplorerLoader() {
  state_->box.close();
  state_->thread.join();
}

std::shared_ptr<const RowsSnapshot> ExplorerLoader::rows() const { return state_->box.snapshot()->rows; }

std::shared_ptr<const CurvesSnapshot> ExplorerLoader::curves() const { return state_->box.snapshot()->curves; }

std::shared_ptr<const RunDetail> ExplorerLoader::run_detail() const { return state_->box.snapshot()->run; }

void ExplorerLoader::want(std::vector<CurveKey> keys) {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  state_->box.update([&](State::Request& r) { r.curves = std::move(keys); });
}

void ExplorerLoader::refresh() {
  state_->box.update([](State::Request& r) { r.refresh = true; });
}

void ExplorerLoader::want_run(const RunDetailRequest& request) {
  state_->box.update([&](State::Request& r) { r.run = request; });
}

}  // namespace headroom::explorer
