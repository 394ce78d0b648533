#include "race-harness/stop_signal.hpp"

#include <signal.h>

#include <atomic>

namespace holdfast::race {

namespace {

std::atomic<bool> g_stop_requested{false};

void on_stop_signal(int) { g_stop_requested.store(true); }

}  // namespace

void stop_on_term_or_interrupt() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  ::sigemptyset(&action.sa_mask);
  ::sigaction(SIGTERM, &action, nullptr);
  ::sigaction(SIGINT, &action, nullptr);
}

bool stop_requested() { return g_stop_requested.load(); }

}  // namespace holdfast::race
