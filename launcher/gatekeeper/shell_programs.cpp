#include "launcher/gatekeeper/shell_programs.hpp"

namespace holdfast::gatekeeper::shell::detail {

namespace {

constexpr Program kPrograms[] = {
    {"echo", Family::none, "", ""},
    {"printf", Family::none, "v", ""},
    {"true", Family::none, "", ""},
    {"false", Family::none, "", ""},
    {":", Family::none, "", ""},
    {"pwd", Family::none, "", ""},
    {"date", Family::none, "dfr", " date file reference "},
    {"whoami", Family::none, "", ""},
    {"id", Family::none, "", ""},
    {"uname", Family::none, "", ""},
    {"hostname", Family::none, "", ""},
    {"which", Family::none, "", ""},
    {"type", Family::none, "", ""},
    {"test", Family::none, "", ""},
    {"[", Family::none, "", ""},
    {"[[", Family::none, "", ""},
    {"sleep", Family::none, "", ""},
    {"seq", Family::none, "fs", ""},
    {"basename", Family::none, "s", ""},
    {"dirname", Family::none, "", ""},
    {"expr", Family::none, "", ""},
    {"exit", Family::none, "", ""},
    {"return", Family::none, "", ""},
    {"export", Family::none, "", ""},
    {"unset", Family::none, "", ""},
    {"printenv", Family::none, "", ""},
    {"cat", Family::read_all, "", ""},
    {"head", Family::read_all, "nc", " lines bytes "},
    {"tail", Family::read_all, "ncs", " lines bytes sleep-interval pid "},
    {"less", Family::read_all, "bhjkoOpPtTxyz", ""},
    {"more", Family::read_all, "n", ""},
    {"wc", Family::read_all, "", ""},
    {"sort", Family::read_all, "kotST",
     " key output field-separator buffer-size temporary-directory "},
    {"cut", Family::read_all, "bcdf", " bytes characters delimiter fields output-delimiter "},
    {"file", Family::read_all, "mfFe", " magic-file files-from separator exclude "},
    {"stat", Family::read_all, "c", " format printf "},
    {"ls", Family::read_all, "ITw", " ignore hide width format sort time-style tabsize "},
    {"tree", Family::read_all, "LIPo", " filelimit "},
    {"du", Family::read_all, "dBtX", " max-depth exclude block-size threshold "},
    {"diff", Family::read_all, "UxXIFC", " unified exclude exclude-from ignore-matching-lines "},
    {"cmp", Family::read_all, "in", " ignore-initial bytes "},
    {"comm", Family::read_all, "", ""},
    {"md5sum", Family::read_all, "", ""},
    {"sha1sum", Family::read_all, "", ""},
    {"sha256sum", Family::read_all, "", ""},
    {"sha512sum", Family::read_all, "", ""},
    {"base64", Family::read_all, "w", " wrap "},
    {"od", Family::read_all, "AjNtw", ""},
    {"hexdump", Family::read_all, "enfs", ""},
    {"strings", Family::read_all, "nte", ""},
    {"nl", Family::read_all, "bdfhilnsvw", ""},
    {"tac", Family::read_all, "s", " separator "},
    {"rev", Family::read_all, "", ""},
    {"readlink", Family::read_all, "", ""},
    {"realpath", Family::read_all, "", " relative-to relative-base "},
    {"paste", Family::read_all, "d", " delimiters "},
    {"fold", Family::read_all, "w", " width "},
    {"column", Family::read_all, "cstoOR", ""},
    {"grep", Family::read_after_first, "efmABCdD",
     " regexp file max-count after-context before-context context include exclude exclude-dir "
     "label color colour "},
    {"egrep", Family::read_after_first, "efmABCdD",
     " regexp file max-count include exclude exclude-dir "},
    {"fgrep", Family::read_after_first, "efmABCdD",
     " regexp file max-count include exclude exclude-dir "},
    {"rg", Family::read_after_first, "efgtTmABCMj",
     " regexp file glob type type-not max-count after-context before-context context max-columns "
     "threads "},
    {"sed", Family::read_after_first, "efl", " expression file line-length "},
    {"awk", Family::read_after_first, "fvFi", " file assign field-separator include "},
    {"gawk", Family::read_after_first, "fvFi", " file assign field-separator include "},
    {"mawk", Family::read_after_first, "fvF", ""},
    {"jq", Family::read_after_first, "fL", " arg argjson slurpfile rawfile from-file indent "},
    {"touch", Family::write_all, "drt", " date reference "},
    {"mkdir", Family::write_all, "m", " mode "},
    {"mkfifo", Family::write_all, "m", " mode "},
    {"tee", Family::write_all, "", ""},
    {"rm", Family::edit_all, "", ""},
    {"rmdir", Family::edit_all, "", ""},
    {"unlink", Family::edit_all, "", ""},
    {"shred", Family::edit_all, "ns", " iterations size "},
    {"truncate", Family::edit_all, "sr", " size reference "},
    {"chmod", Family::edit_after_first, "", " reference "},
    {"chown", Family::edit_after_first, "", " reference from "},
    {"chgrp", Family::edit_after_first, "", " reference "},
    {"cp", Family::copy, "tS", " target-directory suffix backup "},
    {"ln", Family::copy, "tS", " target-directory suffix backup "},
    {"install", Family::copy, "tSmog", " target-directory suffix mode owner group "},
    {"mv", Family::move, "tS", " target-directory suffix backup "},
    {"uniq", Family::read_then_write, "fsw", " skip-fields skip-chars check-chars "},
    {"xxd", Family::read_then_write, "cgloOs", " cols groupsize len offset seek "},
    {"dd", Family::dd, "", ""},
    {"find", Family::find, "", ""},
    {"curl", Family::curl, "oTdHXuAebcFwxmKErUYyzCD",
     " output upload-file data data-raw data-binary data-urlencode data-ascii header request user "
     "user-agent referer cookie cookie-jar form form-string write-out proxy max-time "
     "connect-timeout url config cert key cacert range retry output-dir resolve connect-to json "
     "dump-header "},
    {"wget", Family::wget, "OoaPiUetTwQ",
     " output-document output-file append-output directory-prefix input-file user-agent execute "
     "tries timeout wait quota header post-data post-file user password body-file "},
};

}  // namespace

const Program* find_program(std::string_view name) {
  for (const Program& p : kPrograms) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

bool is_shell(std::string_view name) {
  return name == "bash" || name == "sh" || name == "dash" || name == "zsh" || name == "ksh" ||
         name == "mksh" || name == "ash";
}

}  // namespace holdfast::gatekeeper::shell::detail
