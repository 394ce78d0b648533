// Admission: everything that stops a launch before any argv is built.
//
// Workspace rules: it must exist and be a directory, must not have the
// layout of a bare git repository (HEAD, objects/, refs/: git would take it
// for a repository whose config the command could write), must not be /, must not
// contain $HOME, must not overlap the system's own trees (/proc /dev /sys
// /etc /usr /bin /sbin /lib* /boot /efi) or holdfast's operator settings
// directories, must not be or contain a directory that holds system state or
// other users' files (/var, /var/lib and each service's directory in it,
// /var/tmp, /tmp, /run, /run/user and each session in it, /home and each
// home in it, /root, /srv, /opt, /mnt, /media, ...); the cwd must be inside
// it (and not denied by the policy).
//
// Representability rules (what bubblewrap cannot enforce exactly is refused,
// naming the entry): no entry inside /proc or /dev (always fresh); no write
// access at or under an operator settings directory; no read/deny carve-out
// reached through a symlink in a writable directory (the link could be
// retargeted from inside); no missing read/deny carve-out under a writable
// directory (it could be created from inside); no protected name
// (protected_names.hpp) that is a symlink in a writable root; no operator settings
// directory or protected gitdir reached through a symlink in a writable
// directory (the next launch, or git, would follow a retargeted link); no
// missing operator settings directory, gitdir, or hooks directory or
// include file of git's configuration whose parent is missing too under a
// writable directory (its ancestors could not be pinned).
//
// holdfast's state directory (launch records) is protected like the
// settings directories: no write entry at or under it, no workspace that
// overlaps it, not reached through a symlink in a writable directory.
//
// The operator settings files the snapshot read must not be writable
// inside: not the file itself (a symlink's target included), not through a
// symlink in a writable directory, and not through another name: a file
// with more than one hard link on the device of a writable path could have
// one of them inside. A file that is no longer the one the snapshot read is
// refused too (read again by starting again).
//
// resolve_policy (resolved_policy.hpp) runs these checks, the first before
// the rules are built, the second on them, and keeps the refusals.
#pragma once

#include <vector>

#include "launcher/sandbox/host_facts.hpp"
#include "launcher/sandbox/refusal.hpp"
#include "launcher/sandbox/resolved_policy.hpp"

namespace holdfast::sandbox {

// Whether the workspace is a directory other than /, the only kind the
// policy's tokens can build rules on (any other is refused by
// check_workspace_admission).
bool workspace_holds_rules(const HostFacts& facts);

// The workspace, the walk for protected names, the state directory apart
// from the workspace: what needs no rules. Pure; appends to `out`.
void check_workspace_admission(const HostFacts& facts, std::vector<Refusal>& out);

// What the rules of `resolved` (built on `facts`) cannot enforce, or would
// let the command write for later. Pure; appends to `out`.
void check_rule_admission(const ResolvedPolicy& resolved, const HostFacts& facts,
                          std::vector<Refusal>& out);

}  // namespace holdfast::sandbox
