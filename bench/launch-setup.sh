# Sourced by the whole-process scripts in bench/: the settings and the
# workspace every measured launch uses. Expects $holdfast; sets $work (removed
# on exit), exports the settings locations and leaves the shell in
# $work/workspace.
work=$(mktemp -d /tmp/holdfast-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/workspace" "$work/etc" "$work/config"
chmod 755 "$work"
export HOLDFAST_SYSTEM_DIR=$work/etc HOLDFAST_CONFIG_DIR=$work/config XDG_STATE_HOME=$work/state
# The policy every measured launch uses (read-only, network closed).
"$holdfast" settings set tools.executionSandbox \
  '{"filesystem": "read-only", "network": "closed"}' >/dev/null
cd "$work/workspace"
# A missing scope file in a directory changed within the last 5 s costs a
# settle window (the snapshot's proof that no writer is mid-save). The
# directories were just made; on a real host they are old. Let them age.
sleep 6

# bare_bwrap_argv HOLDFAST NAME: the argv `HOLDFAST run --dry-run` would run,
# made runnable as bare bubblewrap: in `argv`, with the seccomp program
# (saved to $work/filter-NAME.bpf) on fd 3 and each denied file's empty
# data (--ro-bind-data N) from /dev/null on descriptors 10 and up, which
# `data_fds` hands to launch_compare (--fd N /dev/null).
bare_bwrap_argv() {
  mapfile -t argv < <("$1" run --dry-run --save-seccomp "$work/filter-$2.bpf" -- /bin/true)
  data_fds=()
  local next_fd=10 i
  for i in "${!argv[@]}"; do
    if [[ ${argv[$i]} == --seccomp ]]; then argv[$((i + 1))]=3; fi
    if [[ ${argv[$i]} == --ro-bind-data ]]; then
      argv[$((i + 1))]=$next_fd
      data_fds+=(--fd "$next_fd" /dev/null)
      next_fd=$((next_fd + 1))
    fi
  done
}
