#!/usr/bin/env bash
# Writes the man pages of holdfast, of each of its subcommands and of
# holdfast-race, gzipped, from the programs' own --help text (help2man), so
# a man page cannot say something the CLI does not.
#
#   make-man-pages.sh HOLDFAST HOLDFAST_RACE VERSION OUT_DIR
#
# A subcommand's page is made through a small wrapper that runs
# `holdfast SUBCOMMAND "$@"` under the name "holdfast", so the usage line
# reads "holdfast run ..." and not the build path. `holdfast settings`
# has subcommands of its own: their --help text is appended to its page.
set -euo pipefail
holdfast=$(realpath "$1")
race=$(realpath "$2")
version=$3
out=$4
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The one-line description of each program, for the page's NAME section.
describe() {
  "$holdfast" --help | awk -v name="$1" '$1 == name { $1 = ""; sub(/^ +/, ""); print; exit }'
}

# page NAME DESCRIPTION PROGRAM [help2man options...]
page() {
  local name=$1 description=$2 program=$3
  shift 3
  help2man --no-info --no-discard-stderr --version-string="$version" \
    --name="$description" --section=1 --source="holdfast $version" \
    --manual="holdfast manual" "$@" --output="$work/$name.1" "$program"
  gzip -9n -c "$work/$name.1" > "$out/$name.1.gz"
}

# Text as roff: a backslash is \e, a line starting with . or ' is escaped.
roff_text() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

page holdfast "durable settings and confined command launches" \
  "$(wrapper="$work/holdfast"; printf '#!/bin/bash\nexec -a holdfast %q "$@"\n' "$holdfast" \
      > "$wrapper"; chmod +x "$wrapper"; echo "$wrapper")"

for sub in settings check run doctor serve; do
  wrapper="$work/holdfast-$sub"
  printf '#!/bin/bash\nexec -a holdfast %q %s "$@"\n' "$holdfast" "$sub" > "$wrapper"
  chmod +x "$wrapper"
  extra=()
  if [ "$sub" = settings ]; then
    include="$work/settings.h2m"
    echo "[SUBCOMMANDS]" > "$include"
    for settings_sub in $("$holdfast" settings --help |
        awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }'); do
      {
        printf '.SS "holdfast settings %s"\n.nf\n' "$settings_sub"
        (exec -a holdfast "$holdfast" settings "$settings_sub" --help) | roff_text
        printf '.fi\n'
      } >> "$include"
    done
    extra=(--include="$include")
  fi
  page "holdfast-$sub" "$(describe "$sub")" "$wrapper" "${extra[@]}"
done

# holdfast-race's page holds its subcommands' --help too (campaign's
# options are most of what a user of the harness needs).
wrapper="$work/holdfast-race"
printf '#!/bin/bash\nexec -a holdfast-race %q "$@"\n' "$race" > "$wrapper"
chmod +x "$wrapper"
include="$work/race.h2m"
echo "[SUBCOMMANDS]" > "$include"
for race_sub in campaign crash report; do
  {
    printf '.SS "holdfast-race %s"\n.nf\n' "$race_sub"
    # (campaign --help ends with the contract, which the page has already.)
    (exec -a holdfast-race "$race" "$race_sub" --help) |
      sed '/^Your own programs in a campaign/,$d' | roff_text
    printf '.fi\n'
  } >> "$include"
done
page holdfast-race "race campaigns against settings writers, readers and launchers" \
  "$wrapper" --include="$include"
