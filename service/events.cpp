#include "service/events.hpp"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <set>

#include "service/answers.hpp"
#include "service/settings_routes.hpp"
#include "settings/watcher.hpp"
#include "settings/watcher.hpp"

namespace holdfast::service {

namespace {

using nlohmann::json;

// The events one stream has yet to send.
struct Queue {
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<std::string> events;
  bool closed = false;

  void push(std::string event) {
    const std::lock_guard lock(mutex);
    events.push_back(std::move(event));
    ready.notify_all();
  }
  void close() {
    const std::lock_guard lock(mutex);
    closed = true;
    ready.notify_all();
  }
};

// Every open stream, so that shutdown can end them.
struct Streams {
  std::mutex mutex;
  std::set<std::shared_ptr<Queue>> open;
  bool shutting_down = false;
};

Streams& streams() {
  static Streams instance;
  return instance;
}

std::string event_text(const std::string& name, const json& data) {
  return "event: " + name + "\ndata: " + data.dump() + "\n\n";
}

// How long a quiet stream waits before sending a comment line: a client
// that went away is noticed when that write fails.
constexpr auto kKeepAlive = std::chrono::seconds(15);

}  // namespace

void close_event_streams() {
  Streams& all = streams();
  const std::lock_guard lock(all.mutex);
  all.shutting_down = true;
  for (const auto& queue : all.open) queue->close();
}

void add_event_routes(httplib::Server& server) {
  server.Get("/api/v1/events", guarded([](const auto& request, auto& response) {
               auto queue = std::make_shared<Queue>();
               // Started before the answer, so that a bad workspace is a 400
               // rather than an empty stream.
               auto watcher = std::make_shared<settings::Watcher>(
                   paths_for_request(request), settings::SnapshotOptions{},
                   [queue](const settings::SettingsChange& change) {
                     queue->push(event_text("change", settings::change_json(change)));
                   },
                   [queue](const std::exception& e) {
                     queue->push(event_text(
                         "error", {{"error", "settings_unavailable"}, {"message", e.what()}}));
                   });
               {
                 // Registered only once nothing more can fail, so that every
                 // registered stream is one the releaser below removes.
                 Streams& all = streams();
                 const std::lock_guard lock(all.mutex);
                 if (all.shutting_down) {
                   watcher->stop();
                   answer_error(response, 503, "shutting_down", "the service is stopping");
                   return;
                 }
                 all.open.insert(queue);
               }
               response.set_header("Cache-Control", "no-store");
               response.set_chunked_content_provider(
                   "text/event-stream",
                   [queue, watcher](size_t, httplib::DataSink& sink) {
                     std::unique_lock lock(queue->mutex);
                     queue->ready.wait_for(lock, kKeepAlive,
                                           [&] { return queue->closed || !queue->events.empty(); });
                     if (queue->closed) {
                       lock.unlock();
                       sink.done();
                       return true;
                     }
                     std::deque<std::string> pending;
                     pending.swap(queue->events);
                     lock.unlock();
                     if (pending.empty()) pending.push_back(": keep-alive\n\n");
                     for (const auto& text : pending) {
                       if (!sink.write(text.data(), text.size())) return false;
                     }
                     return true;
                   },
                   [queue, watcher](bool) {
                     watcher->stop();
                     Streams& all = streams();
                     const std::lock_guard lock(all.mutex);
                     all.open.erase(queue);
                   });
             }));
}

}  // namespace holdfast::service
