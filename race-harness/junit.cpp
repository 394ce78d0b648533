#include "race-harness/junit.hpp"

#include <cstdio>
#include <vector>

#include "race-harness/text_format.hpp"

namespace holdfast::race {

namespace {

// One <testcase>: at most one <failure> or <error> (the strictest JUnit
// schemas allow one), whose message is every reason joined.
struct Case {
  std::string classname;
  std::string name;
  double seconds = 0;
  std::vector<std::pair<std::string, std::string>> failures;  // type, message
  std::string error_type;  // when it could not be judged (and did not fail)
  std::string error_message;
  std::string details;  // the failure's or error's text
  std::string out;      // <system-out>
};

struct Suite {
  std::string name;
  double seconds = 0;
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<Case> cases;
};

std::string counts_of(const PhaseResult& p) {
  std::string out = format(
      "%llu trials: %llu honoured, %llu violated, %llu refused (failed closed), %llu errors; "
      "95%% upper bound on the violation rate %.3g\n",
      ull(p.trials), ull(p.honoured), ull(p.violated), ull(p.refused), ull(p.errors),
      upper_bound_95(p.violated, p.trials));
  for (const auto& [name, stats] : p.writer_stats) {
    out += format("writer %s: %llu saves, %llu failed, %llu left the file wrong\n", name.c_str(),
                  ull(stats.saves), ull(stats.failures), ull(stats.findings));
  }
  for (const auto& [kind, count] : p.violation_kinds) {
    out += format("violations where %s: %llu\n", kind.c_str(), ull(count));
  }
  return out;
}

Case phase_case(const PhaseResult& p, const CampaignResult& campaign,
                const Thresholds& thresholds) {
  Case c;
  c.classname = "holdfast-race." + campaign.mode;
  c.name = p.name;
  c.seconds = p.seconds;
  c.out = counts_of(p);
  for (const auto& [name, stats] : p.writer_stats) {
    if (stats.findings > 0) {
      c.failures.emplace_back(
          "writer-findings",
          format("writer %s left the settings file wrong after %llu of its saves (torn, missing, "
                 "not a document it was given, or an older one)",
                 name.c_str(), ull(stats.findings)));
    }
    if (stats.saves == 0) {
      c.error_type = "harness-error";
      c.error_message = "writer " + name + " never saved: the phase tested nothing";
    }
  }
  if (!p.control && p.violated > 0) {
    std::string kinds;
    for (const auto& [kind, count] : p.violation_kinds) {
      kinds += format("%s%s %llu", kinds.empty() ? "" : ", ", kind.c_str(), ull(count));
    }
    c.failures.emplace_back("violations", format("%llu of %llu trials let the policy go (",
                                                 ull(p.violated), ull(p.trials)) +
                                              kinds + ")");
  }
  if (p.control && p.violated == 0) {
    c.failures.emplace_back("insensitive-control", control_saw_nothing(p, campaign));
  }
  for (auto& sentence : unmet_thresholds(p, thresholds)) {
    c.failures.emplace_back("threshold", std::move(sentence));
  }
  if (p.trials == 0) {
    c.error_type = "harness-error";
    c.error_message = "no trial ran";
  } else if (p.errors > 0) {
    c.error_type = "harness-error";
    c.error_message = format("%llu trials could not be judged", ull(p.errors));
  } else if (!p.control && p.violated == 0 && p.honoured == 0) {
    c.error_type = "harness-error";
    c.error_message = "every trial was refused: nothing showed the policy in force";
  }
  for (const auto& [type, message] : c.failures) c.details += message + "\n";
  if (c.failures.empty() && !c.error_type.empty()) c.details += c.error_message + "\n";
  c.details += c.out;
  for (const auto& e : p.evidence) {
    c.details += "evidence: " + e.note + (e.file.empty() ? "" : " [kept in " + e.file + "]") + "\n";
  }
  for (const auto& s : p.samples) c.details += "sample: " + s + "\n";
  return c;
}

Suite campaign_suite(const CampaignResult& campaign, const Thresholds& thresholds) {
  Suite suite;
  suite.name = "holdfast-race campaign, " + campaign.mode + " mode";
  std::string writers;
  for (const auto& w : campaign.writers) writers += (writers.empty() ? "" : ",") + w;
  suite.properties = {{"mode", campaign.mode},
                      {"writers", writers},
                      {"seed", std::to_string(campaign.seed)},
                      {"shards", std::to_string(campaign.shard_count)},
                      {"launchers", std::to_string(campaign.launchers)},
                      {"verdict", verdict_name(verdict_of(campaign, thresholds))}};
  for (const auto& [name, command] : campaign.commands)
    suite.properties.emplace_back(name, command);
  for (const auto& p : campaign.phases) {
    suite.cases.push_back(phase_case(p, campaign, thresholds));
    suite.seconds += p.seconds;
  }
  return suite;
}

Suite crash_suite(const CrashResult& crash) {
  Suite suite;
  suite.name = "holdfast-race crash";
  suite.properties = {{"seed", std::to_string(crash.seed)},
                      {"shards", std::to_string(crash.shard_count)},
                      {"verdict", verdict_name(verdict_of(crash))}};
  std::uint64_t control_losses = 0;
  for (const auto& cell : crash.cells) {
    Case c;
    c.classname = "holdfast-race.crash";
    c.name = cell.writer + " killed after " + cell.point;
    c.out = format(
        "%llu rounds: %llu old or new, %llu missing, %llu torn, %llu stale, %llu leftovers, "
        "%llu swept, %llu errors\n",
        ull(cell.rounds), ull(cell.old_or_new), ull(cell.missing), ull(cell.torn), ull(cell.stale),
        ull(cell.leftovers), ull(cell.swept), ull(cell.errors));
    if (cell.writer == "holdfast" && crash_cell_failed(cell)) {
      c.failures.emplace_back("violations",
                              "holdfast's writer, killed here, left the file missing, torn or "
                              "stale, or a leftover the next save did not sweep");
    } else if (cell.errors > 0) {
      c.error_type = "harness-error";
      c.error_message = format("%llu rounds could not be run", ull(cell.errors));
    }
    if (cell.writer == "rename-backup") control_losses += cell.missing + cell.torn + cell.stale;
    c.details = (c.failures.empty() ? c.error_message : c.failures.front().second) + "\n" + c.out;
    suite.cases.push_back(std::move(c));
  }
  Case control;
  control.classname = "holdfast-race.crash";
  control.name = "rename-backup loses the file when killed (control)";
  if (control_losses == 0) {
    control.failures.emplace_back(
        "insensitive-control",
        "killing rename-backup never lost the file: the crash campaign cannot see loss, so "
        "holdfast's cells prove nothing");
    control.details = control.failures.front().second + "\n";
  }
  suite.cases.push_back(std::move(control));
  return suite;
}

struct Tally {
  std::size_t failures = 0;
  std::size_t errors = 0;  // cases that could not be judged and did not fail
};

Tally tally(const Suite& suite) {
  Tally tally;
  for (const auto& c : suite.cases) {
    if (!c.failures.empty()) {
      ++tally.failures;
    } else if (!c.error_type.empty()) {
      ++tally.errors;
    }
  }
  return tally;
}

std::string attribute(const std::string& name, const std::string& value) {
  return " " + name + "=\"" + xml_escape(value) + "\"";
}

void write_suite(std::string& xml, const Suite& suite) {
  const Tally counts = tally(suite);
  xml += "  <testsuite" + attribute("name", suite.name) +
         attribute("tests", std::to_string(suite.cases.size())) +
         attribute("failures", std::to_string(counts.failures)) +
         attribute("errors", std::to_string(counts.errors)) + attribute("skipped", "0") +
         attribute("time", format("%.3f", suite.seconds)) + ">\n";
  xml += "    <properties>\n";
  for (const auto& [name, value] : suite.properties) {
    xml += "      <property" + attribute("name", name) + attribute("value", value) + "/>\n";
  }
  xml += "    </properties>\n";
  for (const auto& c : suite.cases) {
    xml += "    <testcase" + attribute("classname", c.classname) + attribute("name", c.name) +
           attribute("time", format("%.3f", c.seconds)) + ">\n";
    if (!c.failures.empty()) {
      std::string message;
      for (const auto& [type, text] : c.failures) message += (message.empty() ? "" : " | ") + text;
      xml += "      <failure" + attribute("message", message) +
             attribute("type", c.failures.front().first) + ">" + xml_escape(c.details) +
             "</failure>\n";
    } else if (!c.error_type.empty()) {
      xml += "      <error" + attribute("message", c.error_message) +
             attribute("type", c.error_type) + ">" + xml_escape(c.details) + "</error>\n";
    }
    if (!c.out.empty()) xml += "      <system-out>" + xml_escape(c.out) + "</system-out>\n";
    xml += "    </testcase>\n";
  }
  xml += "  </testsuite>\n";
}

}  // namespace

std::string junit_xml(const Merged& merged, const Thresholds& thresholds) {
  std::vector<Suite> suites;
  for (const auto& campaign : merged.campaigns) {
    suites.push_back(campaign_suite(campaign, thresholds));
  }
  for (const auto& crash : merged.crashes) suites.push_back(crash_suite(crash));
  std::size_t tests = 0;
  std::size_t failures = 0;
  std::size_t errors = 0;
  double seconds = 0;
  std::string body;
  for (const auto& suite : suites) {
    write_suite(body, suite);
    tests += suite.cases.size();
    seconds += suite.seconds;
    failures += tally(suite).failures;
    errors += tally(suite).errors;
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites" +
         attribute("name", "holdfast-race") + attribute("tests", std::to_string(tests)) +
         attribute("failures", std::to_string(failures)) +
         attribute("errors", std::to_string(errors)) + attribute("time", format("%.3f", seconds)) +
         ">\n" + body + "</testsuites>\n";
}

}  // namespace holdfast::race
