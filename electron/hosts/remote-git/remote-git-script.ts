import { hardenedGitSettings, hardenedGitVariables } from '../../git/hardened-git';

/**
 * The console's one script for git on an SSH host (issue 28), run through remote-script.ts: fixed
 * text, its inputs as "$1"... (quoted single arguments) and, for a bundle, ssh's standard input. Three
 * modes:
 *
 * - `state <store> <format>`: makes the project's object store in the console's remote folder when
 *   it is missing (a bare repository, no template, so no hooks) and prints `have <commit>` for each
 *   base revision it already holds, so the console bundles only what the host lacks;
 * - `receive <store> <format> <repository> <base> <branch>`: stdin is that bundle (empty when the store
 *   holds the base already); it is unbundled into the store, and a new repository is made at
 *   <repository>, borrowing the store's objects, its branch at the base and checked out;
 * - `pack <repository> <store> <format> <max file bytes> [<commit the console has>...]`: the run's
 *   commits, and its work tree as the agent left it (a commit of the console's on top of HEAD, made in
 *   its own index: what the agent did not commit comes back too), as one pack on stdout, after a line
 *   `operator-console-pack <HEAD> <work tree commit>` (HEAD twice when the work tree could not be
 *   read whole); refused when a file in them inflates beyond the bound (a pack bomb).
 *
 * The run's repository is hostile (the agent wrote it), so `pack` reads it as hardened-git reads a
 * run's files locally: git never opens it as a repository (no config of the agent's, no hooks, no
 * attributes, no fsmonitor), only its objects and a copy of its refs, through a throwaway git dir
 * with the console's own config, hardened-git's settings on the command line and its variables. And
 * it does so in a bubblewrap sandbox of its own (the tool sandbox's part on the host): no network,
 * nothing of the remote user's home, only the run's git dir and the store's objects, read-only, so a
 * link or an alternates line the agent planted cannot make the console's git read the remote user's
 * other repositories. A `.git` that is a link or not a folder is refused before anything reads it.
 *
 * Every step is bounded by `timeout` on the host (the console also stops ssh at its own limit): a FIFO
 * where git reads, or a host that stalls, ends in a kill there, so nothing is left waiting on the host.
 * A refusal is one line on stderr, `operator-console-git: <reason> <words>`, and exit status 3.
 */

