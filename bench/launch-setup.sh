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
