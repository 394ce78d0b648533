// /api/v1/launches, /api/v1/check, /api/v1/explain, /api/v1/sandbox: what
// launches did, what the gatekeeper would decide, what a launch would be
// allowed to do. Each calls the function the matching CLI command calls.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "service/router.hpp"

namespace holdfast::service {

// The last `limit` records of a launches.jsonl file, oldest first; lines
// that are not JSON (a record cut short by a full disk) are skipped and
// counted in `skipped`. A missing file has no records.
std::vector<nlohmann::json> last_launch_records(const std::filesystem::path& file,
                                                std::size_t limit, std::size_t& skipped);

// A record of a launch with a network allow-list names its audit log
// (network.audit); this adds the log's lines as network.connections when
// the log is one of STATE_DIR/network/ (never a path a record could point
// anywhere else).
void attach_connections(nlohmann::json& record, const std::filesystem::path& state_dir);

void add_launch_routes(Router& router);

}  // namespace holdfast::service
