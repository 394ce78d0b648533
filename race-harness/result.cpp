#include "race-harness/result.hpp"

#include <cmath>

namespace holdfast::race {

std::string verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::pass:
      return "pass";
    case Verdict::violations:
      return "violations";
    case Verdict::insensitive:
      return "insensitive";
    case Verdict::errors:
      return "errors";
    case Verdict::unmet:
      return "unmet";
  }
  return "errors";
}

int exit_code_of(Verdict verdict) { return static_cast<int>(verdict); }

double upper_bound_95(std::uint64_t violations, std::uint64_t trials) {
  if (trials == 0) return 1.0;
  const double n = static_cast<double>(trials);
  if (violations == 0) return std::min(1.0, 3.0 / n);
  const double z = 1.959964;
  const double p = static_cast<double>(violations) / n;
  const double centre = p + z * z / (2 * n);
  const double spread = z * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n));
  return std::min(1.0, (centre + spread) / (1 + z * z / n));
}

Verdict verdict_of(const CampaignResult& result) {
  bool violations = false;
  bool insensitive = false;
  bool errors = false;
  bool has_control = false;
  for (const auto& phase : result.phases) {
    if (phase.control) {
      has_control = true;
      // Only a control that found the race makes the rest mean anything.
      if (phase.violated == 0) insensitive = true;
    } else if (phase.violated > 0) {
      violations = true;
    } else if (phase.honoured == 0) {
      errors = true;  // every trial refused: nothing showed the policy in force
    }
    if (phase.errors > 0 || phase.trials == 0) errors = true;
    for (const auto& [name, stats] : phase.writer_stats) {
      if (stats.saves == 0) errors = true;        // a writer that never saved tested nothing
      if (stats.findings > 0) violations = true;  // a writer that lost or tore a save
    }
  }
  if (violations) return Verdict::violations;
  if (insensitive || !has_control) return Verdict::insensitive;
  if (errors) return Verdict::errors;
  return Verdict::pass;
}

bool crash_cell_failed(const CrashCell& cell) {
  return cell.missing + cell.torn + cell.stale + cell.leftovers > 0;
}

Verdict verdict_of(const CrashResult& result) {
  bool violations = false;
  bool errors = false;
  std::uint64_t control_losses = 0;
  bool has_control = false;
  for (const auto& cell : result.cells) {
    if (cell.errors > 0) errors = true;
    if (cell.writer == "holdfast" && crash_cell_failed(cell)) violations = true;
    if (cell.writer == "rename-backup") {
      has_control = true;
      control_losses += cell.missing + cell.torn + cell.stale;
    }
  }
  if (violations) return Verdict::violations;
  if (!has_control || control_losses == 0) return Verdict::insensitive;
  if (errors) return Verdict::errors;
  return Verdict::pass;
}

