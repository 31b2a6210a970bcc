#!/usr/bin/env bash
# The first-run timeline (issue 22): clone BRANCH of REPO afresh, `make run` on PORT, and
# print when install ended, the first progress line, /health 200, the first POST /path 200
# and (WAIT_ALL=1) when every kernel is loaded; `KEEP=1` reuses the clone (a warm restart).
#   bash bench/first_run.sh /path/to/repo main 8101 /tmp/first-run
# The pip cache should be warm (as in the issue); the numba cache of a fresh clone is cold.
set -u
REPO=$1 BRANCH=$2 PORT=$3 DIR=$4
if [ -z "${KEEP:-}" ]; then rm -rf "$DIR"; git clone -q -b "$BRANCH" "$REPO" "$DIR"; fi
cd "$DIR" || exit 2
export T0=${EPOCHREALTIME/./}
rel() { local d=$(( (${EPOCHREALTIME/./} - T0) / 100000 )); printf '%d.%d' $((d / 10)) $((d % 10)); }
export -f rel
# the server's output, each line stamped with the seconds since `make run` began
setsid bash -c "make run PORT=$PORT 2>&1 | while IFS= read -r l; do echo \"[\$(rel)] \$l\"; done" \
  > "$DIR.server.log" &
group=$!
trap 'kill -INT -- -$group 2>/dev/null; sleep 3; kill -KILL -- -$group 2>/dev/null' EXIT
health="" path="" all=""
body='{"map": "arena", "start": [2, 2], "goal": [24, 9]}'
while [ -z "$path" ] || { [ -n "${WAIT_ALL:-}" ] && [ -z "$all" ]; }; do
  sleep 0.25
  now=$(rel)
  [ "${now%.*}" -gt "${TIMEOUT:-1500}" ] && break
  if [ -z "$health" ] && [ "$(curl -s -o /dev/null -w '%{http_code}' "localhost:$PORT/health")" = 200 ]; then
    health=$now
  fi
  if [ -z "$path" ] && [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "localhost:$PORT/path" \
      -H 'content-type: application/json' -d "$body")" = 200 ]; then
    path=$now
  fi
  if [ -n "$path" ] && curl -s "localhost:$PORT/health" | grep -q '"waiting_for":null'; then all=$now; fi
done
installed=$(grep -m1 'touch .venv/.installed' "$DIR.server.log" | sed 's/^\[\([0-9.]*\)\].*/\1/')
progress=$(grep -m1 'kernels: ' "$DIR.server.log" | sed 's/^\[\([0-9.]*\)\].*/\1/')
echo "install ${installed:-cached} s | first progress line ${progress:-none} s |" \
     "/health 200 ${health:-never} s | first POST /path 200 ${path:-never} s |" \
     "every kernel ${all:-not waited for} s"