/** A constant of the console's as one sh word. */
function quoted(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

const gitSettings = hardenedGitSettings.map((setting) => `-c ${quoted(setting)}`).join(' ');
const gitVariables = Object.entries(hardenedGitVariables)
  .map(([name, value]) => `${name}=${quoted(value)}`)
  .join(' ');

/**
 * Runs inside the host's sandbox: the refs copied to a throwaway git dir, the work tree as the agent
 * left it made a commit on top of HEAD in the console's own index, then rev-parse and pack-objects.
 */
const packInSandbox = `set -u
w=$1; store_objects=$2; format=$3; max_blob=$4; shift 4
g=$w/.git
refuse() { printf 'operator-console-git: %s %s\\n' "$1" "$2" >&2; exit 3; }
mkdir -p git/objects git/refs || exit 10
if [ -d "$g/refs" ] && [ ! -L "$g/refs" ]; then cp -R -P "$g/refs/." git/refs/ 2>/dev/null; fi
for f in HEAD packed-refs; do
  if [ -e "$g/$f" ] || [ -L "$g/$f" ]; then cp -R -P "$g/$f" "git/$f" || refuse remote_repository_unsafe "the run's $f could not be read"; fi
done
if [ "$format" = sha256 ]; then
  printf '[core]\\n\\trepositoryformatversion = 1\\n\\tbare = true\\n[extensions]\\n\\tobjectFormat = sha256\\n' > git/config
else
  printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = true\\n' > git/config
fi
# The run's objects and the store's are only read; what the console makes here goes to its own folder.
scratch=$PWD
hgit() {
  env -i PATH=/usr/bin:/bin HOME="$scratch" ${gitVariables} GIT_DIR="$scratch/git" GIT_OBJECT_DIRECTORY="$scratch/git/objects" \\
    GIT_ALTERNATE_OBJECT_DIRECTORIES="$g/objects:$store_objects" GIT_WORK_TREE="$w" GIT_INDEX_FILE="$scratch/index" \\
    GIT_AUTHOR_NAME='Operator Console' GIT_AUTHOR_EMAIL='operator-console@localhost' GIT_COMMITTER_NAME='Operator Console' GIT_COMMITTER_EMAIL='operator-console@localhost' \\
    GIT_AUTHOR_DATE="\${when:-}" GIT_COMMITTER_DATE="\${when:-}" git ${gitSettings} "$@"
}
head=$(hgit rev-parse --verify -q 'HEAD^{commit}') || refuse remote_head_missing "the run's HEAD names no commit its repository holds"
# What the agent left uncommitted, as a commit on HEAD dated as HEAD is (so the same work makes the same commit).
when="@$(hgit log -1 --format=%ct "$head") +0000"
# A work tree git cannot read whole (a FIFO or a socket the agent left in it) is not brought back: HEAD
# stands for it, and the console says so.
if (cd "$w" && hgit read-tree "$head" && hgit add -A) >/dev/null 2>&1 && tree=$(hgit write-tree) &&
  worktree=$(printf 'The run’s work tree as its agent left it\\n' | hgit commit-tree "$tree" -p "$head"); then :; else worktree=$head; fi
: > haves
for have in "$@"; do
  if hgit cat-file -e "$have^{commit}" 2>/dev/null; then printf '^%s\\n' "$have" >> haves; fi
done
# A pack bomb: a file that packs small and inflates huge. The pack's own size is bounded by the console;
# what a file inflates to is only known here, so a file beyond the bound is refused before anything is sent.
big=$({ printf '%s\\n' "$worktree"; cat haves; } | hgit rev-list --objects --stdin --filter=blob:limit="$max_blob" --filter-print-omitted | grep -m 1 '^~')
if [ -n "$big" ]; then refuse remote_pack_too_large "the run's commits or work tree hold a file of more than $max_blob bytes"; fi
printf 'operator-console-pack %s %s\\n' "$head" "$worktree"
{ printf '%s\\n' "$worktree"; cat haves; } | hgit pack-objects --revs --stdout --quiet
`;

export const remoteGitScript = `set -u
umask 077
export LC_ALL=C
limit=$1; mode=$2; shift 2
refuse() { printf 'operator-console-git: %s %s\\n' "$1" "$2" >&2; exit 3; }
bounded() {
  command -v timeout >/dev/null 2>&1 || { "$@"; return; }
  timeout -k 2 "$limit" "$@"
  status=$?
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then refuse remote_git_timed_out "git on the host took longer than $limit s and was stopped"; fi
  return "$status"
}
absolute() { case $1 in /*) printf '%s' "$1";; *) printf '%s/%s' "$HOME" "$1";; esac; }
command -v git >/dev/null 2>&1 || refuse remote_git_missing "git is not installed on the host"
# hg <git dir or -> <work tree or -> <git arguments>: git with hardened-git's settings and variables.
hg() {
  d=$1; w=$2; shift 2
  set -- git ${gitSettings} "$@"
  if [ "$w" != - ]; then set -- GIT_WORK_TREE="$w" "$@"; fi
  if [ "$d" != - ]; then set -- GIT_DIR="$d" "$@"; fi
  bounded env -i PATH="$PATH" HOME=/nonexistent ${gitVariables} "$@"
}
prepare_store() {
  if [ -L "$store" ]; then refuse remote_repository_unsafe "the console's object store $store is a link"; fi
  if [ ! -d "$store" ]; then
    mkdir -p "$store" || refuse remote_git_failed "the console could not make $store"
    hg - - init --quiet --bare --template= --object-format="$format" "$store" >/dev/null || refuse remote_git_failed "git init failed in $store"
  fi
}
case $mode in
state)
  store=$(absolute "$1"); format=$2
  prepare_store
  hg "$store" - for-each-ref --count=500 --sort=-committerdate --format='have %(objectname)' refs/operator-console/bases/ || refuse remote_git_failed "git could not list $store"
  ;;
receive)
  store=$(absolute "$1"); format=$2; repository=$(absolute "$3"); base=$4; branch=$5
  prepare_store
  if [ -e "$repository" ] || [ -L "$repository" ]; then refuse remote_repository_exists "$repository is already there"; fi
  incoming=$(mktemp "$store/incoming-XXXXXX") || refuse remote_git_failed "no room for the bundle in $store"
  trap 'rm -f "$incoming"' EXIT
  bounded cat > "$incoming" || refuse remote_git_failed "the bundle did not arrive whole"
  if [ -s "$incoming" ]; then
    hg "$store" - bundle unbundle "$incoming" >/dev/null || refuse remote_bundle_refused "git refused the bundle"
  fi
  hg "$store" - cat-file -e "$base^{commit}" 2>/dev/null || refuse remote_base_missing "the store lacks $base"
  hg "$store" - update-ref "refs/operator-console/bases/$base" "$base" || refuse remote_git_failed "git could not keep $base"
  mkdir -p "$(dirname "$repository")" || refuse remote_git_failed "the console could not make the folder of $repository"
  hg - - init --quiet --template= --object-format="$format" "$repository" >/dev/null || refuse remote_git_failed "git init failed in $repository"
  mkdir -p "$repository/.git/objects/info" && printf '%s\\n' "$store/objects" > "$repository/.git/objects/info/alternates" || refuse remote_git_failed "the console could not link $repository to its store"
  hg "$repository/.git" - update-ref "refs/heads/$branch" "$base" || refuse remote_git_failed "git could not make the branch $branch"
  hg "$repository/.git" - symbolic-ref HEAD "refs/heads/$branch" || refuse remote_git_failed "git could not check out $branch"
  (cd "$repository" && hg "$repository/.git" "$repository" read-tree -u --reset HEAD) || refuse remote_git_failed "git could not check out $base"
  printf 'ready %s\\n' "$base"
  ;;
pack)
  repository=$(absolute "$1"); store=$(absolute "$2"); format=$3; max_blob=$4; shift 4
  g=$repository/.git
  if [ -L "$repository" ] || [ ! -d "$repository" ]; then refuse remote_repository_unsafe "$repository is not a folder"; fi
  if [ -L "$g" ] || [ ! -d "$g" ]; then refuse remote_repository_unsafe "the run's .git is a link or not a folder"; fi
  if [ -L "$g/objects" ] || [ ! -d "$g/objects" ]; then refuse remote_repository_unsafe "the run's .git/objects is a link or not a folder"; fi
  if [ -L "$store" ] || [ ! -d "$store/objects" ]; then refuse remote_repository_unsafe "the console's object store $store is a link or not there"; fi
  command -v bwrap >/dev/null 2>&1 || refuse remote_sandbox_unavailable "bubblewrap is not installed on the host"
  # A root account's run ran as the sandbox's user, whose its view was (confine-on-host.ts): the view is
  # taken back first (its agent has ended; no link followed), so the sandbox below, root in a user
  # namespace of its own, reads it as the console's. The next attempt hands it over again.
  if [ "$(id -u)" = 0 ]; then bounded chown -R -P -h 0:0 -- "$repository" || refuse remote_git_failed "the run's view could not be taken back from the sandbox's user"; fi
  scratch=$(mktemp -d) || refuse remote_git_failed "no temporary folder on the host"
  trap 'rm -rf "$scratch"' EXIT
  bounded bwrap --unshare-all --die-with-parent --new-session \\
    --ro-bind /usr /usr --ro-bind-try /bin /bin --ro-bind-try /lib /lib --ro-bind-try /lib64 /lib64 --ro-bind-try /lib32 /lib32 \\
    --ro-bind-try /etc/ld.so.cache /etc/ld.so.cache --proc /proc --dev /dev --tmpfs /tmp \\
    --ro-bind "$repository" "$repository" --ro-bind "$store/objects" "$store/objects" --bind "$scratch" /tmp/work --chdir /tmp/work \\
    --clearenv --setenv PATH /usr/bin:/bin \\
    -- sh -c ${quoted(packInSandbox)} operator-console-pack "$repository" "$store/objects" "$format" "$max_blob" "$@"
  ;;
*)
  refuse remote_git_failed "unknown mode $mode"
  ;;
esac
`;
