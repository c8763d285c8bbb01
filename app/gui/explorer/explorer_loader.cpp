#include "app/gui/explorer/explorer_loader.h"

#include <chrono>
#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>


#include "app/gui/thread_priority.h"
#include "experiments_db/connection.h"
#include "experiments_db/run_store.h"

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

  double poll_seconds = 0.25;
  mutable std::mutex mu;
  std::condition_variable cv;
  bool stop = false, refresh = false, want_changed = false;
  std::vector<CurveKey> wanted;
  std::shared_ptr<const RowsSnapshot> rows = std::make_shared<RowsSnapshot>();
  std::shared_ptr<const CurvesSnapshot> curves = std::make_shared<CurvesSnapshot>();
  std::thread thread;

  // Loader-thread state.
  std::map<CurveKey, Cached> cache;
  std::map<std::int64_t, std::int64_t> run_steps;  // run id -> current_step at the last reload
  std::uint64_t rows_version = 0, curves_version = 0;

  void publish_rows(RowsSnapshot r) {
    r.version = ++rows_version;
    auto shared = std::make_shared<const RowsSnapshot>(std::move(r));
    std::lock_guard<std::mutex> lock(mu);
    rows = std::move(shared);
  }

  void publish_curves(const std::vector<CurveKey>& keys) {
    auto s = std::make_shared<CurvesSnapshot>();
    s->complete = true;
    for (const auto& k : keys) {
      auto it = cache.find(k);
      const bool current = it != cache.end() && it->second.run_step == step_of(k.run_id);
      if (it != cache.end()) s->curves.emplace(k, it->second.curve);
      s->complete = s->complete && current;
    }
    s->version = ++curves_version;
    std::lock_guard<std::mutex> lock(mu);
    curves = std::move(s);
  }

  std::int64_t step_of(std::int64_t run_id) const {
    auto it = run_steps.find(run_id);
    return it == run_steps.end() ? -1 : it->second;
  }

  void reload_rows(db::RunStore& store) {
    const auto t0 = Clock::now();
    RowsSnapshot r;
    r.open = true;
    r.rows = load_run_rows(store);
    r.suites = store.list_suites();
    r.load_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    run_steps.clear();
    // A run's step (and status) is what its curves depend on: a finished run's never change.
    for (const auto& row : r.rows) run_steps[row.id] = row.step * 8 + static_cast<int>(row.status);
    publish_rows(std::move(r));
  }

  void loop(const std::string& path) {
    // Below the UI thread (and the GL rasterizer's threads on a software renderer): frames come
    // first, curves refine in the time left over.
    gui::lower_this_thread_priority(kLoaderNice);
    std::optional<db::Connection> conn;
    try {
      conn.emplace(db::Connection::open(path, db::OpenMode::ReadOnly));
    } catch (const std::exception& e) {
      RowsSnapshot r;
      r.error = e.what();
      publish_rows(std::move(r));
      return;
    }
    db::RunStore store(*conn);
    std::int64_t data_version = -1;
    std::vector<CurveKey> keys;
    while (true) {
      bool reload = false, keys_changed = false;
      {
        std::unique_lock<std::mutex> lock(mu);
        // Sleep unless there is work: a new want list, a refresh, or curves still to fetch.
        const bool pending = std::any_of(keys.begin(), keys.end(), [&](const CurveKey& k) {
          auto it = cache.find(k);
          return it == cache.end() || it->second.run_step != step_of(k.run_id);
        });
        if (!pending)
          cv.wait_for(lock, std::chrono::duration<double>(poll_seconds), [&] { return stop || refresh || want_changed; });
        if (stop) return;
        reload = refresh;
        refresh = false;
        if (want_changed) keys = wanted, keys_changed = true;
        want_changed = false;
      }
      try {
        const std::int64_t dv = conn->data_version();
        if (dv != data_version) reload = true;
        if (reload) {
          data_version = dv;
          reload_rows(store);
        }
        // Fetch what is missing or stale, publishing at least every ~50 ms and stopping early
        // when the view wants something else.
        auto slice_start = Clock::now();
        bool fetched = false;
        for (const auto& k : keys) {
          auto it = cache.find(k);
          const std::int64_t step = step_of(k.run_id);
          if (it != cache.end() && it->second.run_step == step) continue;
          cache[k] = Cached{fetch_curve(store, k.run_id, k.metric, k.axis, k.steps, k.buckets), step};
          fetched = true;
          if (Clock::now() - slice_start > std::chrono::milliseconds(50)) {
            publish_curves(keys);
            slice_start = Clock::now();
            std::lock_guard<std::mutex> lock(mu);
            if (want_changed || stop) break;
          }
        }
        if (fetched || reload || keys_changed) publish_curves(keys);
        // Forget curves nobody wants any more (zoom windows pile up otherwise).
        for (auto it = cache.begin(); it != cache.end();)
          it = std::binary_search(keys.begin(), keys.end(), it->first) ? std::next(it) : cache.erase(it);
      } catch (const std::exception& e) {
        RowsSnapshot r = *rows;
        r.error = std::string("reading ") + path + " failed: " + e.what();
        publish_rows(std::move(r));
      }
    }
  }
};

ExplorerLoader::ExplorerLoader(std::string db_path, double poll_seconds)
    : path_(std::move(db_path)), state_(std::make_unique<State>()) {
  state_->poll_seconds = poll_seconds;
  state_->thread = std::thread([this] { state_->loop(path_); });
}

ExplorerLoader::~ExplorerLoader() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->stop = true;
  }
  state_->cv.notify_all();
  state_->thread.join();
}

std::shared_ptr<const RowsSnapshot> ExplorerLoader::rows() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->rows;
}

std::shared_ptr<const CurvesSnapshot> ExplorerLoader::curves() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->curves;
}

void ExplorerLoader::want(std::vector<CurveKey> keys) {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->wanted = std::move(keys);
    state_->want_changed = true;
  }
  state_->cv.notify_all();
}

void ExplorerLoader::refresh() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->refresh = true;
  }
  state_->cv.notify_all();
}

}  // namespace headroom::explorer
