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

script=scripts/kubernetes-tools.sh
# shellcheck source=scripts/go-tools.sh
source "$root/scripts/go-tools.sh"

command -v go >/dev/null 2>&1 || fail "Go is not installed (go 1.26.6 or later builds the control plane from the Go module proxy)"

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
steps=2
reuse_current_build "${1:-}"

start_builds
echo "building Kubernetes $kube_version (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, a hollow node) and the kubernetes provider ($provider_commit, as plugin $plugin_version) from the Go module proxy into .tools/kubernetes/bin, once: about 25 minutes on a 2-core machine, a few when Go's build cache has them" >&2
# Stamped: clients (the kubernetes provider among them) read the server's version.
version_flags="-X k8s.io/component-base/version.gitVersion=$kube_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$kube_minor -X k8s.io/component-base/version.gitTreeState=clean"
build "the control plane and the hollow node" kubernetes "$version_flags" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler ./cmd/hollow-node ./cmd/etcd

# The provider's main embeds the module's schema.json, copied from the module (pinned by go.sum) beside it.
provider_dir=$(module_dir pulumi-kubernetes "$provider_module")
schema="$provider_dir/cmd/pulumi-resource-kubernetes/schema.json"
[ -f "$schema" ] || fail "schema.json not found in $provider_module@$provider_commit ($provider_dir)"
install -m 644 "$schema" "$root/tools/pulumi-kubernetes/cmd/pulumi-resource-kubernetes/schema.json"
build "the kubernetes provider" pulumi-kubernetes "-X $provider_module/pkg/version.Version=$plugin_version" ./cmd/pulumi-resource-kubernetes

fingerprint >"$stamp"
echo "built in $(elapsed) ($(du -sh "$bin" | cut -f1) in .tools/kubernetes/bin)" >&2
echo "$bin"
