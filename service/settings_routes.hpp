// /api/v1/schema, /api/v1/settings, /api/v1/scopes/{scope}: reads through
// the store's snapshot reader, saves through the store (lock, revision,
// durable writer). Nothing is cached: every answer is a fresh reading.
#pragma once

#include <httplib.h>

#include <optional>
#include <string>

#include "settings/scopes.hpp"

namespace holdfast::service {

// The scope paths for ?workspace=DIR (absolute), or without a workspace.
// Throws UsageError for a relative directory.
settings::ScopePaths paths_for_request(const httplib::Request& request);

// The revision an If-Match header names ("7", "\"7\""); nullopt when it
// names none. Throws UsageError for anything else.
std::optional<std::uint64_t> parse_if_match(const std::string& header);

void add_settings_routes(httplib::Server& server);

}  // namespace holdfast::service
