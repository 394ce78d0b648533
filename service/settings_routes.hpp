// /api/v1/schema, /api/v1/settings, /api/v1/scopes/{scope} and its
// history, /api/v1/events: reads through the store's snapshot reader,
// saves through the store (lock, revision, durable writer). Nothing is
// cached: every answer is a fresh reading.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "service/change_hub.hpp"
#include "service/router.hpp"
#include "settings/scopes.hpp"

namespace holdfast::service {

// The scope paths for ?workspace=DIR (absolute), or without a workspace.
// Throws UsageError for a relative directory.
settings::ScopePaths paths_for_request(const Request& request);

// The revision an If-Match header names ("7", "\"7\""); nullopt when it
// names none. Throws UsageError for anything else.
std::optional<std::uint64_t> parse_if_match(const std::string& header);

void add_settings_routes(Router& router, ChangeHub& hub);

}  // namespace holdfast::service
