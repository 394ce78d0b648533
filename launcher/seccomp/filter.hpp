// Builds the libseccomp filter for a set of FilterOptions (rules.hpp) and
// holds it. The filter is never loaded into this process: it is exported as
// BPF (bpf_export.hpp) and bubblewrap loads it, last, with no_new_privs.
#pragma once

#include <seccomp.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "launcher/seccomp/rules.hpp"

namespace holdfast::seccomp {

// libseccomp refused something. Says what was being done and carries the
// error libseccomp returned (a positive errno value, e.g. EINVAL).
class SeccompError : public std::runtime_error {
 public:
  SeccompError(const std::string& operation, int error_code);
  int error_code() const { return error_code_; }

 private:
  int error_code_;
};

// Owns a scmp_filter_ctx; releases it with seccomp_release().
class Filter {
 public:
  Filter() = default;
  explicit Filter(scmp_filter_ctx ctx) : ctx_(ctx) {}
  Filter(Filter&& other) noexcept : ctx_(std::exchange(other.ctx_, nullptr)) {}
  Filter& operator=(Filter&& other) noexcept {
    if (this != &other) {
      reset();
      ctx_ = std::exchange(other.ctx_, nullptr);
    }
    return *this;
  }
  Filter(const Filter&) = delete;
  Filter& operator=(const Filter&) = delete;
  ~Filter() { reset(); }

  scmp_filter_ctx get() const { return ctx_; }
  explicit operator bool() const { return ctx_ != nullptr; }

 private:
  void reset() {
    if (ctx_ != nullptr) seccomp_release(ctx_);
    ctx_ = nullptr;
  }
  scmp_filter_ctx ctx_ = nullptr;
};

// Builds the filter: default allow, native architecture only (other ABIs
// kill the process), then every rule of filter_rules(options). Throws
// SeccompError naming the system call and condition that could not be added.
// A system call libseccomp does not know is an error, not a skipped rule:
// the filter must never be weaker than the explanation says.
Filter build_filter(const FilterOptions& options);

// The same from an explicit rule list (build_filter passes
// filter_rules(options)); exposed so that tests can feed it bad rules.
Filter build_filter_from_rules(const std::vector<Rule>& rules);

}  // namespace holdfast::seccomp
