/**
 * The shell text of the hooks `tasks hooks install` writes and of the
 * server's pre-receive guard. They are deliberately tiny: the foreground
 * part of a client hook starts no node process. It records what happened
 * (a commit's sha and branch, a push's refs) in a queue file under the git
 * directory and starts `tasks hooks run` detached, with no terminal and no
 * pipes back to git, so `git commit` and `git push` never wait for it.
 *
 * A hook that was there before is kept beside ours as `<name>.git-tasks-chained`
 * and runs first, with the same arguments and standard input; its exit
 * status is passed on (a user's pre-push that refuses still refuses). Our
 * own part always ends with that status, never with a failure of its own.
 */

/** Second line of every hook we write: how install and uninstall recognise ours. */
export const HOOK_MARKER = '# git-tasks hook'
export const CHAINED_SUFFIX = '.git-tasks-chained'
/** The client hooks `tasks hooks install` manages. */
export const CLIENT_HOOKS = ['prepare-commit-msg', 'post-commit', 'pre-push'] as const
export type ClientHook = (typeof CLIENT_HOOKS)[number]

export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`
}

const header = (name: string) => `#!/bin/sh
${HOOK_MARKER}: ${name}. Written by \`tasks hooks install\`; \`tasks hooks uninstall\` puts back what was here.
# A hook that was here before runs first, as ${name}${CHAINED_SUFFIX}; its exit status is passed on.
`

/**
 * Sets g (the git dir) and h (the first line of its HEAD) without a git
 * process when git told the hook where the index is (GIT_INDEX_FILE, set for
 * the commit hooks; its directory is the git dir, also in a worktree), else
 * with one \`git rev-parse\`.
 */
const READ_HEAD = `g=
case "$GIT_INDEX_FILE" in */*) g=\${GIT_INDEX_FILE%/*} ;; ?*) g=. ;; esac
[ -n "$g" ] && [ -f "$g/HEAD" ] || g=$(git rev-parse --git-dir 2>/dev/null) || exit 0
h=
read -r h <"$g/HEAD" 2>/dev/null`

/**
 * Start the background worker: detached (its own session), no terminal, no
 * pipes to git. Not even node starts while git runs: a forked shell waits
 * for the git process that ran the hook ($PPID) to end, then execs the worker.
 */
function spawnRunner(cli: string): string {
  return `( while kill -0 "$PPID" 2>/dev/null; do sleep 0.1; done
  if command -v setsid >/dev/null 2>&1; then exec setsid ${cli} hooks run; else exec ${cli} hooks run; fi ) </dev/null >/dev/null 2>&1 &`
}

/**
 * `cli`: the command that runs the CLI, already shell-quoted (absolute
 * node and bin/tasks paths, so no PATH search on every commit).
 */
