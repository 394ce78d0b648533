// The settings schema: one JSON Schema (draft 2020-12) that is both published
// (`holdfast settings schema`, for editors) and enforced (validate()).
//
// validate() interprets the subset of JSON Schema the document uses: type,
// enum, properties, additionalProperties (false or a schema), items,
// minimum, maximum, oneOf, and the one string format holdfast defines,
// "holdfast-permission-rule" (settings/permission_rule.hpp). Objects that list `properties` but do
// not forbid others produce warnings for unknown keys; objects with
// `"additionalProperties": false` (the policy-bearing ones) produce errors,
// because a policy must be understood exactly.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "settings/errors.hpp"
#include "settings/jsonc.hpp"

namespace holdfast::settings {

const nlohmann::json& settings_schema();

// The schema as validate() reads it: settings_schema() without the
// descriptions, which are for people.
const nlohmann::json& validation_schema();

// Checks `document` against the schema; locations come from `locations`.
std::vector<Diagnostic> validate(const nlohmann::json& document, const LocationIndex& locations,
                                 const std::filesystem::path& file);

}  // namespace holdfast::settings
