// Presenting results: a plain-text table for the terminal and CI logs, and
// one self-contained HTML page with SVG charts (starts over time, writer
// operations, violations and refusals) for long campaigns.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "race-harness/result.hpp"
#include "race-harness/thresholds.hpp"

namespace holdfast::race {

// The table, each phase's details and evidence, and the verdict with what
// it means (a control that saw nothing, a threshold missed).
std::string campaign_table(const CampaignResult& result, const Thresholds& thresholds = {});

// Why a control phase that found no violation makes its campaign prove
// nothing, and what to do, in words for whoever reads a CI log.
std::string control_saw_nothing(const PhaseResult& control, const CampaignResult& campaign);
std::string crash_table(const CrashResult& result);

// Every campaign (one per mode) and the crash results, merged from shards.
struct Merged {
  std::vector<CampaignResult> campaigns;
  std::vector<CrashResult> crashes;  // zero or one
};

// Reads result files written with --json and merges shards. Throws
// std::runtime_error naming a file that cannot be read or understood.
Merged merge_files(const std::vector<std::string>& files);

// The worst verdict of everything merged (violations > insensitive >
// errors > unmet).
Verdict overall_verdict(const Merged& merged, const Thresholds& thresholds = {});

std::string html_report(const Merged& merged, const Thresholds& thresholds = {});

// Text made safe for XML and HTML: the five special characters as entities,
// control characters XML cannot hold as \xNN.
std::string xml_escape(std::string_view text);

}  // namespace holdfast::race
