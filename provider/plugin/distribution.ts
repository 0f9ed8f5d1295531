// Where the plugin and its SDKs are published, and under which names: the one place the schema's
// `pluginDownloadURL`, the SDKs' import paths and the release workflow's asset names (scripts/release-assets.ts,
// scripts/gen-sdk.ts) all come from. The repository is package.json's `repository` (npm's provenance checks the
// same field against the repository that publishes), so a fork or a rename changes one line.
//
// `pulumi plugin install resource backupportal <version>`, and the engine when a program's SDK names the plugin,
// read `github://api.github.com/<owner>/<repo>` as: the GitHub release `v<version>` of that repository, asset
// `pulumi-resource-backupportal-v<version>-<os>-<arch>.tar.gz` (pulumi/pulumi sdk/go/common/workspace/plugins.go,
// standardAssetName). The plugin is a Node.js program, the same for every platform: one tarball under each name.
import * as fs from "fs";
import * as path from "path";
import { packageRoot } from "../dynamic/specifier";
import { PACKAGE } from "./resources";

export interface Repository {
  owner: string;
  name: string;
}

/** `owner/name` of a package.json `repository` (a string or `{ url }`): GitHub URLs and the `github:` shorthand. */
export function githubRepository(field: unknown): Repository {
  const text = typeof field === "string" ? field : (field as { url?: unknown } | undefined)?.url;
  const m =
    typeof text === "string"
      ? /^(?:github:|git\+https:\/\/github\.com\/|https:\/\/github\.com\/|git@github\.com:)([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+?)(?:\.git)?\/?$/.exec(
          text,
        )
      : null;
  if (!m) throw new Error(`package.json: repository: ${JSON.stringify(field)} is not a GitHub repository (github.com/<owner>/<name>)`);
  return { owner: m[1], name: m[2] };
}

/** This package's package.json. */
function manifest(): { version: string; repository?: unknown } {
  return JSON.parse(fs.readFileSync(path.join(packageRoot(__filename), "package.json"), "utf8"));
}

/** The repository whose GitHub releases carry the plugin and the SDKs. */
export const repository = (): Repository => githubRepository(manifest().repository);

/** The repository's web address (the schema's `repository`, the SDKs' metadata). */
export const repositoryUrl = (r: Repository = repository()) => `https://github.com/${r.owner}/${r.name}`;

/** The schema's `pluginDownloadURL`: the GitHub releases of the repository, as the Pulumi CLI spells a source. */
export const pluginDownloadUrl = (r: Repository = repository()) => `github://api.github.com/${r.owner}/${r.name}`;

/** The platforms a release names the plugin tarball for (Pulumi's GOOS and GOARCH names). */
export const PLUGIN_PLATFORMS: ReadonlyArray<readonly [os: string, arch: string]> = [
  ["linux", "amd64"],
  ["linux", "arm64"],
  ["darwin", "amd64"],
  ["darwin", "arm64"],
];

/** The release asset the Pulumi CLI downloads for a platform. */
export const pluginAssetName = (version: string, os: string, arch: string) => `pulumi-resource-${PACKAGE}-v${version}-${os}-${arch}.tar.gz`;

/** The languages whose SDKs a release generates with the pinned CLI's generators (scripts/gen-sdk.ts). */
export const SDK_LANGUAGES = ["nodejs", "python", "go"] as const;
export type SdkLanguage = (typeof SDK_LANGUAGES)[number];

/** The release asset of an SDK's sources. */
export const sdkAssetName = (language: string, version: string) => `${PACKAGE}-sdk-${language}-v${version}.tar.gz`;

/** The Go module of the generated Go SDK (its go.mod in the `go` folder), and the package programs import. */
export const goModulePath = (r: Repository = repository()) => `github.com/${r.owner}/${r.name}/sdk/go`;
export const goImportBasePath = (r: Repository = repository()) => `${goModulePath(r)}/${PACKAGE}`;
