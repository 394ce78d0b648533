// holdfast-seccomp-bake OUTPUT.cpp
//
// Runs at build time: compiles the seccomp program for every FilterOptions
// with libseccomp (the same build_filter and export_bpf a launch would use)
// and writes them as C++ string literals, in every_filter_options() order,
// defining seccomp::baked_programs() (program.hpp). The output is written to
// a temporary file and renamed, so an interrupted build never leaves a
// half-written table behind.
#include <seccomp.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "launcher/seccomp/bpf_export.hpp"
#include "launcher/seccomp/filter.hpp"
#include "launcher/seccomp/rules.hpp"

namespace {

// "\x20\x00..." in lines of 32 bytes. Each byte is a full \xNN escape, so
// no escape can run into the next character.
std::string as_literal(const std::string& bytes) {
  std::string out;
  char escape[8];
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i % 32 == 0) out += (i == 0 ? "    \"" : "\"\n    \"");
    std::snprintf(escape, sizeof escape, "\\x%02x", static_cast<unsigned char>(bytes[i]));
    out += escape;
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: holdfast-seccomp-bake OUTPUT.cpp\n";
    return 2;
  }
  const std::filesystem::path output = argv[1];
  const std::filesystem::path temporary = output.string() + ".tmp";
  try {
    const auto version = seccomp_version();
    std::ofstream out(temporary, std::ios::trunc);
    out << "// Generated at build time by holdfast-seccomp-bake with libseccomp " << version->major
        << "." << version->minor << "." << version->micro
        << ". Do not edit.\n"
           "#include \"launcher/seccomp/program.hpp\"\n\n"
           "namespace holdfast::seccomp {\n"
           "namespace {\n\n";
    const auto all = holdfast::seccomp::every_filter_options();
    for (std::size_t i = 0; i < all.size(); ++i) {
      const std::string program =
          holdfast::seccomp::export_bpf(holdfast::seccomp::build_filter(all[i]));
      out << "// " << holdfast::seccomp::to_string(all[i]) << ": " << program.size() << " bytes\n"
          << "constexpr std::string_view program_" << i << "{\n"
          << as_literal(program) << ",\n    " << program.size() << "};\n\n";
    }
    out << "constexpr std::string_view programs[] = {";
    for (std::size_t i = 0; i < all.size(); ++i) out << (i == 0 ? "" : ", ") << "program_" << i;
    out << "};\n\n"
           "}  // namespace\n\n"
           "std::span<const std::string_view> baked_programs() { return programs; }\n\n"
           "}  // namespace holdfast::seccomp\n";
    out.close();
    if (!out) throw std::runtime_error("cannot write " + temporary.string());
    std::filesystem::rename(temporary, output);
  } catch (const std::exception& e) {
    std::cerr << "holdfast-seccomp-bake: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