export function clientHookScript(name: ClientHook, cli: string): string {
  switch (name) {
    case 'prepare-commit-msg':
      // Only a message given with -m/-F/-C or an amend gets the trailer: in the editor an
      // added line would turn "quit without writing" into a commit instead of an abort.
      // Shell built-ins up to the message, which is read by `tail` (and `grep` when it is over
      // 1 KiB): the shell loop sees at most 1 KiB.
      return `${header(name)}c="$0${CHAINED_SUFFIX}"
if [ -x "$c" ]; then "$c" "$@" || exit $?; fi
[ -n "$TASKS_HOOKS_DISABLE" ] && exit 0
case "$2" in message|commit) ;; *) exit 0 ;; esac
${READ_HEAD}
case "$h" in "ref: refs/heads/"*) b=\${h#ref: refs/heads/} ;; *) exit 0 ;; esac
t=\${b#*/}
case "$t" in */*) exit 0 ;; esac
case "$t" in tsk-*) t=\${t#tsk-} ;; *) [ "\${b%%/*}" = task ] && [ "$t" != "$b" ] || exit 0 ;; esac
t=\${t%%-*}
case "$t" in *[!0-9a-hjkmnp-tv-z]*|''|?|??|???) exit 0 ;; esac
# The message is read by \`tail\` (its last 1 KiB; a shell \`read\` loop reads a byte at a time:
# 0.6 s for 1 MB), and when it is longer than that, searched by \`grep\`: linear whatever its
# size. A line that already names a card (Task, Card, Refs, Closes, Fixes) leaves it alone. Where
# the trailer goes is decided by the end of the message. When that end is not the whole
# message, a line came before it (the subject) and its first line is a piece of a longer
# line, counted as text that is not a trailer.
LC_ALL=C
r=$(tail -c 1024 <"$1" 2>/dev/null; echo .)
f=0
if [ \${#r} -gt 1024 ]; then
  f=1
  grep -q -i -E '^(task|card|refs|closes|fixes):' <"$1" 2>/dev/null && exit 0
fi
r=\${r%.}
r=\${r%
}
last=
n=$f
p=0
while IFS= read -r l || [ -n "$l" ]; do
  if [ "$f" = 1 ]; then f=0; last=-; continue; fi
  case "$l" in
    [Tt][Aa][Ss][Kk]:*|[Cc][Aa][Rr][Dd]:*|[Rr][Ee][Ff][Ss]:*|[Cc][Ll][Oo][Ss][Ee][Ss]:*|[Ff][Ii][Xx][Ee][Ss]:*) exit 0 ;;
    '#'*) ;;
    '') [ "$n" = 1 ] && p=1 ;;
    *) last=$l; n=1 ;;
  esac
done <<GIT_TASKS_END
$r
GIT_TASKS_END
[ -n "$last" ] || exit 0
# Beside an existing trailer block, else as a new paragraph (never into the subject's).
sep='\\n'
case "$last" in *' '*': '*) ;; [A-Za-z]*': '*) [ "$p" = 1 ] && sep= ;; esac
printf "$sep%s\\n" "Task: tsk-$t" >>"$1" 2>/dev/null
exit 0
`
    case 'post-commit':
      return `${header(name)}c="$0${CHAINED_SUFFIX}"
s=0
if [ -x "$c" ]; then "$c" "$@"; s=$?; fi
[ -n "$TASKS_HOOKS_DISABLE" ] && exit $s
${READ_HEAD}
d=$g
[ -f "$g/commondir" ] && { read -r d <"$g/commondir"; case "$d" in /*) ;; *) d="$g/$d" ;; esac; }
o=
case "$h" in
  "ref: refs/heads/"*) b=\${h#ref: refs/heads/}; [ -f "$d/refs/heads/$b" ] && read -r o <"$d/refs/heads/$b" ;;
  ????????????????????????????????????????*) b=HEAD; o=$h ;;
esac
if [ -z "$o" ]; then
  r=$(git rev-parse --git-common-dir HEAD --abbrev-ref HEAD 2>/dev/null) || exit $s
  { read -r d; read -r o; read -r b; } <<GIT_TASKS_END
$r
GIT_TASKS_END
fi
[ -d "$d/git-tasks" ] || mkdir -p "$d/git-tasks" 2>/dev/null
# One NUL-delimited record with its field count (src/hooks/queue.ts): no value can spill into another.
printf '\\000q2\\000%s\\000commit\\000%s\\000%s\\000\\n' 3 "$o" "$b" >>"$d/git-tasks/hook-queue" 2>/dev/null || exit $s
${spawnRunner(cli)}
exit $s
`
    case 'pre-push':
      return `${header(name)}c="$0${CHAINED_SUFFIX}"
i=
while IFS= read -r l; do i="$i$l
"; done
if [ -x "$c" ]; then printf '%s' "$i" | "$c" "$@" || exit $?; fi
[ -n "$TASKS_HOOKS_DISABLE" ] && exit 0
[ -n "$i" ] || exit 0
g=\${GIT_DIR:-.git}
if [ -d "$g" ]; then
  d=$g
  [ -f "$g/commondir" ] && { read -r d <"$g/commondir"; case "$d" in /*) ;; *) d="$g/$d" ;; esac; }
else
  d=$(git rev-parse --git-common-dir 2>/dev/null) || exit 0
fi
[ -d "$d/git-tasks" ] || mkdir -p "$d/git-tasks" 2>/dev/null
# git's lines: <local ref> <local sha> <remote ref> <remote sha>, read from the end (only the
# local ref, which the worker does not use, could hold a space). One NUL-delimited record per
# line with its field count (src/hooks/queue.ts): the remote's name and URL ($1, $2) may hold
# spaces, newlines or a leading dash and still stay one field each.
while IFS= read -r l; do
  [ -n "$l" ] || continue
  rs=\${l##* }; l=\${l% *}; rr=\${l##* }; l=\${l% *}; ls=\${l##* }; lr=\${l% *}
  printf '\\000q2\\000%s\\000push\\000%s\\000%s\\000%s\\000%s\\000%s\\000%s\\000%s\\000\\n' 8 "$PPID" "$1" "$2" "$ls" "$rs" "$rr" "$lr"
done >>"$d/git-tasks/hook-queue" 2>/dev/null <<GIT_TASKS_END
$i
GIT_TASKS_END
${spawnRunner(cli)}
exit 0
`
  }
}

/**
 * The server's pre-receive guard: every update of a `refs/tasks/*` ref is
 * checked by `tasks verify`; other refs pass untouched. An existing
 * pre-receive runs first and may refuse on its own.
 */
export function preReceiveScript(cli: string): string {
  return `${header('pre-receive')}c="$0${CHAINED_SUFFIX}"
i=$(cat)
if [ -x "$c" ]; then
  if [ -n "$i" ]; then printf '%s\\n' "$i" | "$c" "$@" || exit $?; else "$c" "$@" </dev/null || exit $?; fi
fi
[ -n "$i" ] || exit 0
printf '%s\\n' "$i" | {
  s=0
  while read -r old new ref; do
    case "$ref" in
      refs/tasks/*) ${cli} verify "$old" "$new" --ref "$ref" </dev/null >&2 || s=1 ;;
    esac
  done
  exit $s
}
`
}
