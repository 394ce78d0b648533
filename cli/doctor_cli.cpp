#include "cli/doctor_cli.hpp"

#include <iostream>

#include "launcher/doctor/doctor.hpp"

namespace holdfast::doctor {

CLI::App* add_doctor_cli(CLI::App& app, int& exit_code) {
  auto workspace = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* doctor = app.add_subcommand(
      "doctor", "Probe this host (bubblewrap, user namespaces, seccomp, AppArmor, Landlock, "
                "settings scopes) and say whether `holdfast run` would launch");
  doctor->add_option("--workspace", *workspace,
                     "Workspace whose .holdfast/settings.json to check (default: the current "
                     "directory)");
  doctor->add_flag("--json", *json, "Machine-readable output");
  doctor->footer("Exit status: 0 when launches would go ahead, 1 when they would be refused.");
  doctor->callback([workspace, json, &exit_code] {
    try {
      const auto paths = settings::scope_paths_from_environment(
          workspace->empty() ? std::filesystem::current_path()
                             : std::filesystem::path(*workspace));
      const Report report = examine_host(paths);
      std::cout << (*json ? report.to_json().dump(2) + "\n" : report.to_text());
      exit_code = report.launch_possible() ? 0 : 1;
    } catch (const std::exception& e) {
      std::cerr << "holdfast: doctor: " << e.what() << "\n";
      exit_code = 1;
    }
  });
  return doctor;
}

}  // namespace holdfast::doctor
