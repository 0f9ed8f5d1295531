#!/usr/bin/env bash
# The package as users get it: `npm pack`, then install the tarball into a blank Pulumi program in a
# temporary folder next to another @pulumi/pulumi 3.x (the lowest the package supports), and run a
# program that uses every export under the SDK's mocks, and drive that SDK's provider host with the
# package's providers (Configure, Check). Checks that the tarball holds no test, bench,
# emulator or stack file, and that the program's tree holds one copy of the SDK. Needs the npm registry.
# Prints "pack-smoke: ok" or the first failure; exit 0 or 1.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
min_sdk="$(node -p "require('$root/package.json').dependencies['@pulumi/pulumi'].replace(/^[~^]/, '')")"

cd "$root"
tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -1)"
files="$(tar -tzf "$tarball")"
count=$(printf '%s\n' "$files" | wc -l)
bad=$(printf '%s\n' "$files" | grep -E '^package/(dist/(test|bench|emulator|stacks)/|test/|bench/|emulator/|stacks/|provider/.*\.ts$|.*\.map$)' | grep -v -e '\.d\.ts$' -e '^package/stacks/tenants\.schema\.json$' || true)
if [ -n "$bad" ]; then echo "pack-smoke: the tarball holds files users do not need:"; printf '%s\n' "$bad" | head -20; exit 1; fi
echo "pack-smoke: $(basename "$tarball"): $count files, $(du -k "$tarball" | cut -f1) KB"

mkdir "$work/program"
cp "$root/scripts/pack-smoke/program.js" "$work/program/index.js"
cp "$root/scripts/pack-smoke/host.js" "$work/program/host.js"
cp "$root/scripts/pack-smoke/no-kubernetes.js" "$work/program/no-kubernetes.js"
cd "$work/program"
cat > package.json <<JSON
{ "name": "blank-program", "version": "1.0.0", "private": true, "main": "index.js",
  "dependencies": { "@pulumi/pulumi": "$min_sdk", "backup-portal-pulumi": "file:$tarball" } }
JSON
npm install --no-audit --no-fund --loglevel=error >/dev/null
copies=$(find node_modules -path '*/@pulumi/pulumi/package.json' | wc -l)
if [ "$copies" != 1 ]; then echo "pack-smoke: $copies copies of @pulumi/pulumi in the program's tree:"; find node_modules -path '*/@pulumi/pulumi/package.json'; exit 1; fi
echo "pack-smoke: one @pulumi/pulumi in the program's tree ($(node -p "require('@pulumi/pulumi/package.json').version"))"
node no-kubernetes.js
k8s_version="$(node -p "require('$root/package.json').peerDependencies['@pulumi/kubernetes']")"
npm install --no-audit --no-fund --loglevel=error "@pulumi/kubernetes@$k8s_version" >/dev/null
node index.js
node host.js

# TypeScript users of the Pulumi templates resolve with moduleResolution "node" (typesVersions) or
# node16 (exports): both find the declarations of every entry point.
cat > check.ts <<'TS'
import { BusinessUnit, Consumer, Node, NodeProxy, Registry, BillingReceiver, registrationUserData } from "backup-portal-pulumi";
import { PortalClient } from "backup-portal-pulumi/portal";
import { Registry as R2 } from "backup-portal-pulumi/registry";
import * as metadata from "backup-portal-pulumi/metadata";
import * as data from "backup-portal-pulumi/data";
import { BillingReceiver as B2 } from "backup-portal-pulumi/billing";
import { registrationUserData as r2 } from "backup-portal-pulumi/registration";
export const all = [BusinessUnit, Consumer, Node, NodeProxy, Registry, BillingReceiver, registrationUserData, PortalClient, R2, metadata, data, B2, r2];
TS
for resolution in node node16; do
  module=commonjs; [ "$resolution" = node16 ] && module=node16
  node "$root/node_modules/typescript/bin/tsc" --noEmit --strict --skipLibCheck --types node --typeRoots "$root/node_modules/@types" \
    --module "$module" --moduleResolution "$resolution" check.ts
done
echo "pack-smoke: the declarations resolve under moduleResolution node and node16"
echo "pack-smoke: ok"
