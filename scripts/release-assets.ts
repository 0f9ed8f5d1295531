// The plugin's release assets: the plugin folder the release workflow assembled (dist/provider, package.json,
// the lockfile's production dependencies, the executable at the root) as one tarball under the name the Pulumi
// CLI asks each platform's asset by (provider/plugin/distribution.ts), so that the schema's pluginDownloadURL
// finds it: `pulumi plugin install resource backupportal <version>` and the engine's download for a program
// whose SDK names the plugin.
//
//   ts-node scripts/release-assets.ts <plugin dir> <assets dir>
//
// In a GitHub workflow (GITHUB_REPOSITORY set) it first checks that the release is made where package.json's
// repository says, which is where the schema sends the CLI: a fork or a renamed repository fails here, not in a
// user's `pulumi up`.
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { PLUGIN_PLATFORMS, pluginAssetName, repository } from "../provider/plugin/distribution";

/** A problem with where the release is made, or undefined; `actual` is GITHUB_REPOSITORY (`owner/name`). */
export function repositoryProblem(actual: string | undefined): string | undefined {
  if (!actual) return undefined;
  const r = repository();
  if (actual.toLowerCase() === `${r.owner}/${r.name}`.toLowerCase()) return undefined;
  return (
    `release-assets: this release is made in ${actual}, but package.json's repository is ${r.owner}/${r.name}, where the ` +
    `schema's pluginDownloadURL sends the Pulumi CLI; set package.json's repository to https://github.com/${actual}`
  );
}

/** Writes the plugin tarball under each platform's asset name into `assets`; answers the files. */
export function pluginAssets(pluginDir: string, assets: string, version: string): string[] {
  if (!fs.existsSync(path.join(pluginDir, "pulumi-resource-backupportal"))) {
    throw new Error(`release-assets: ${pluginDir} holds no pulumi-resource-backupportal at its root`);
  }
  fs.mkdirSync(assets, { recursive: true });
  const [first, ...rest] = PLUGIN_PLATFORMS.map(([os, arch]) => path.join(assets, pluginAssetName(version, os, arch)));
  const r = spawnSync("tar", ["-czf", first, "-C", pluginDir, "."], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`release-assets: tar of ${pluginDir}: ${r.stderr.trim()}`);
  for (const file of rest) fs.copyFileSync(first, file);
  return [first, ...rest];
}

if (require.main === module) {
  try {
    const [pluginDir, assets] = process.argv.slice(2);
    if (!pluginDir || !assets) throw new Error("usage: release-assets <plugin dir> <assets dir>");
    const problem = repositoryProblem(process.env.GITHUB_REPOSITORY);
    if (problem) throw new Error(problem);
    const version = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8")).version;
    for (const f of pluginAssets(path.resolve(pluginDir), path.resolve(assets), version)) console.log(`release-assets: ${f}`);
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  }
}
