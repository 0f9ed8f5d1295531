# shellcheck shell=bash
# Sourced by scripts/pulumi-tools.sh and scripts/kubernetes-tools.sh: building tools pinned in tools/*/go.mod from
# the Go module proxy into .tools/, once, and reusing the build while a fingerprint of its inputs is unchanged.
# The sourcing script sets `script` (its name in messages), `bin`, `stamp`, `tools` (the files it makes) and `steps`,
# and defines `fingerprint` (what a build depends on).

fail() {
  echo "$script: $*" >&2
  exit 3
}

# The version a go.mod pins for a module (the pins are the only place versions are written).
pin() { grep -Eo "^[[:space:]]*(require )?$1 v[0-9][^ ]*" "$2" | grep -Eo 'v[0-9][^ ]*$' | head -1; }

current() {
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(fingerprint)" ] || return 1
  for tool in "${tools[@]}"; do [ -x "$bin/$tool" ] || return 1; done
}

# Prints the bin folder and exits when a current build is there; with --check, exits 1 when none is. Otherwise
# takes the build's lock first: a second run (a test's, while .ci/run's build goes on in the background) waits for
# the first, then finds its build current.
reuse_current_build() {
  if current; then
    echo "$bin"
    exit 0
  fi
  [ "${1:-}" = --check ] && exit 1
  if command -v flock >/dev/null 2>&1; then
    mkdir -p "$(dirname "$stamp")"
    exec 9>"$stamp.lock"
    flock 9
    if current; then
      echo "$bin"
      exit 0
    fi
  fi
  return 0
}

# Before the first build: the user's GOFLAGS are kept (-buildvcs=false is how a checkout owned by another user
# builds at all), ours come after them and so win over theirs; a go.work in any folder above would take the pins
# out of play: GOWORK=off.
start_builds() {
  export GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=readonly" GOWORK=off GOTOOLCHAIN=local
  started=$(date +%s)
  every=${PULUMI_TOOLS_PROGRESS_SECONDS:-60}
  [[ "$every" =~ ^[1-9][0-9]*$ ]] || fail "PULUMI_TOOLS_PROGRESS_SECONDS must be a whole number of seconds, got \"$every\""
  step=0
  mkdir -p "$bin"
}

# How long since `started` (or $1), as `3 min 12 s`.
elapsed() {
  local s=$(($(date +%s) - ${1:-$started}))
  echo "$((s / 60)) min $((s % 60)) s"
}

# One go build into $bin, stripped, with a line when it starts and ends and one every $every seconds while it runs.
build() { # what, module folder, ldflags, packages...
  local what="$1" dir="$2" ldflags="$3" out log pid rc since next
  shift 3
  step=$((step + 1))
  since=$(date +%s)
  echo "[$step/$steps] $what (tools/$dir)..." >&2
  # -v names each package as it is compiled: their count is the progress line's, while the build runs.
  log=$(mktemp)
  (cd "$root/tools/$dir" && exec go build -v -trimpath -ldflags "-s -w $ldflags" -o "$bin/" "$@") >"$log" 2>&1 &
  pid=$!
  next=$((since + every))
  # Bounded by the build: the loop ends when it does.
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if [ "$(date +%s)" -ge "$next" ]; then
      echo "[$step/$steps] still building $what: $(grep -c -v -e '^#' -e ':' "$log") packages compiled, $(elapsed "$since") (all: $(elapsed))" >&2
      next=$((next + every))
    fi
  done
  wait "$pid"
  rc=$?
  out=$(cat "$log")
  rm -f "$log"
  if [ "$rc" -ne 0 ]; then
    if grep -qE 'dial tcp|proxyconnect|no such host|403 Forbidden|404 Not Found|connection refused|i/o timeout' <<<"$out"; then
      fail "the Go module proxy ($(go env GOPROXY)) did not serve tools/$dir's modules: $(grep -m1 -E 'dial tcp|proxyconnect|no such host|403|404|refused|timeout' <<<"$out")"
    fi
    echo "$out" | grep -v -E '^[a-zA-Z0-9_./-]+$' | tail -20 >&2
    fail "go build in tools/$dir failed (above)"
  fi
  echo "[$step/$steps] $what: done in $(elapsed "$since") (all: $(elapsed))" >&2
}

# The folder of a module in the module cache, downloaded as the go.mod of tools/$1 pins it.
module_dir() { (cd "$root/tools/$1" && go mod download -json "$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'); }
