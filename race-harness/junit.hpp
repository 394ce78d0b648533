// JUnit XML, for CI systems that show test results (GitHub Actions through
// a test-report action, GitLab's `artifacts:reports:junit`, Jenkins): one
// <testsuite> per campaign and one for crash results; one <testcase> per
// phase (per crash cell). A phase that failed carries one <failure> whose
// message says why and whose text holds the counts, the evidence (each
// kept file and its note) and the samples; a phase the harness could not
// judge carries an <error>. tests/race/junit.xsd is the schema it meets.
#pragma once

#include <string>

#include "race-harness/report.hpp"
#include "race-harness/thresholds.hpp"

namespace holdfast::race {

std::string junit_xml(const Merged& merged, const Thresholds& thresholds = {});

}  // namespace holdfast::race
