// `holdfast serve ...`: executes the holdfast-serve program with the same
// arguments. The holdfast executable is linked statically (a launch starts
// faster) and cpp-httplib comes from Debian only as a shared library, so
// the service lives in a program of its own, installed beside holdfast
// (build tree) or in LIBEXECDIR/holdfast.
#pragma once

#include <CLI/CLI.hpp>

namespace holdfast::service {

CLI::App* add_serve_cli(CLI::App& app, int& exit_code);

}  // namespace holdfast::service
