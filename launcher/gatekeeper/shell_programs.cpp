#include "launcher/gatekeeper/shell_programs.hpp"

#include <algorithm>
#include <vector>

namespace holdfast::gatekeeper::shell::detail {

namespace {

struct Row {
  std::string_view name;
  Family family;
  std::string_view options;  // see shell_options.hpp
  ParseStyle style = ParseStyle::gnu;
};

// Option lists are those of the Debian 12 programs (GNU coreutils 9.1,
// grep 3.8, sed 4.9, findutils 4.9, gawk 5.2, mawk 1.3.4, jq 1.6, curl
// 7.88, wget 1.21, ripgrep 13). Values that name files carry R/W/E; values
// that run something carry X/C; what holdfast does not map is U.
constexpr std::string_view kSumOptions =
    " -b -c=?S -t -w -z --binary --check --ignore-missing --quiet --status --strict --tag --text "
    "--warn --zero --help --version";

constexpr Row kRows[] = {
    {"echo", Family::literal, ""},
    {"true", Family::literal, ""},
    {"false", Family::literal, ""},
    {":", Family::literal, ""},
    {"expr", Family::literal, ""},
    {"exit", Family::literal, ""},
    {"return", Family::literal, ""},
    {"printf", Family::printf_, "-v=S", ParseStyle::first},
    {"pwd", Family::no_operands, "-L -P", ParseStyle::first},
    {"whoami", Family::no_operands, "--help --version"},
    {"hostname", Family::no_operands,
     "-a -A -d -f -i -I -s -y --alias --all-fqdns --domain --fqdn --long --ip-address "
     "--all-ip-addresses --short --nis --yp --help --version"},
    {"date", Family::none,
     "-d= -f=R -I=? -r=R -R -u --date= --debug --file=R --iso-8601=? --reference=R --resolution "
     "--rfc-email --rfc-3339= --set=U -s=U --utc --universal --help --version"},
    {"id", Family::none,
     "-a -Z -g -G -n -r -u -z --context --group --groups --name --real --user --zero --help "
     "--version"},
    {"uname", Family::no_operands,
     "-a -s -n -r -v -m -p -i -o --all --kernel-name --nodename --kernel-release --kernel-version "
     "--machine --processor --hardware-platform --operating-system --help --version"},
    {"which", Family::none, "-a -s", ParseStyle::first},
    {"type", Family::none, "-a -f -P -p -t", ParseStyle::first},
    {"test", Family::test, ""},
    {"[", Family::test, ""},
    {"[[", Family::test, ""},
    {"sleep", Family::none, "--help --version"},
    {"seq", Family::none, "-# -f= -s= -w --format= --separator= --equal-width --help --version"},
    {"basename", Family::none, "-a -s= -z --multiple --suffix= --zero --help --version"},
    {"dirname", Family::none, "-z --zero --help --version"},
    {"printenv", Family::none, "-0 --null --help --version"},
    {"unset", Family::names, "-f -v -n", ParseStyle::first},
    {"export", Family::names, "-f -n -p", ParseStyle::first},
    {"declare", Family::names, "-a -A -f -F -g -i -I -l -n -p -r -t -u -x", ParseStyle::first},
    {"typeset", Family::names, "-a -A -f -F -g -i -I -l -n -p -r -t -u -x", ParseStyle::first},
    {"local", Family::names, "-a -A -f -F -g -i -I -l -n -p -r -t -u -x", ParseStyle::first},
    {"readonly", Family::names, "-a -A -f -p", ParseStyle::first},
    {"let", Family::names, "", ParseStyle::first},
    {"cat", Family::read_all,
     "-A -b -e -E -n -s -t -T -u -v --show-all --number-nonblank --show-ends --number "
     "--squeeze-blank --show-tabs --show-nonprinting --help --version"},
    {"head", Family::read_all,
     "-# -c= -n= -q -v -z --bytes= --lines= --quiet --silent --verbose --zero-terminated --help "
     "--version"},
    {"tail", Family::read_all,
     "-# -c= -f -F -n= -q -s= -v -z --bytes= --follow=? --lines= --max-unchanged-stats= --pid= "
     "--quiet --retry --silent --sleep-interval= --verbose --zero-terminated --help --version"},
    {"wc", Family::read_all,
     "-c -m -l -L -w --bytes --chars --lines --files0-from=L --max-line-length --words --total= "
     "--help --version"},
    {"sort", Family::read_all,
     "-b -d -f -g -h -i -M -n -R -r -V -c -C -m -s -u -z -k= -o=W -S= -t= -T=W "
     "--ignore-leading-blanks --dictionary-order --ignore-case --general-numeric-sort "
     "--ignore-nonprinting --month-sort --human-numeric-sort --numeric-sort --random-sort "
     "--random-source=R --reverse --sort= --version-sort --batch-size= --check=? "
     "--compress-program=X --debug --files0-from=L --key= --merge --output=W --stable "
     "--buffer-size= --field-separator= --temporary-directory=W --parallel= --unique "
     "--zero-terminated --help --version"},
    {"cut", Family::read_all,
     "-b= -c= -d= -f= -n -s -z --bytes= --characters= --delimiter= --fields= --complement "
     "--only-delimited --output-delimiter= --zero-terminated --help --version"},
    {"file", Family::read_all,
     "-0 -b -c -C -d -D -e= -E -f=L -F= -h -i -k -l -L -m=R -n -N -p -P= -r -s -S -v -z -Z "
     "--apple --brief --checking-printout --compile=U --debug --dereference --exclude= "
     "--exclude-quiet= --extension --files-from=L --keep-going --list --magic-file=R --mime "
     "--mime-encoding --mime-type --no-buffer --no-dereference --no-pad --no-sandbox "
     "--parameter= --preserve-date --print0 --raw --separator= --special-files --uncompress "
     "--uncompress-noreport --help --version"},
    {"stat", Family::read_all,
     "-L -f -t -c= --cached= --dereference --file-system --format= --printf= --terse --help "
     "--version"},
    {"ls", Family::read_all,
     "-1 -a -A -b -B -c -C -d -D -f -F -g -G -h -H -i -I= -k -l -L -m -n -N -o -p -q -Q -r -R -s "
     "-S -t -T= -u -U -v -w= -x -X -Z --all --almost-all --author --escape --block-size= "
     "--ignore-backups --color=? --directory --dired --classify=? --file-type --format= "
     "--full-time --group-directories-first --no-group --human-readable --si "
     "--dereference-command-line --dereference-command-line-symlink-to-dir --hide= "
     "--hyperlink=? --indicator-style= --inode --ignore= --kibibytes --dereference --literal "
     "--numeric-uid-gid --hide-control-chars --show-control-chars --quote-name "
     "--quoting-style= --reverse --recursive --size --sort= --time= --time-style= --tabsize= "
     "--width= --context --zero --help --version"},
    {"du", Family::read_all,
     "-0 -a -b -B= -c -d= -D -h -H -k -l -L -m -P -s -S -t= -x -X=R --null --all "
     "--apparent-size --block-size= --bytes --total --max-depth= --dereference-args "
     "--files0-from=L --human-readable --inodes --si --count-links --dereference "
     "--no-dereference --separate-dirs --summarize --threshold= --time=? --time-style= "
     "--exclude-from=R --exclude= --one-file-system --help --version"},
    {"diff", Family::read_all,
     "-a -b -B -c -C= -d -D= -e -E -f -F= -i -I= -l -n -N -p -q -r -s -S= -t -T -u -U= -v -w "
     "-W= -x= -X=R -y -Z --brief --color=? --context=? --ed --exclude-from=R --exclude= "
     "--expand-tabs --from-file=R --horizon-lines= --ifdef= --ignore-all-space "
     "--ignore-blank-lines --ignore-case --ignore-file-name-case --ignore-matching-lines= "
     "--ignore-space-change --ignore-tab-expansion --ignore-trailing-space --initial-tab "
     "--label= --left-column --line-format= --old-line-format= --new-line-format= "
     "--unchanged-line-format= --old-group-format= --new-group-format= "
     "--unchanged-group-format= --changed-group-format= --minimal --new-file "
     "--no-dereference --no-ignore-file-name-case --normal --paginate=U --palette= --rcs "
     "--recursive --report-identical-files --show-c-function --show-function-line= "
     "--side-by-side --speed-large-files --starting-file= --strip-trailing-cr "
     "--suppress-blank-empty --suppress-common-lines --tabsize= --text --to-file=R "
     "--unidirectional-new-file --unified=? --width= --help --version"},
    {"cmp", Family::read_all,
     "-b -i= -l -n= -s -v --print-bytes --ignore-initial= --verbose --bytes= --quiet --silent "
     "--help --version"},
    {"comm", Family::read_all,
     "-1 -2 -3 -z --check-order --nocheck-order --output-delimiter= --total --zero-terminated "
     "--help --version"},
    {"md5sum", Family::read_all, kSumOptions},
    {"sha1sum", Family::read_all, kSumOptions},
    {"sha256sum", Family::read_all, kSumOptions},
    {"sha512sum", Family::read_all, kSumOptions},
    {"base64", Family::read_all, "-d -i -w= --decode --ignore-garbage --wrap= --help --version"},
    {"od", Family::read_all,
     "-A= -j= -N= -S=? -t= -v -w=? -a -b -c -d -f -i -l -o -s -x --address-radix= --endian= "
     "--skip-bytes= --read-bytes= --strings=? --format= --output-duplicates --width=? "
     "--traditional --help --version"},
    {"hexdump", Family::read_all,
     "-b -c -C -d -e= -f=R -L=? -n= -o -s= -v -x --one-byte-octal --one-byte-char --canonical "
     "--two-bytes-decimal --format= --format-file=R --color=? --length= --two-bytes-octal "
     "--skip= --no-squeezing --two-bytes-hex --help --version"},
    {"nl", Family::read_all,
     "-b= -d= -f= -h= -i= -l= -n= -p -s= -v= -w= --body-numbering= --section-delimiter= "
     "--footer-numbering= --header-numbering= --line-increment= --join-blank-lines= "
     "--number-format= --no-renumber --number-separator= --starting-line-number= "
     "--number-width= --help --version"},
    {"tac", Family::read_all, "-b -r -s= --before --regex --separator= --help --version"},
    {"rev", Family::read_all, "-0 --zero --help --version"},
    {"readlink", Family::read_all,
     "-f -e -m -n -q -s -v -z --canonicalize --canonicalize-existing --canonicalize-missing "
     "--no-newline --quiet --silent --verbose --zero --help --version"},
    {"realpath", Family::read_all,
     "-e -m -L -P -q -s -z --canonicalize-existing --canonicalize-missing --logical --physical "
     "--quiet --relative-to= --relative-base= --strip --no-symlinks --zero --help --version"},
    {"paste", Family::read_all,
     "-d= -s -z --delimiters= --serial --zero-terminated --help --version"},
    {"fold", Family::read_all, "-b -s -w= --bytes --spaces --width= --help --version"},
    {"grep", Family::grep,
     "-# -A= -a -b -B= -c -C= -d= -D= -e=S -E -f=R -F -G -h -H -i -I -l -L -m= -n -o -P -q -r -R "
     "-s -T -U -v -V -w -x -y -z -Z --after-context= --text --byte-offset --before-context= "
     "--binary-files= --count --color=? --colour=? --context= --devices= --directories= "
     "--exclude= --exclude-from=R --exclude-dir= --extended-regexp --regexp=S --file=R "
     "--fixed-strings --basic-regexp --no-filename --with-filename --ignore-case "
     "--no-ignore-case --include= --files-with-matches --files-without-match --label= "
     "--line-buffered --line-number --line-regexp --max-count= --no-messages --null "
     "--null-data --only-matching --perl-regexp --quiet --silent --recursive "
     "--dereference-recursive --initial-tab --binary --invert-match --version --word-regexp "
     "--group-separator= --no-group-separator --help"},
    {"egrep", Family::grep,
     "-# -A= -a -b -B= -c -C= -d= -D= -e=S -f=R -h -H -i -I -l -L -m= -n -o -q -r -R -s -T -U -v "
     "-V -w -x -z -Z --regexp=S --file=R --recursive --dereference-recursive --ignore-case "
     "--color=? --colour=? --count --line-number --no-filename --with-filename "
     "--files-with-matches --include= --exclude= --exclude-dir= --help"},
    {"fgrep", Family::grep,
     "-# -A= -a -b -B= -c -C= -d= -D= -e=S -f=R -h -H -i -I -l -L -m= -n -o -q -r -R -s -T -U -v "
     "-V -w -x -z -Z --regexp=S --file=R --recursive --dereference-recursive --ignore-case "
     "--color=? --colour=? --count --line-number --no-filename --with-filename "
     "--files-with-matches --include= --exclude= --exclude-dir= --help"},
    {"rg", Family::rg,
     "-A= -a -B= -b -C= -c -E= -e=S -F -f=R -g= -H -h -i -I -j= -L -l -M= -m= -N -n -o -P -p -q "
     "-r= -S -s -T= -t= -U -u -V -v -w -x -z --after-context= --before-context= --binary "
     "--byte-offset --case-sensitive --color= --colors= --column --context= --count "
     "--count-matches --crlf --encoding= --file=R --files --files-with-matches "
     "--files-without-match --fixed-strings --follow --glob= --iglob= --heading --no-heading "
     "--hidden --ignore-case --ignore-file=R --invert-match --json --line-number "
     "--line-regexp --max-columns= --max-count= --max-depth= --max-filesize= --multiline "
     "--no-filename --no-ignore --no-ignore-vcs --no-line-number --null --only-matching "
     "--pre=X --pre-glob= --pretty --quiet --regexp=S --replace= --search-zip --smart-case "
     "--sort= --sortr= --stats --text --threads= --trim --type= --type-not= --type-list "
     "--unrestricted --vimgrep --with-filename --word-regexp --help --version"},
    {"sed", Family::sed,
     "-n -e=S -f=S -E -r -i=?S -l= -s -u -z --quiet --silent --debug --expression=S --file=S "
     "--follow-symlinks --in-place=?S --line-length= --null-data --zero-terminated --posix "
     "--regexp-extended --separate --sandbox --unbuffered --help --version"},
    // awk is mawk on Debian; the table is the union with gawk's options.
    {"awk", Family::awk,
     "-f=S -v= -F= -W=U -b -c -C -d=?U -D=?U -e=S -E=S -g -h -i=S -I -k -l=U -L=? -M -n -N -o=?U "
     "-O -p=?U -P -r -s -S -t -V --file=S --assign= --field-separator= --characters-as-bytes "
     "--traditional --copyright --dump-variables=?U --debug=?U --source=S --exec=S --gen-pot "
     "--help --include=S --trace --csv --load=U --lint=? --bignum --use-lc-numeric "
     "--non-decimal-data --pretty-print=?U --optimize --profile=?U --posix --re-interval "
     "--no-optimize --sandbox --lint-old --version"},
    {"gawk", Family::awk,
     "-f=S -v= -F= -b -c -C -d=?U -D=?U -e=S -E=S -g -h -i=S -I -k -l=U -L=? -M -n -N -o=?U -O "
     "-p=?U -P -r -s -S -t -V --file=S --assign= --field-separator= --characters-as-bytes "
     "--traditional --copyright --dump-variables=?U --debug=?U --source=S --exec=S --gen-pot "
     "--help --include=S --trace --csv --load=U --lint=? --bignum --use-lc-numeric "
     "--non-decimal-data --pretty-print=?U --optimize --profile=?U --posix --re-interval "
     "--no-optimize --sandbox --lint-old --version"},
    {"mawk", Family::awk, "-f=S -v= -F= -W=U --version --help"},
    {"jq", Family::jq,
     "-n -r -j -a -c -C -M -S -s -R -e -h -V -0 -f=S -L=S --null-input --raw-output "
     "--join-output --ascii-output --compact-output --color-output --monochrome-output "
     "--sort-keys --slurp --raw-input --exit-status --tab --indent= --from-file=S "
     "--library-path=S --arg=2 --argjson=2 --slurpfile=2R --rawfile=2R --args --jsonargs --seq "
     "--stream --stream-errors --unbuffered --nul-output --help --version "
     "--debug-dump-disasm --debug-trace",
     ParseStyle::exact},
    {"touch", Family::write_all,
     "-a -c -d= -f -h -m -r=R -t= --no-create --date= --no-dereference --reference=R --time= "
     "--help --version"},
    {"mkdir", Family::write_all,
     "-m= -p -v -Z --mode= --parents --verbose --context=? --help --version"},
    {"mkfifo", Family::write_all, "-m= -Z --mode= --context=? --help --version"},
    {"tee", Family::write_all,
     "-a -i -p --append --ignore-interrupts --output-error=? --help --version"},
    {"rm", Family::edit_all,
     "-f -i -I -r -R -d -v --force --interactive=? --one-file-system --no-preserve-root "
     "--preserve-root=? --recursive --dir --verbose --help --version"},
    {"rmdir", Family::edit_all,
     "-p -v --ignore-fail-on-non-empty --parents --verbose --help --version"},
    {"unlink", Family::edit_all, "--help --version"},
    {"shred", Family::edit_all,
     "-f -n= -s= -u -v -x -z --force --iterations= --random-source=R --remove=? --size= "
     "--verbose --exact --zero --help --version"},
    {"truncate", Family::edit_all,
     "-c -o -r=R -s= --no-create --io-blocks --reference=R --size= --help --version"},
    // -r -w -x ... are modes, not options: `chmod -x f` (the mode letters).
    {"chmod", Family::chmod,
     "-c -f -v -R -r -w -x -X -s -t -u -g -o -a -0 -1 -2 -3 -4 -5 -6 -7 --changes --silent "
     "--quiet --verbose --no-preserve-root --preserve-root --reference=R --recursive --help "
     "--version"},
    {"chown", Family::edit_after_first,
     "-c -f -v -h -H -L -P -R --changes --dereference --no-dereference --from= "
     "--no-preserve-root --preserve-root --quiet --silent --reference=R --recursive --verbose "
     "--help --version"},
    {"chgrp", Family::edit_after_first,
     "-c -f -v -h -H -L -P -R --changes --dereference --no-dereference --no-preserve-root "
     "--preserve-root --quiet --silent --reference=R --recursive --verbose --help --version"},
    {"cp", Family::copy,
     "-a -b -d -f -i -H -l -L -n -P -p -R -r -s -S= -t=W -T -u -v -x -Z --archive "
     "--attributes-only --backup=? --copy-contents --debug --dereference --force --interactive "
     "--link --no-clobber --no-dereference --preserve=? --no-preserve= --parents --recursive "
     "--reflink=? --remove-destination --sparse= --strip-trailing-slashes --suffix= "
     "--symbolic-link --target-directory=W --no-target-directory --update=? --verbose "
     "--one-file-system --context=? --keep-directory-symlink --help --version"},
    {"ln", Family::copy,
     "-b -d -F -f -i -L -n -P -r -s -S= -t=W -T -v --backup=? --directory --force --interactive "
     "--logical --no-dereference --physical --relative --symbolic --suffix= "
     "--target-directory=W --no-target-directory --verbose --help --version"},
    {"install", Family::copy,
     "-b -c -C -d -D -g= -m= -o= -p -s -S= -t=W -T -v -Z --backup=? --compare --directory "
     "--group= --mode= --owner= --preserve-timestamps --strip --strip-program=X --suffix= "
     "--target-directory=W --no-target-directory --verbose --preserve-context --context=? "
     "--debug --help --version"},
    {"mv", Family::move,
     "-b -f -i -n -S= -t=W -T -u -v -Z --backup=? --context --debug --exchange --force "
     "--interactive --no-clobber --no-copy --strip-trailing-slashes --suffix= "
     "--target-directory=W --no-target-directory --update=? --verbose --help --version"},
    {"uniq", Family::read_then_write,
     "-c -d -D -f= -i -s= -u -w= -z --count --repeated --all-repeated=? --skip-fields= "
     "--group=? --ignore-case --skip-chars= --unique --zero-terminated --check-chars= --help "
     "--version"},
    {"xxd", Family::read_then_write,
     "-a -b -C -c= -E -e -g= -h -i -l= -n= -o= -p -r -d -R= -s= -u -v", ParseStyle::first},
    {"dd", Family::dd, "--help --version"},
    {"find", Family::find, ""},
    {"curl", Family::curl,
     "-o=W -O -T=R -d= -H= -X= -u= -A= -e= -b= -c=W -F= -w= -x= -m= -K=U -E= -r= -U= -Y= -y= "
     "-z= -C= -D=W -s -S -L -I -i -k -f -v -q -g -G -N -n -l -Z -j -J -R -4 -6 -0 "
     "--output=W --remote-name --remote-name-all --upload-file=R --data= --data-raw= "
     "--data-binary= --data-urlencode= --data-ascii= --header= --request= --user= "
     "--user-agent= --referer= --cookie= --cookie-jar=W --form= --form-string= --write-out= "
     "--proxy= --max-time= --connect-timeout= --url=S --config=U --cert= --key= --cacert= "
     "--range= --retry= --retry-delay= --retry-max-time= --output-dir=W --resolve= "
     "--connect-to= --json= --dump-header=W --silent --show-error --location --head "
     "--include --insecure --fail --fail-with-body --verbose --globoff --get --compressed "
     "--no-progress-meter --progress-bar --http1.1 --http2 --create-dirs --fail-early "
     "--max-redirs= --limit-rate= --no-buffer --tlsv1.2 --ipv4 --ipv6 --help --version"},
    {"wget", Family::wget,
     "-O=W -o=W -a=W -P=W -i=S -U= -e=U -t= -T= -w= -Q= -q -v -n= -c -N -S -r -l= -k -p "
     "--output-document=W --output-file=W --append-output=W --directory-prefix=W "
     "--input-file=S --user-agent= --execute=U --tries= --timeout= --wait= --quota= --header= "
     "--post-data= --post-file=R --body-file=R --body-data= --method= --user= --password= "
     "--quiet --verbose --no-verbose --continue --timestamping --server-response --spider "
     "--no-check-certificate --max-redirect= --help --version"},
    {"git", Family::git, ""},
};

std::vector<Program> build_programs() {
  std::vector<Program> programs;
  programs.reserve(std::size(kRows));
  for (const Row& row : kRows) {
    programs.push_back({row.name, row.family, compile_options(row.options, row.style)});
  }
  std::sort(programs.begin(), programs.end(),
            [](const Program& a, const Program& b) { return a.name < b.name; });
  return programs;
}

}  // namespace

const Program* find_program(std::string_view name) {
  static const std::vector<Program> programs = build_programs();
  const auto it = std::lower_bound(programs.begin(), programs.end(), name,
                                   [](const Program& p, std::string_view n) { return p.name < n; });
  return it != programs.end() && it->name == name ? &*it : nullptr;
}

bool is_shell(std::string_view name) {
  return name == "bash" || name == "sh" || name == "dash" || name == "zsh" || name == "ksh" ||
         name == "mksh" || name == "ash";
}

}  // namespace holdfast::gatekeeper::shell::detail