namespace {

nlohmann::json timeline_json(const std::vector<TimelinePoint>& points) {
  auto out = nlohmann::json::array();
  for (const auto& p : points) out.push_back({p.seconds, p.trials, p.violated, p.refused});
  return out;
}

std::vector<TimelinePoint> timeline_from(const nlohmann::json& json) {
  std::vector<TimelinePoint> out;
  for (const auto& p : json) {
    out.push_back({p.at(0).get<double>(), p.at(1).get<std::uint64_t>(),
                   p.at(2).get<std::uint64_t>(), p.at(3).get<std::uint64_t>()});
  }
  return out;
}

nlohmann::json phase_json(const PhaseResult& phase) {
  nlohmann::json writers = nlohmann::json::object();
  for (const auto& [name, stats] : phase.writer_stats) {
    writers[name] = {{"saves", stats.saves}, {"failures", stats.failures}};
    if (stats.findings > 0) writers[name]["findings"] = stats.findings;
  }
  nlohmann::json timelines = nlohmann::json::object();
  for (const auto& [shard, points] : phase.timelines) {
    timelines[std::to_string(shard)] = timeline_json(points);
  }
  auto evidence = nlohmann::json::array();
  for (const auto& e : phase.evidence) evidence.push_back(to_json(e));
  return {{"name", phase.name},
          {"reader", phase.reader},
          {"writers", phase.writers},
          {"control", phase.control},
          {"trials", phase.trials},
          {"honoured", phase.honoured},
          {"violated", phase.violated},
          {"refused", phase.refused},
          {"errors", phase.errors},
          {"violation_kinds", phase.violation_kinds},
          {"upper_bound_95", upper_bound_95(phase.violated, phase.trials)},
          {"seconds", phase.seconds},
          {"trials_per_second", phase.seconds > 0 ? phase.trials / phase.seconds : 0.0},
          {"child_seconds", phase.child_seconds},
          {"loop_seconds", phase.loop_seconds},
          {"writer_stats", writers},
          {"timelines", timelines},
          {"samples", phase.samples},
          {"evidence", evidence}};
}

PhaseResult phase_from(const nlohmann::json& json) {
  PhaseResult phase;
  phase.name = json.at("name").get<std::string>();
  phase.reader = json.at("reader").get<std::string>();
  phase.writers = json.at("writers").get<std::vector<std::string>>();
  phase.control = json.at("control").get<bool>();
  phase.trials = json.at("trials").get<std::uint64_t>();
  phase.honoured = json.at("honoured").get<std::uint64_t>();
  phase.violated = json.at("violated").get<std::uint64_t>();
  phase.refused = json.at("refused").get<std::uint64_t>();
  phase.errors = json.at("errors").get<std::uint64_t>();
  if (json.contains("violation_kinds")) {
    phase.violation_kinds = json.at("violation_kinds").get<std::map<std::string, std::uint64_t>>();
  }
  phase.seconds = json.at("seconds").get<double>();
  phase.child_seconds = json.at("child_seconds").get<double>();
  phase.loop_seconds = json.at("loop_seconds").get<double>();
  for (const auto& [name, stats] : json.at("writer_stats").items()) {
    phase.writer_stats[name] = {stats.at("saves").get<std::uint64_t>(),
                                stats.at("failures").get<std::uint64_t>(),
                                stats.value("findings", std::uint64_t{0})};
  }
  for (const auto& [shard, points] : json.at("timelines").items()) {
    phase.timelines[std::stoi(shard)] = timeline_from(points);
  }
  phase.samples = json.at("samples").get<std::vector<std::string>>();
  for (const auto& e : json.value("evidence", nlohmann::json::array())) {
    phase.evidence.push_back(evidence_from(e));
  }
  return phase;
}

}  // namespace

nlohmann::json to_json(const CampaignResult& result) {
  auto phases = nlohmann::json::array();
  for (const auto& phase : result.phases) phases.push_back(phase_json(phase));
  return {{"tool", "holdfast-race"},
          {"kind", "campaign"},
          {"mode", result.mode},
          {"writers", result.writers},
          {"seed", result.seed},
          {"shard", {{"index", result.shard_index}, {"count", result.shard_count}}},
          {"launchers", result.launchers},
          {"settings_dir", result.settings_dir},
          {"settings_fs", result.settings_fs},
          {"commands", result.commands},
          {"programs", {{"holdfast", result.holdfast}, {"probe", result.probe}}},
          {"verdict", verdict_name(verdict_of(result))},
          {"phases", phases}};
}

nlohmann::json to_json(const CrashResult& result) {
  auto cells = nlohmann::json::array();
  for (const auto& c : result.cells) {
    cells.push_back({{"writer", c.writer},
                     {"point", c.point},
                     {"rounds", c.rounds},
                     {"old_or_new", c.old_or_new},
                     {"missing", c.missing},
                     {"torn", c.torn},
                     {"stale", c.stale},
                     {"leftovers", c.leftovers},
                     {"swept", c.swept},
                     {"errors", c.errors}});
  }
  return {{"tool", "holdfast-race"},
          {"kind", "crash"},
          {"seed", result.seed},
          {"shard", {{"index", result.shard_index}, {"count", result.shard_count}}},
          {"settings_dir", result.settings_dir},
          {"settings_fs", result.settings_fs},
          {"verdict", verdict_name(verdict_of(result))},
          {"cells", cells}};
}

