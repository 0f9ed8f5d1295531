#!/usr/bin/env bash
# Builds the Pulumi CLI and its language hosts from the Go module proxy into .tools/bin (git-ignored), at the
# versions pinned in tools/pulumi-{cli,yaml,hosts}/go.mod, and reuses that build while the
# pins, the Go version and @pulumi/pulumi's dynamic-provider script are unchanged. Prints the folder on success;
# on failure, one line saying what is missing. Why these versions, and the build's cost: docs/engine.md.
#   bash scripts/pulumi-tools.sh          build if needed, print the bin folder
#   bash scripts/pulumi-tools.sh --check  print the bin folder if a current build is there, else exit 1
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.tools/bin"
stamp="$root/.tools/pulumi.stamp"

fail() {
  echo "scripts/pulumi-tools.sh: $*" >&2
  exit 3
}

command -v go >/dev/null 2>&1 || fail "Go is not installed (go 1.26.6 or later builds the Pulumi CLI from the Go module proxy)"

# The versions, read from the pins (the only place they are written).
pin() { grep -Eo "^[[:space:]]*(require )?$1 v[0-9][^ ]*" "$2" | grep -Eo 'v[0-9][^ ]*$'; }
cli_version=$(pin 'github.com/pulumi/pulumi/pkg/v3' "$root/tools/pulumi-cli/go.mod")
yaml_version=$(pin 'github.com/pulumi/pulumi-yaml' "$root/tools/pulumi-yaml/go.mod")
hosts_version=$(pin 'github.com/pulumi/pulumi/sdk/v3' "$root/tools/pulumi-hosts/go.mod")
[ -n "$cli_version" ] && [ -n "$yaml_version" ] && [ -n "$hosts_version" ] || fail "could not read the pinned versions from tools/*/go.mod"

# The dynamic provider's plugin script ships inside @pulumi/pulumi; the CLI looks for it next to itself.
dynamic_script="$root/node_modules/@pulumi/pulumi/pulumi-resource-pulumi-nodejs"

fingerprint() {
  {
    go env GOVERSION
    cat "$root"/tools/pulumi-*/go.mod "$root"/tools/pulumi-*/go.sum "$root"/tools/pulumi-cli/cmd/*/*.go
    [ -f "$dynamic_script" ] && cat "$dynamic_script"
  } | sha256sum | cut -d' ' -f1
}
# pulumi-language-python runs programs through its executor script, which it looks for next to itself.
# pulumi-gen-sdk: the CLI's own SDK generators for Python and Go, which `pulumi package gen-sdk` cannot reach
# through the hosts built here (tools/pulumi-cli/cmd/pulumi-gen-sdk).
tools=(pulumi pulumi-gen-sdk pulumi-language-nodejs pulumi-language-python pulumi-language-python-exec pulumi-language-yaml)
current() {
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(fingerprint)" ] || return 1
  for tool in "${tools[@]}"; do [ -x "$bin/$tool" ] || return 1; done
}
if current; then
  echo "$bin"
  exit 0
fi
[ "${1:-}" = --check ] && exit 1

# The user's GOFLAGS are kept (-buildvcs=false is how a checkout owned by another user builds at all), ours come
# after them and so win over theirs; a go.work in any folder above would take the pins out of play: GOWORK=off.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=readonly" GOWORK=off GOTOOLCHAIN=local
started=$(date +%s)
echo "building the Pulumi CLI $cli_version and its language hosts from the Go module proxy into .tools/bin (a few minutes when Go's build cache has them, about 15 on a fresh machine; once)" >&2
build() { # module folder, version variable, version, packages...
  local dir="$1" var="$2" version="$3" out
  shift 3
  if ! out=$(cd "$root/tools/$dir" && go build -trimpath -ldflags "-s -w -X $var=$version" -o "$bin/" "$@" 2>&1); then
    if grep -qE 'dial tcp|proxyconnect|no such host|403 Forbidden|404 Not Found|connection refused|i/o timeout' <<<"$out"; then
      fail "the Go module proxy ($(go env GOPROXY)) did not serve tools/$dir's modules: $(grep -m1 -E 'dial tcp|proxyconnect|no such host|403|404|refused|timeout' <<<"$out")"
    fi
    echo "$out" | tail -20 >&2
    fail "go build in tools/$dir failed (above)"
  fi
}
mkdir -p "$bin"
build pulumi-cli github.com/pulumi/pulumi/sdk/v3/go/common/version.Version "$cli_version" \
  github.com/pulumi/pulumi/pkg/v3/cmd/pulumi ./cmd/pulumi-gen-sdk
build pulumi-yaml github.com/pulumi/pulumi-yaml/pkg/version.Version "$yaml_version" \
  github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml
build pulumi-hosts github.com/pulumi/pulumi/sdk/v3/go/common/version.Version "$hosts_version" \
  github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs \
  github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python
# The Python host's executor script ships in the same module (its zip, pinned by go.sum), not as a Go package.
hosts_dir=$(cd "$root/tools/pulumi-hosts" && go mod download -json github.com/pulumi/pulumi/sdk/v3 | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -f "$hosts_dir/python/cmd/pulumi-language-python-exec" ] ||
  fail "pulumi-language-python-exec not found in github.com/pulumi/pulumi/sdk/v3@$hosts_version ($hosts_dir)"
install -m 755 "$hosts_dir/python/cmd/pulumi-language-python-exec" "$bin/pulumi-language-python-exec"
if [ -f "$dynamic_script" ]; then
  install -m 755 "$dynamic_script" "$bin/pulumi-resource-pulumi-nodejs"
else
  echo "note: node_modules/@pulumi/pulumi is not installed (npm ci): dynamic providers will not load until it is and this script runs again" >&2
fi
fingerprint >"$stamp"
echo "built in $(($(date +%s) - started)) s: $("$bin/pulumi" version)" >&2
echo "$bin"
