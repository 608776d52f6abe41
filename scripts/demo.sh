#!/usr/bin/env bash
# A tour of git-tasks in a throwaway repository: `npm run demo`.
set -euo pipefail
TASKS="$(cd "$(dirname "$0")/.." && pwd)/bin/tasks"
DEMO="$(mktemp -d "${TMPDIR:-/tmp}/git-tasks-demo-XXXXXX")"
cd "$DEMO"
git init -q
git config user.email "alice@example.com"
git config user.name "Alice"
show_args() { local a out=""; for a in "$@"; do case "$a" in *' '*) out+=" \"$a\"";; *) out+=" $a";; esac; done; printf '%s' "$out"; }
run() { printf '\n$ tasks%s\n' "$(show_args "$@")"; "$TASKS" "$@" 2>&1; }

run init
# The real output of `tasks add` (`added tsk-…  TITLE`); its short id is used from then on.
ADDED=$(run add "Design the claim API" --tag backend -p 1)
printf '%s\n' "$ADDED"
API=$(printf '%s\n' "$ADDED" | awk '$1 == "added" { print $2; exit }')
run add "Implement compare-and-swap claims" --tag backend --depends-on "$API"
run add "Write the user guide" --tag docs -p 3
run list
printf '\n# two agents ask for work at the same moment\n'
printf '$ TASKS_ACTOR=agent-1 tasks next & TASKS_ACTOR=agent-2 tasks next\n'
TASKS_ACTOR=agent-1 "$TASKS" next & TASKS_ACTOR=agent-2 "$TASKS" next; wait
printf '\n# agent-1 crashed and asks again: it gets its own item back, not a second one\n'
run next --as agent-1
run claim "$API" --as agent-3 || printf '(exit %s)\n' "$?"
OWNER=$("$TASKS" show "$API" --json | node -pe 'JSON.parse(require("fs").readFileSync(0,"utf8")).task.owner')
run done "$API" --as "$OWNER"
run list
run comment "$API" "Claims are a CAS on refs/tasks/main" --kind decision
run show "$API"
printf '\n$ git log --oneline refs/tasks/main\n'
git log --oneline refs/tasks/main
printf '\n(demo repository: %s)\n' "$DEMO"
