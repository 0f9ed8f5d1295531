#!/usr/bin/env bash
# The main job on one machine: builds the providers, starts the portal emulator
# with a data file, and runs `pulumi up` on the `local` stack with a local state
# directory (no Pulumi account). Usage: npm run local [-- <extra pulumi up flags>]
set -euo pipefail
cd "$(dirname "$0")/.."

PORT=18787                      # the url in stacks/Pulumi.local.yaml
STATE_DIR="$PWD/.pulumi-local"  # Pulumi state (git-ignored)
DATA_FILE="$PWD/.emulator-data/portal.json"

# The port taken (the emulator of docs/emulator.md still running): one line naming what holds it, before anything
# is built or found.
node_modules/.bin/ts-node --transpile-only emulator/port-holder.ts "$PORT" "npm run local" || exit 1

# The Pulumi CLI: an installed one on PATH, else the one scripts/pulumi-tools.sh builds from the Go module
# proxy into .tools/bin (built here once when Go is there), else the `pulumi` npm package (a launcher that
# downloads the CLI on first use from get.pulumi.com). `npm run` puts node_modules/.bin first on PATH, so the
# launcher is skipped while looking for an installed CLI.
installed_cli() {
  local IFS=: dir
  for dir in $PATH; do
    case "$dir" in */node_modules/.bin) continue ;; esac
    if [ -x "$dir/pulumi" ]; then echo "$dir/pulumi"; return 0; fi
  done
  return 1
}
if cli=$(installed_cli); then
  PULUMI=("$cli")
elif tools=$(bash scripts/pulumi-tools.sh); then
  # The built CLI finds its language hosts and the dynamic provider's script next to itself.
  PULUMI=("$tools/pulumi")
  export PATH="$tools:$PATH"
else
  PULUMI=(npx --no-install pulumi)
fi
if ! "${PULUMI[@]}" version >/dev/null 2>&1; then
  echo "npm run local needs the Pulumi CLI, which is not installed and could not be built or downloaded here: install it (curl -fsSL https://get.pulumi.com | sh, or brew install pulumi), or install Go 1.26 and run npm run local again." >&2
  exit 1
fi

npm run --silent build  # the program (stacks/index.js) and the providers run the compiled package in dist/
mkdir -p "$STATE_DIR" "$(dirname "$DATA_FILE")"

log=$(mktemp)
node_modules/.bin/ts-node --transpile-only emulator/main.ts --port "$PORT" --data "$DATA_FILE" >"$log" 2>&1 &
emulator=$!
trap 'kill "$emulator" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 100); do   # up to 20 s for the emulator to listen
  grep -q "portal emulator listening" "$log" && break
  kill -0 "$emulator" 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.2
done
grep -q "portal emulator listening" "$log" || { echo "the portal emulator did not start:" >&2; cat "$log" >&2; exit 1; }
grep -m1 "portal emulator listening" "$log"

export PULUMI_BACKEND_URL="file://$STATE_DIR"
# The passphrase of the encryptionsalt committed in stacks/Pulumi.local.yaml (so
# creating the stack leaves that file unchanged); not one from the caller's shell,
# which would not unlock it. The state stays on this machine: it is no secret.
export PULUMI_CONFIG_PASSPHRASE=local
export BACKUP_PORTAL_PASSWORD="${BACKUP_PORTAL_PASSWORD:-admin}"
"${PULUMI[@]}" stack select local --create --non-interactive >/dev/null
"${PULUMI[@]}" up --stack local --yes --non-interactive "$@"

# What the run asked of the portal, from the emulator's request log: a run with nothing to change writes nothing.
node -e '
fetch(process.argv[1] + "/_emulator/requests").then((r) => r.json()).then((log) => {
  const writes = log.filter((r) => r.method !== "GET" && r.path !== "/v1/oauth").length;
  console.log(`portal emulator: ${log.length} requests, ${writes} of them writes`);
});' "http://127.0.0.1:$PORT"
