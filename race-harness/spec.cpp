#include "race-harness/spec.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace holdfast::race {

namespace {

using std::chrono::microseconds;

std::string_view trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

std::string known_writers() {
  std::string out;
  for (const auto& name : writer_names()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// A whole positive (or, with allow_zero, non-negative) decimal number.
std::optional<double> parse_number(const std::string& text, bool allow_zero) {
  std::size_t used = 0;
  double value = -1;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size() || !std::isfinite(value) || value < 0 || (!allow_zero && value == 0)) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

const std::vector<WriterKind>& writer_kinds() {
  static const std::vector<WriterKind> kinds = {
      {"holdfast", false, std::nullopt},
      {"rename-backup", true, microseconds(0)},
      {"copy-backup", false, std::nullopt},
      {"in-place", true, microseconds(200)},
      {"dir-swap", true, microseconds(0)},
      // The path always names a complete file; only a reader holding the
      // old directory (an inotify watch, a directory descriptor) is left
      // behind, so there is no gap for a naive reader and no pause.
      {"dir-exchange", false, std::nullopt},
      {"rename-prev", true, microseconds(100'000)},
      {"symlink-flip", true, microseconds(0)},
      {"symlink-dangle", true, microseconds(0)},
      // Ordinary saves: the same bytes again through a temp and a rename
      // (an autosave of unchanged settings). No gap; launches must not be
      // refused for it.
      {"same-content", false, std::nullopt},
      // Files created and removed beside every directory on the way to the
      // settings (a browser's or an IDE's own files); saves nothing.
      {"churn", false, std::nullopt, WriterKind::Target::both, true},
      // rename-prev on the user file, with holdfast's state directory
      // removed before every save: presence must not live there alone.
      {"state-loss", true, microseconds(100'000)},
      // The workspace file, where the deny rule is alone: renamed to .prev,
      // deleted and recreated, or its whole .holdfast/ swapped.
      {"workspace-rename-prev", true, microseconds(100'000), WriterKind::Target::workspace_files},
      {"workspace-delete-recreate", true, microseconds(100'000),
       WriterKind::Target::workspace_files},
      {"workspace-dir-swap", true, microseconds(100'000), WriterKind::Target::workspace_files},
  };
  return kinds;
}

const std::vector<std::string>& writer_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& kind : writer_kinds()) out.push_back(kind.name);
    return out;
  }();
  return names;
}

const WriterKind* find_writer_kind(std::string_view name) {
  for (const auto& kind : writer_kinds()) {
    if (kind.name == name) return &kind;
  }
  return nullptr;
}

microseconds pause_of(const WriterSpec& spec) {
  if (spec.pause) return *spec.pause;
  const WriterKind* kind = find_writer_kind(spec.name);
  return kind != nullptr && kind->default_pause ? *kind->default_pause : microseconds(0);
}

microseconds parse_pause(std::string_view text) {
  const std::string whole(text);
  for (const auto& [unit, scale] :
       {std::pair<std::string_view, double>{"us", 1.0}, {"ms", 1'000.0}, {"s", 1'000'000.0}}) {
    if (!whole.ends_with(unit)) continue;
    const std::string number = whole.substr(0, whole.size() - unit.size());
    // "ms" also ends with "s": only a number before the unit will do.
    if (number.empty() ||
        !(std::isdigit(static_cast<unsigned char>(number.back())) || number.back() == '.')) {
      continue;
    }
    if (const auto value = parse_number(number, /*allow_zero=*/true)) {
      const double us = *value * scale;
      if (us <= 3'600'000'000.0) return microseconds(static_cast<std::int64_t>(std::llround(us)));
    }
    break;
  }
  throw SpecError("bad pause \"" + whole +
                  "\"; write a number with its unit: 250us, 100ms or 1.5s (at most an hour)");
}

std::string format_pause(microseconds pause) {
  const auto count = pause.count();
  if (count % 1000 == 0) return std::to_string(count / 1000) + "ms";
  return std::to_string(count) + "us";
}

std::vector<WriterSpec> parse_writer_specs(std::string_view text) {
  std::vector<WriterSpec> specs;
  while (!text.empty()) {
    const auto comma = text.find(',');
    std::string_view part = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (part.empty()) throw SpecError("empty writer in --writers; write NAME[:RATE][@PAUSE],...");
    WriterSpec spec;
    std::optional<std::string_view> pause_text;
    if (const auto at = part.find('@'); at != std::string_view::npos) {
      pause_text = part.substr(at + 1);
      part = part.substr(0, at);
    }
    const auto colon = part.find(':');
    spec.name = std::string(part.substr(0, colon));
    const WriterKind* kind = find_writer_kind(spec.name);
    if (kind == nullptr) {
      throw SpecError("unknown writer \"" + spec.name + "\"; known writers: " + known_writers());
    }
    if (colon != std::string_view::npos) {
      const std::string rate(part.substr(colon + 1));
      if (rate != "max") {
        const auto value = parse_number(rate, /*allow_zero=*/false);
        if (!value) {
          throw SpecError("bad rate \"" + rate + "\" for writer " + spec.name +
                          "; write saves per second (a positive number) or max");
        }
        spec.rate = *value;
      }
    }
    if (pause_text) {
      if (!kind->default_pause) {
        throw SpecError("writer " + spec.name +
                        " leaves no gap to pause in; only these take @PAUSE: " + [] {
                          std::string out;
                          for (const auto& k : writer_kinds()) {
                            if (k.default_pause) out += (out.empty() ? "" : ", ") + k.name;
                          }
                          return out;
                        }());
      }
      spec.pause = parse_pause(*pause_text);
    }
    for (const auto& earlier : specs) {
      if (earlier.name == spec.name) throw SpecError("writer " + spec.name + " named twice");
    }
    specs.push_back(spec);
  }
  if (specs.empty())
    throw SpecError("--writers names no writer; known writers: " + known_writers());
  return specs;
}

std::string format_writer_spec(const WriterSpec& spec) {
  std::string out = spec.name + ":";
  if (spec.rate <= 0) {
    out += "max";
  } else {
    char buffer[32];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, spec.rate);
    out += std::string(buffer, ec == std::errc{} ? end : buffer);
  }
  if (spec.pause) out += "@" + format_pause(*spec.pause);
  return out;
}

Shard parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  Shard shard;
  const auto parse = [&](std::string_view part, int& out) {
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), out);
    return ec == std::errc{} && end == part.data() + part.size();
  };
  if (slash == std::string_view::npos || !parse(text.substr(0, slash), shard.index) ||
      !parse(text.substr(slash + 1), shard.count) || shard.count < 1 || shard.index < 1 ||
      shard.index > shard.count) {
    throw SpecError("bad --shard \"" + std::string(text) +
                    "\"; write I/N with 1 <= I <= N, e.g. --shard 2/4");
  }
  return shard;
}

std::uint64_t shard_share(std::uint64_t total, const Shard& shard) {
  const auto count = static_cast<std::uint64_t>(shard.count);
  const auto index = static_cast<std::uint64_t>(shard.index - 1);
  return total / count + (index < total % count ? 1 : 0);
}

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace holdfast::race
