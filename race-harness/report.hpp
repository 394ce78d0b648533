// Presenting results: a plain-text table for the terminal and CI logs, and
// one self-contained HTML page with SVG charts (starts over time, writer
// operations, violations and refusals) for long campaigns.
#pragma once

#include <string>
#include <vector>

#include "race-harness/result.hpp"

namespace holdfast::race {

std::string campaign_table(const CampaignResult& result);
std::string crash_table(const CrashResult& result);

// Every campaign (one per mode) and the crash results, merged from shards.
struct Merged {
  std::vector<CampaignResult> campaigns;
  std::vector<CrashResult> crashes;  // zero or one
};

// Reads result files written with --json and merges shards. Throws
// std::runtime_error naming a file that cannot be read or understood.
Merged merge_files(const std::vector<std::string>& files);

// The worst verdict of everything merged (violations > insensitive > errors).
Verdict overall_verdict(const Merged& merged);

std::string html_report(const Merged& merged);

}  // namespace holdfast::race
