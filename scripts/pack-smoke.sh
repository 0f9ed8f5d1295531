#!/usr/bin/env bash
# The package as users get it: `npm pack`, then install the tarball into a blank Pulumi program in a
# temporary folder next to another @pulumi/pulumi 3.x (the lowest the package supports), and run a
# program that uses every export under the SDK's mocks, and drive that SDK's provider host with the
# package's providers (Configure, Check). Checks that the tarball holds no test, bench,
# emulator or stack file, and that the program's tree holds one copy of the SDK. Compiles every entry point's
# declarations strictly without @pulumi/kubernetes (an optional peer) and with it, and installs each example as its
# README says (the tarballs, from a copy of examples/<name>) and compiles it with its own tsconfig.json (by its
# `npm run build` when it has one; a JavaScript example has nothing to compile); neither
# with skipLibCheck, which would hide a declaration that names a package the user does not have. Needs the npm
# registry. Prints "pack-smoke: ok" or the first failure; exit 0 or 1.
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

# TypeScript users of the Pulumi templates resolve with moduleResolution "node" (typesVersions) or
# node16 (exports): both find the declarations of every entry point, checked like the program's own code.
entries="$(node -p "Object.keys(require('$root/package.json').exports).filter((k) => /^\\.(\\/[a-z]+)?$/.test(k)).map((k) => 'backup-portal-pulumi' + k.slice(1)).join(' ')")"
: > check.ts
i=0
for entry in $entries; do echo "import * as entry$i from \"$entry\"; export const use$i = entry$i;" >> check.ts; i=$((i + 1)); done
cat >> check.ts <<'TS'
import { BusinessUnit, Consumer, Node, NodeProxy, Registry, BillingReceiver, registrationUserData, tenantsFromConfig } from "backup-portal-pulumi";
export const all = [BusinessUnit, Consumer, Node, NodeProxy, Registry, BillingReceiver, registrationUserData, tenantsFromConfig];
TS
check_declarations() {
  for resolution in node node16; do
    module=commonjs; [ "$resolution" = node16 ] && module=node16
    node "$root/node_modules/typescript/bin/tsc" --noEmit --strict --types node --typeRoots "$root/node_modules/@types" \
      --target es2020 --module "$module" --moduleResolution "$resolution" check.ts ||
      { echo "pack-smoke: the declarations do not compile $1 (moduleResolution $resolution; above)"; exit 1; }
  done
}
check_declarations "without @pulumi/kubernetes"
echo "pack-smoke: the declarations of $i entry points compile without @pulumi/kubernetes (strict, no skipLibCheck)"

k8s_version="$(node -p "require('$root/package.json').peerDependencies['@pulumi/kubernetes']")"
npm install --no-audit --no-fund --loglevel=error "@pulumi/kubernetes@$k8s_version" >/dev/null
node index.js
node host.js
check_declarations "with @pulumi/kubernetes"
echo "pack-smoke: the declarations resolve under moduleResolution node and node16"

# The examples, installed as their READMEs say from this repository: a copy of examples/<name> next to the
# tarballs (`npm install ../../<tarball>`), the plugin's TypeScript SDK packed as docs/plugin.md says; then `tsc`
# with the example's own tsconfig.json, as `pulumi up` type-checks the program, or its `npm run build`.
sdk="$work/sdk-nodejs"
mkdir "$sdk"
cp "$root/sdk/nodejs/package.json" "$root/sdk/nodejs/README.md" "$sdk/"
node "$root/node_modules/typescript/bin/tsc" -p "$root/sdk/nodejs" --outDir "$sdk/bin"
sdk_tarball="$(npm pack --silent --pack-destination "$work" "$sdk" | tail -1)"
for example in typescript-resources tenants-as-data registry sdk-typescript; do
  copy="$work/examples/$example"
  mkdir -p "$copy"
  # The example's own files (examples are flat), not a node_modules an install in the checkout left there.
  find "$root/examples/$example" -maxdepth 1 -type f ! -name package-lock.json -exec cp {} "$copy/" \;
  package="$(basename "$tarball")"; [ "$example" = sdk-typescript ] && package="$sdk_tarball"
  (cd "$copy" && npm install --no-audit --no-fund --loglevel=error "../../$package" >/dev/null) ||
    { echo "pack-smoke: npm install ../../$package in examples/$example failed (above)"; exit 1; }
  main="$(sed -n 's/^main: *//p' "$copy/Pulumi.yaml")"
  if [ ! -f "$copy/tsconfig.json" ]; then
    # Plain JavaScript (typescript: false): nothing to compile; the program's package resolves from the install.
    (cd "$copy" && node -e 'if (typeof require("backup-portal-pulumi").tenantsFromConfig !== "function") process.exit(1)') ||
      { echo "pack-smoke: examples/$example: backup-portal-pulumi does not resolve from its install (above)"; exit 1; }
    echo "pack-smoke: examples/$example installs $package; its $main needs no compiling"
  elif node -e 'process.exit(require(process.argv[1]).scripts?.build ? 0 : 1)' "$copy/package.json"; then
    # Compiled ahead (typescript: false): `npm run build` writes what Pulumi.yaml's main names.
    (cd "$copy" && npm run build --silent && test -f "$main") ||
      { echo "pack-smoke: examples/$example: npm run build does not write $main after the install (above)"; exit 1; }
    echo "pack-smoke: examples/$example installs $package and npm run build writes $main (strict, no skipLibCheck)"
  else
    (cd "$copy" && ./node_modules/.bin/tsc --noEmit -p .) ||
      { echo "pack-smoke: examples/$example does not compile with its tsconfig.json after the install (above)"; exit 1; }
    echo "pack-smoke: examples/$example installs $package and compiles (strict, no skipLibCheck)"
  fi
done
echo "pack-smoke: ok"
