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

script=scripts/pulumi-tools.sh
# shellcheck source=scripts/go-tools.sh
source "$root/scripts/go-tools.sh"

command -v go >/dev/null 2>&1 || fail "Go is not installed (go 1.26.6 or later builds the Pulumi CLI from the Go module proxy)"

# The versions, read from the pins.
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
steps=4
reuse_current_build "${1:-}"

start_builds
echo "building the Pulumi CLI $cli_version and its language hosts from the Go module proxy into .tools/bin, once: about 15 minutes on a quiet 2-core machine, 25 or more on a busy one, a few when Go's build cache has them; a line per step, and every \${PULUMI_TOOLS_PROGRESS_SECONDS:-60} s while one runs" >&2
build "the Pulumi CLI $cli_version and pulumi-gen-sdk (most of the time)" pulumi-cli \
  "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$cli_version" \
  github.com/pulumi/pulumi/pkg/v3/cmd/pulumi ./cmd/pulumi-gen-sdk
build "the YAML language host $yaml_version" pulumi-yaml "-X github.com/pulumi/pulumi-yaml/pkg/version.Version=$yaml_version" \
  github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml
build "the Node.js and Python language hosts $hosts_version" pulumi-hosts \
  "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$hosts_version" \
  github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs \
  github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python
# The Python host's executor script ships in the same module (its zip, pinned by go.sum), not as a Go package.
echo "[4/$steps] the Python host's executor script and the dynamic provider's plugin script" >&2
hosts_dir=$(module_dir pulumi-hosts github.com/pulumi/pulumi/sdk/v3)
[ -f "$hosts_dir/python/cmd/pulumi-language-python-exec" ] ||
  fail "pulumi-language-python-exec not found in github.com/pulumi/pulumi/sdk/v3@$hosts_version ($hosts_dir)"
install -m 755 "$hosts_dir/python/cmd/pulumi-language-python-exec" "$bin/pulumi-language-python-exec"
if [ -f "$dynamic_script" ]; then
  install -m 755 "$dynamic_script" "$bin/pulumi-resource-pulumi-nodejs"
else
  echo "note: node_modules/@pulumi/pulumi is not installed (npm ci): dynamic providers will not load until it is and this script runs again" >&2
fi
fingerprint >"$stamp"
echo "built in $(elapsed): $("$bin/pulumi" version)" >&2
echo "$bin"