CampaignResult campaign_from_json(const nlohmann::json& json) {
  CampaignResult result;
  result.mode = json.at("mode").get<std::string>();
  result.writers = json.value("writers", std::vector<std::string>());
  result.seed = json.at("seed").get<std::uint64_t>();
  result.shard_index = json.at("shard").at("index").get<int>();
  result.shard_count = json.at("shard").at("count").get<int>();
  result.launchers = json.at("launchers").get<int>();
  result.settings_dir = json.at("settings_dir").get<std::string>();
  result.settings_fs = json.at("settings_fs").get<std::string>();
  result.commands = json.value("commands", std::map<std::string, std::string>());
  const auto programs = json.value("programs", nlohmann::json::object());
  result.holdfast = programs.value("holdfast", std::string());
  result.probe = programs.value("probe", std::string());
  for (const auto& phase : json.at("phases")) result.phases.push_back(phase_from(phase));
  return result;
}

CrashResult crash_from_json(const nlohmann::json& json) {
  CrashResult result;
  result.seed = json.at("seed").get<std::uint64_t>();
  result.shard_index = json.at("shard").at("index").get<int>();
  result.shard_count = json.at("shard").at("count").get<int>();
  result.settings_dir = json.at("settings_dir").get<std::string>();
  result.settings_fs = json.at("settings_fs").get<std::string>();
  for (const auto& c : json.at("cells")) {
    CrashCell cell;
    cell.writer = c.at("writer").get<std::string>();
    cell.point = c.at("point").get<std::string>();
    cell.rounds = c.at("rounds").get<std::uint64_t>();
    cell.old_or_new = c.at("old_or_new").get<std::uint64_t>();
    cell.missing = c.at("missing").get<std::uint64_t>();
    cell.torn = c.at("torn").get<std::uint64_t>();
    cell.stale = c.at("stale").get<std::uint64_t>();
    cell.leftovers = c.at("leftovers").get<std::uint64_t>();
    cell.swept = c.value("swept", std::uint64_t{0});
    cell.errors = c.at("errors").get<std::uint64_t>();
    result.cells.push_back(cell);
  }
  return result;
}

void merge_into(CampaignResult& into, const CampaignResult& shard) {
  if (into.phases.empty() && into.mode.empty()) {
    into = shard;
    return;
  }
  for (const auto& phase : shard.phases) {
    PhaseResult* same = nullptr;
    for (auto& existing : into.phases) {
      if (existing.name == phase.name) same = &existing;
    }
    if (same == nullptr) {
      into.phases.push_back(phase);
      continue;
    }
    same->trials += phase.trials;
    same->honoured += phase.honoured;
    same->violated += phase.violated;
    same->refused += phase.refused;
    same->errors += phase.errors;
    for (const auto& [kind, count] : phase.violation_kinds) same->violation_kinds[kind] += count;
    // Shards run side by side: the merged phase took as long as its
    // slowest shard, and trials per second add up.
    same->seconds = std::max(same->seconds, phase.seconds);
    same->child_seconds += phase.child_seconds;
    same->loop_seconds += phase.loop_seconds;
    for (const auto& [name, stats] : phase.writer_stats) {
      same->writer_stats[name].saves += stats.saves;
      same->writer_stats[name].failures += stats.failures;
      same->writer_stats[name].findings += stats.findings;
    }
    for (const auto& [index, points] : phase.timelines) same->timelines[index] = points;
    for (const auto& sample : phase.samples) {
      if (same->samples.size() < 10) same->samples.push_back(sample);
    }
    for (const auto& evidence : phase.evidence) {
      if (same->evidence.size() < kMaxEvidence) same->evidence.push_back(evidence);
    }
  }
  into.shard_count = std::max(into.shard_count, shard.shard_count);
}

void merge_into(CrashResult& into, const CrashResult& shard) {
  for (const auto& cell : shard.cells) {
    CrashCell* same = nullptr;
    for (auto& existing : into.cells) {
      if (existing.writer == cell.writer && existing.point == cell.point) same = &existing;
    }
    if (same == nullptr) {
      into.cells.push_back(cell);
      continue;
    }
    same->rounds += cell.rounds;
    same->old_or_new += cell.old_or_new;
    same->missing += cell.missing;
    same->torn += cell.torn;
    same->stale += cell.stale;
    same->leftovers += cell.leftovers;
    same->swept += cell.swept;
    same->errors += cell.errors;
  }
  if (into.settings_dir.empty()) {
    into.seed = shard.seed;
    into.settings_dir = shard.settings_dir;
    into.settings_fs = shard.settings_fs;
  }
  into.shard_count = std::max(into.shard_count, shard.shard_count);
}

}  // namespace holdfast::race
