#include "race-harness/spec.hpp"

#include <algorithm>
#include <charconv>

namespace holdfast::race {

namespace {

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

}  // namespace

std::vector<WriterSpec> parse_writer_specs(std::string_view text) {
  std::vector<WriterSpec> specs;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view part = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (part.empty()) throw SpecError("empty writer in --writers; write NAME[:RATE],...");
    WriterSpec spec;
    const auto colon = part.find(':');
    spec.name = std::string(part.substr(0, colon));
    if (std::find(writer_names().begin(), writer_names().end(), spec.name) ==
        writer_names().end()) {
      throw SpecError("unknown writer \"" + spec.name + "\"; known writers: " + known_writers());
    }
    if (colon != std::string_view::npos) {
      const std::string rate(part.substr(colon + 1));
      if (rate != "max") {
        std::size_t used = 0;
        double value = -1;
        try {
          value = std::stod(rate, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != rate.size() || !(value > 0)) {
          throw SpecError("bad rate \"" + rate + "\" for writer " + spec.name +
                          "; write saves per second (a positive number) or max");
        }
        spec.rate = value;
      }
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
  if (spec.rate <= 0) return spec.name + ":max";
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, spec.rate);
  return spec.name + ":" + std::string(buffer, ec == std::errc{} ? end : buffer);
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
