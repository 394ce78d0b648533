#include "race-harness/report.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "race-harness/text_format.hpp"

namespace holdfast::race {

namespace {

const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                          "#9467bd", "#8c564b", "#e377c2", "#17becf"};

// Cumulative trials against seconds, one line per phase and shard.
std::string starts_chart(const CampaignResult& result) {
  constexpr double kWidth = 640, kHeight = 260, kLeft = 60, kBottom = 30;
  double max_x = 0;
  double max_y = 0;
  for (const auto& phase : result.phases) {
    for (const auto& [shard, points] : phase.timelines) {
      for (const auto& p : points) {
        max_x = std::max(max_x, p.seconds);
        max_y = std::max(max_y, static_cast<double>(p.trials));
      }
    }
  }
  if (max_x <= 0) max_x = 1;
  if (max_y <= 0) max_y = 1;
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << kWidth + 260 << "' height='"
      << kHeight + kBottom + 10 << "'>";
  svg << "<line x1='" << kLeft << "' y1='" << kHeight << "' x2='" << kWidth << "' y2='" << kHeight
      << "' stroke='black'/><line x1='" << kLeft << "' y1='0' x2='" << kLeft << "' y2='" << kHeight
      << "' stroke='black'/>";
  svg << "<text x='" << kLeft << "' y='" << kHeight + 20 << "' font-size='11'>0 s</text>";
  svg << "<text x='" << kWidth - 60 << "' y='" << kHeight + 20 << "' font-size='11'>"
      << format("%.1f s", max_x) << "</text>";
  svg << "<text x='0' y='12' font-size='11'>" << format("%.0f", max_y) << "</text>";
  int colour = 0;
  for (const auto& phase : result.phases) {
    const char* stroke = kColours[colour % 8];
    for (const auto& [shard, points] : phase.timelines) {
      svg << "<polyline fill='none' stroke='" << stroke << "' stroke-width='1.5' points='" << kLeft
          << "," << kHeight;
      for (const auto& p : points) {
        svg << " "
            << format("%.1f,%.1f", kLeft + (kWidth - kLeft) * p.seconds / max_x,
                      kHeight - kHeight * static_cast<double>(p.trials) / max_y);
      }
      svg << "'/>";
    }
    svg << "<rect x='" << kWidth + 10 << "' y='" << 10 + 18 * colour
        << "' width='10' height='10' fill='" << stroke << "'/><text x='" << kWidth + 25 << "' y='"
        << 19 + 18 * colour << "' font-size='11'>" << xml_escape(phase.name) << "</text>";
    ++colour;
  }
  svg << "</svg>";
  return svg.str();
}

// Horizontal bars: one row per label, each with its value.
std::string bar_chart(const std::vector<std::pair<std::string, double>>& rows, const char* colour) {
  constexpr double kLabel = 330, kBar = 380, kRow = 20;
  double max = 0;
  for (const auto& [label, value] : rows) max = std::max(max, value);
  if (max <= 0) max = 1;
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << kLabel + kBar + 120 << "' height='"
      << kRow * static_cast<double>(rows.size()) + 10 << "'>";
  double y = 5;
  for (const auto& [label, value] : rows) {
    svg << "<text x='0' y='" << y + 13 << "' font-size='11'>" << xml_escape(label) << "</text>";
    svg << "<rect x='" << kLabel << "' y='" << y + 3 << "' width='"
        << format("%.1f", kBar * value / max) << "' height='12' fill='" << colour << "'/>";
    svg << "<text x='" << kLabel + kBar * value / max + 5 << "' y='" << y + 13
        << "' font-size='11'>" << format("%.0f", value) << "</text>";
    y += kRow;
  }
  svg << "</svg>";
  return svg.str();
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 has no place for other control characters, even escaped.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') {
          out += format("\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string control_saw_nothing(const PhaseResult& control, const CampaignResult& campaign) {
  std::string writer = control.writers.empty() ? "its writer" : control.writers.front();
  writer = writer.substr(0, writer.find(':'));
  std::uint64_t saves = 0;
  if (const auto stats = control.writer_stats.find(writer); stats != control.writer_stats.end()) {
    saves = stats->second.saves;
  }
  const auto command = campaign.commands.find(writer);
  const std::string named =
      command == campaign.commands.end() ? writer : writer + " (" + command->second + ")";
  std::string out = format(
      "the positive control \"%s\" saw nothing: the naive reader, which trusts whatever it "
      "opens, ran %llu trials while ",
      control.name.c_str(), ull(control.trials));
  out += named + format(" saved %llu times, and was never caught out. ", ull(saves));
  out += "So this campaign cannot tell a careful reader from a careless one under " + writer +
         ", and the phases that passed prove nothing. ";
  if (command != campaign.commands.end()) {
    out += "If " + writer +
           " saves atomically (a complete temporary file renamed over the old one), no reader "
           "can be caught out by it: good news for the writer; then race your reader against a "
           "writer that leaves a gap as well (--writers rename-backup). Otherwise give the "
           "control more trials (--control-starts).";
  } else {
    out +=
        "Give the control more trials (--control-starts), or let the writer hold its gap "
        "open longer (--writers " +
        writer + "@1ms).";
  }
  return out;
}

std::string campaign_table(const CampaignResult& r, const Thresholds& thresholds) {
  std::string writers;
  for (const auto& w : r.writers) writers += (writers.empty() ? "" : ",") + w;
  std::string out = format("mode %s, seed %llu, shards %d, launchers %d, settings in %s (%s)\n",
                           r.mode.c_str(), ull(r.seed), r.shard_count, r.launchers,
                           r.settings_dir.c_str(), r.settings_fs.c_str());
  if (!writers.empty()) out += "writers " + writers + "\n";
  if (!r.holdfast.empty()) {
    out += "holdfast " + r.holdfast + (r.probe.empty() ? "" : ", probe " + r.probe) + "\n";
  }
  for (const auto& [name, command] : r.commands) out += name + ": " + command + "\n";
  out += format("%-34s %10s %10s %9s %8s %9s %7s %12s %10s\n", "phase", "trials", "honoured",
                "violated", "refused", "refused%", "errors", "95% upper", "trials/s");
  for (const auto& p : r.phases) {
    std::uint64_t findings = 0;
    for (const auto& [name, stats] : p.writer_stats) findings += stats.findings;
    const char* mark = findings > 0                   ? "  <- WRITER FINDINGS"
                       : p.control && p.violated == 0 ? "  <- control saw nothing"
                       : !p.control && p.violated > 0 ? "  <- VIOLATIONS"
                                                      : "";
    out += format("%-34s %10llu %10llu %9llu %8llu %8.2f%% %7llu %12.3g %10.1f%s\n", p.name.c_str(),
                  ull(p.trials), ull(p.honoured), ull(p.violated), ull(p.refused),
                  p.trials > 0 ? 100.0 * static_cast<double>(p.refused) / p.trials : 0.0,
                  ull(p.errors), upper_bound_95(p.violated, p.trials),
                  p.seconds > 0 ? static_cast<double>(p.trials) / p.seconds : 0.0, mark);
  }
  for (const auto& p : r.phases) {
    std::string writers;
    for (const auto& [name, stats] : p.writer_stats) {
      writers += format(" %s %llu saves (%llu failed)", name.c_str(), ull(stats.saves),
                        ull(stats.failures));
      if (stats.findings > 0) {
        writers += format(", %llu left the file wrong (torn, missing, altered or older)",
                          ull(stats.findings));
      }
    }
    out += "  " + p.name + ":" + writers + "\n";
    if (!p.violation_kinds.empty()) {
      std::string kinds;
      for (const auto& [kind, count] : p.violation_kinds) {
        kinds += format("%s %s %llu", kinds.empty() ? "" : ",", kind.c_str(), ull(count));
      }
      out += "    violations by what was seen:" + kinds + "\n";
    }
    if (r.mode == "launch" && p.loop_seconds > 0) {
      out += format(
          "    harness overhead: %.1f%% of the launchers' time outside the started "
          "processes\n",
          100.0 * (p.loop_seconds - p.child_seconds) / p.loop_seconds);
    }
    for (const auto& s : p.samples) {
      // A violation with evidence is listed below, with where it is kept.
      if (!p.evidence.empty() && s.starts_with("violated: ")) continue;
      out += "    " + s + "\n";
    }
    for (const auto& e : p.evidence) {
      out += "    evidence: " + e.note + (e.file.empty() ? "" : " [" + e.file + "]") + "\n";
    }
  }
  const Verdict verdict = verdict_of(r, thresholds);
  for (const auto& p : r.phases) {
    if (p.control && p.violated == 0) out += "INSENSITIVE: " + control_saw_nothing(p, r) + "\n";
  }
  for (const auto& sentence : unmet_thresholds(r, thresholds)) {
    out += "THRESHOLD MISSED: " + sentence + "\n";
  }
  out += "verdict: " + verdict_name(verdict);
  if (verdict == Verdict::insensitive) out += " (a positive control saw nothing: see above)";
  return out + "\n";
}

std::string crash_table(const CrashResult& r) {
  std::string out =
      format("crash campaign, seed %llu, shards %d, settings in %s (%s)\n", ull(r.seed),
             r.shard_count, r.settings_dir.c_str(), r.settings_fs.c_str());
  out += format("%-14s %-18s %7s %11s %8s %6s %6s %10s %6s %7s\n", "writer", "killed after",
                "rounds", "old-or-new", "missing", "torn", "stale", "leftovers", "swept", "errors");
  for (const auto& c : r.cells) {
    out +=
        format("%-14s %-18s %7llu %11llu %8llu %6llu %6llu %10llu %6llu %7llu%s\n",
               c.writer.c_str(), c.point.c_str(), ull(c.rounds), ull(c.old_or_new), ull(c.missing),
               ull(c.torn), ull(c.stale), ull(c.leftovers), ull(c.swept), ull(c.errors),
               c.writer == "holdfast" && crash_cell_failed(c) ? "  <- FAILED" : "");
  }
  const Verdict verdict = verdict_of(r);
  out += "verdict: " + verdict_name(verdict);
  if (verdict == Verdict::insensitive) {
    out += " (killing rename-backup never lost the file: the crash campaign cannot see loss)";
  }
  return out + "\n";
}

Merged merge_files(const std::vector<std::string>& files) {
  Merged merged;
  for (const auto& file : files) {
    std::ifstream in(file);
    if (!in) throw std::runtime_error("cannot read " + file);
    nlohmann::json json;
    try {
      json = nlohmann::json::parse(in);
      if (json.at("tool") != "holdfast-race") throw std::runtime_error("not a result file");
      if (json.at("kind") == "campaign") {
        CampaignResult shard = campaign_from_json(json);
        // Shards of one campaign share its mode and writers; campaigns
        // with other writers stay apart (their mixed phases differ).
        auto same = std::find_if(merged.campaigns.begin(), merged.campaigns.end(),
                                 [&](const CampaignResult& c) {
                                   return c.mode == shard.mode && c.writers == shard.writers;
                                 });
        if (same == merged.campaigns.end()) {
          merged.campaigns.push_back(std::move(shard));
        } else {
          merge_into(*same, shard);
        }
      } else {
        if (merged.crashes.empty()) merged.crashes.emplace_back();
        merge_into(merged.crashes.front(), crash_from_json(json));
      }
    } catch (const std::exception& e) {
      throw std::runtime_error(file + " is not a holdfast-race result (" + e.what() +
                               "); pass files written by campaign --json or crash --json");
    }
  }
  return merged;
}

Verdict overall_verdict(const Merged& merged, const Thresholds& thresholds) {
  std::vector<Verdict> all;
  for (const auto& c : merged.campaigns) all.push_back(verdict_of(c, thresholds));
  for (const auto& c : merged.crashes) all.push_back(verdict_of(c));
  for (const Verdict v :
       {Verdict::violations, Verdict::insensitive, Verdict::errors, Verdict::unmet}) {
    if (std::find(all.begin(), all.end(), v) != all.end()) return v;
  }
  return Verdict::pass;
}

std::string html_report(const Merged& merged, const Thresholds& thresholds) {
  std::ostringstream html;
  html << "<!DOCTYPE html><html><head><meta charset='utf-8'><title>holdfast race report</title>"
          "<style>body{font-family:sans-serif;margin:2em}pre{background:#f4f4f4;padding:1em}"
          "h2{margin-top:2em}</style></head><body><h1>holdfast race report</h1>";
  html << "<p>Verdict: <b>" << verdict_name(overall_verdict(merged, thresholds)) << "</b></p>";
  for (const auto& c : merged.campaigns) {
    html << "<h2>Campaign, " << xml_escape(c.mode) << " mode</h2><pre>"
         << xml_escape(campaign_table(c, thresholds)) << "</pre>";
    const char* unit = c.mode == "launch"       ? "Starts"
                       : c.mode == "gatekeeper" ? "Checks"
                                                : "Samples";
    html << "<h3>" << unit << " over time</h3>" << starts_chart(c);
    std::vector<std::pair<std::string, double>> saves;
    std::vector<std::pair<std::string, double>> violations;
    std::vector<std::pair<std::string, double>> refusals;
    for (const auto& p : c.phases) {
      for (const auto& [name, stats] : p.writer_stats) {
        saves.emplace_back(p.name + ": " + name, static_cast<double>(stats.saves));
      }
      violations.emplace_back(p.name, static_cast<double>(p.violated));
      refusals.emplace_back(p.name, static_cast<double>(p.refused));
    }
    html << "<h3>Writer operations (saves)</h3>" << bar_chart(saves, "#2ca02c");
    html << "<h3>Violations (the control must have some; holdfast none)</h3>"
         << bar_chart(violations, "#d62728");
    html << "<h3>Refusals (failed closed; not violations)</h3>" << bar_chart(refusals, "#ff7f0e");
  }
  for (const auto& c : merged.crashes) {
    html << "<h2>Crash campaign</h2><pre>" << xml_escape(crash_table(c)) << "</pre>";
    std::vector<std::pair<std::string, double>> lost;
    for (const auto& cell : c.cells) {
      lost.emplace_back(cell.writer + " after " + cell.point,
                        static_cast<double>(cell.missing + cell.torn + cell.stale));
    }
    html << "<h3>Rounds that lost or damaged the file</h3>" << bar_chart(lost, "#d62728");
  }
  html << "</body></html>\n";
  return html.str();
}

}  // namespace holdfast::race
