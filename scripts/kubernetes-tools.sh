#!/usr/bin/env bash
# Builds the test cluster's control plane and the kubernetes provider plugin from the Go module proxy into
# .tools/kubernetes/bin (git-ignored), at the versions pinned in tools/kubernetes/go.mod and
# tools/pulumi-kubernetes/go.mod, and reuses that build while the pins, the Go version and the plugin version
# are unchanged. Prints the folder on success; on failure, one line saying what is missing.
# Why these versions, and the build's cost: docs/kubernetes.md.
#   bash scripts/kubernetes-tools.sh          build if needed, print the bin folder
#   bash scripts/kubernetes-tools.sh --check  print the bin folder if a current build is there, else exit 1
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.tools/kubernetes/bin"
stamp="$root/.tools/kubernetes.stamp"

fail() {
  echo "scripts/kubernetes-tools.sh: $*" >&2
  exit 3
}

command -v go >/dev/null 2>&1 || fail "Go is not installed (go 1.26.6 or later builds the control plane from the Go module proxy)"

pin() { grep -Eo "^[[:space:]]*(require )?$1 v[0-9][^ ]*" "$2" | grep -Eo 'v[0-9][^ ]*$' | head -1; }
kube_version=$(pin 'k8s.io/kubernetes' "$root/tools/kubernetes/go.mod")
provider_module=github.com/pulumi/pulumi-kubernetes/provider/v4
provider_commit=$(pin "$provider_module" "$root/tools/pulumi-kubernetes/go.mod")
# The plugin is installed as the version the lockfile's @pulumi/kubernetes asks the engine for (docs/kubernetes.md
# says why): the only provider the proxy serves is a commit, not a release.
plugin_version=$(node -p 'require(process.argv[1]).packages["node_modules/@pulumi/kubernetes"].version' "$root/package-lock.json" 2>/dev/null)
[ -n "$kube_version" ] && [ -n "$provider_commit" ] || fail "could not read the pinned versions from tools/kubernetes/go.mod and tools/pulumi-kubernetes/go.mod"
[[ "$plugin_version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "could not read @pulumi/kubernetes's version from package-lock.json (got '$plugin_version')"
kube_minor=$(echo "$kube_version" | cut -d. -f2)

fingerprint() {
  {
    go env GOVERSION
    echo "$plugin_version"
    cat "$root"/tools/kubernetes/go.mod "$root"/tools/kubernetes/go.sum "$root"/tools/kubernetes/cmd/*/*.go
    cat "$root"/tools/pulumi-kubernetes/go.mod "$root"/tools/pulumi-kubernetes/go.sum "$root"/tools/pulumi-kubernetes/cmd/*/main.go
  } | sha256sum | cut -d' ' -f1
}
tools=(etcd kube-apiserver kube-controller-manager kube-scheduler hollow-node pulumi-resource-kubernetes)
current() {
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(fingerprint)" ] || return 1
  for tool in "${tools[@]}"; do [ -x "$bin/$tool" ] || return 1; done
}
if current; then
  echo "$bin"
  exit 0
fi
[ "${1:-}" = --check ] && exit 1

# The user's GOFLAGS are kept (a checkout owned by another user needs their -buildvcs=false); ours are added. A
# go.work in a parent folder would pull these modules into another build: GOWORK=off.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=readonly" GOTOOLCHAIN=local GOWORK=off
started=$(date +%s)
echo "building Kubernetes $kube_version (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, a hollow node) and the kubernetes provider ($provider_commit, as plugin $plugin_version) from the Go module proxy into .tools/kubernetes/bin (about 25 minutes on a fresh 2-core machine; once)" >&2
build() { # module folder, ldflags, packages...
  local dir="$1" ldflags="$2" out
  shift 2
  echo "  go build in tools/$dir: $*" >&2
  if ! out=$(cd "$root/tools/$dir" && go build -trimpath -ldflags "-s -w $ldflags" -o "$bin/" "$@" 2>&1); then
    if grep -qE 'dial tcp|proxyconnect|no such host|403 Forbidden|404 Not Found|connection refused|i/o timeout' <<<"$out"; then
      fail "the Go module proxy ($(go env GOPROXY)) did not serve tools/$dir's modules: $(grep -m1 -E 'dial tcp|proxyconnect|no such host|403|404|refused|timeout' <<<"$out")"
    fi
    echo "$out" | tail -20 >&2
    fail "go build in tools/$dir failed (above)"
  fi
}
mkdir -p "$bin"
# Stamped: clients (the kubernetes provider among them) read the server's version.
version_flags="-X k8s.io/component-base/version.gitVersion=$kube_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$kube_minor -X k8s.io/component-base/version.gitTreeState=clean"
build kubernetes "$version_flags" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler ./cmd/hollow-node ./cmd/etcd

# The provider's main embeds the module's schema.json, copied from the module (pinned by go.sum) beside it.
provider_dir=$(cd "$root/tools/pulumi-kubernetes" && go mod download -json "$provider_module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
schema="$provider_dir/cmd/pulumi-resource-kubernetes/schema.json"
[ -f "$schema" ] || fail "schema.json not found in $provider_module@$provider_commit ($provider_dir)"
install -m 644 "$schema" "$root/tools/pulumi-kubernetes/cmd/pulumi-resource-kubernetes/schema.json"
build pulumi-kubernetes "-X $provider_module/pkg/version.Version=$plugin_version" ./cmd/pulumi-resource-kubernetes

fingerprint >"$stamp"
echo "built in $(($(date +%s) - started)) s ($(du -sh "$bin" | cut -f1) in .tools/kubernetes/bin)" >&2
echo "$bin"
