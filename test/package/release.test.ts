// The release path: the tag, package.json's version and the CHANGELOG's newest released section agree
// (.github/scripts/release-notes.js, which the release workflow runs), and the workflow publishes with
// provenance only from a tag, with a dry run on pull requests; it builds the plugin tarball and names it as the
// Pulumi CLI asks for it (scripts/release-assets.ts), prints the plugin's schema, checks and packs the committed
// TypeScript SDK, generates the Python and Go SDKs through scripts/gen-sdk.ts (the tests' code path) and the .NET
// SDK with the official CLI, and attaches them all to the GitHub release.
import { strict as assert } from "assert";
import { execFileSync, spawnSync } from "child_process";
import { readFileSync } from "fs";
import { join } from "path";
import { parse } from "yaml";

const root = join(__dirname, "..", "..");
const script = join(root, ".github", "scripts", "release-notes.js");

const { releaseNotes, releasedSections } = require(script) as {
  releaseNotes(changelog: string, version: string, tag?: string): string;
  releasedSections(changelog: string): { version: string; body: string }[];
};
const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
const changelog = readFileSync(join(root, "CHANGELOG.md"), "utf8");

describe("release", () => {
  it("package.json's version is the CHANGELOG's newest released section", () => {
    assert.equal(releasedSections(changelog)[0].version, version);
    const notes = execFileSync(process.execPath, [script, `v${version}`], { encoding: "utf8" });
    assert.match(notes, /^### /, "the notes are the section's body, from its first sub-heading");
    assert.ok(!notes.includes(`## ${version}`), "without the version heading itself");
    assert.ok(!/^## /m.test(notes), "and not the next section");
  });

  it("refuses a tag, a version or a CHANGELOG that disagree, in one line", () => {
    const wrongTag = spawnSync(process.execPath, [script, "v99.0.0"], { encoding: "utf8" });
    assert.equal(wrongTag.status, 1);
    assert.equal(wrongTag.stderr, `release-notes: tag v99.0.0 does not match package.json's version ${version} (expected v${version})\n`);
    const text = "# Changelog\n\n## Unreleased\n\n- next\n\n## 1.2.0 (2026-01-01)\n\n### Fixed\n- a\n\n## 1.1.0\n\n- b\n";
    assert.equal(releaseNotes(text, "1.2.0", "v1.2.0"), "### Fixed\n- a\n");
    assert.throws(() => releaseNotes(text, "1.3.0"), /package.json says 1.3.0 but the CHANGELOG's newest released section is 1.2.0/);
    assert.throws(() => releaseNotes("# Changelog\n\n## Unreleased\n", "1.0.0"), /no released section/);
    assert.throws(() => releaseNotes("## 1.0.0\n\n## 0.9.0\n- x\n", "1.0.0"), /section of 1.0.0 is empty/);
  });

  it("release.yml publishes with provenance from a v* tag only, and dry-runs on pull requests", () => {
    const wf = parse(readFileSync(join(root, ".github", "workflows", "release.yml"), "utf8"));
    assert.deepEqual(wf.on.push.tags, ["v*"]);
    const steps: { name?: string; run?: string; if?: string }[] = wf.jobs.release.steps;
    const at = (re: RegExp) => steps.findIndex((s) => re.test(s.run ?? ""));
    const publish = steps[at(/npm publish --provenance/)];
    assert.equal(publish.if, "startsWith(github.ref, 'refs/tags/v')");
    assert.equal(steps[at(/npm publish --dry-run/)].if, "github.event_name == 'pull_request'");
    assert.ok(
      at(/^npm test$/) < at(/release-notes\.js/) && at(/release-notes\.js/) < at(/npm publish --provenance/),
      "tests, notes, publish",
    );
    assert.ok(at(/gh release create/) > at(/npm publish --provenance/));
    assert.equal(wf.jobs.release.permissions["id-token"], "write", "provenance needs the OIDC token");
  });

  it("release.yml builds the plugin tarball, its schema and the SDKs, and attaches them to the release", () => {
    const wf = parse(readFileSync(join(root, ".github", "workflows", "release.yml"), "utf8"));
    const steps: {
      id?: string;
      name?: string;
      run?: string;
      if?: string;
      uses?: string;
      with?: Record<string, string>;
      "working-directory"?: string;
    }[] = wf.jobs.release.steps;
    const at = (re: RegExp) => {
      const i = steps.findIndex((s) => re.test(s.run ?? ""));
      assert.ok(i >= 0, `a step runs ${re}`);
      return i;
    };
    const tests = at(/^npm test$/);
    const release = at(/gh release create/);
    // Go and the pinned CLI before the tests (the real-engine tier) and the SDKs.
    const go = steps.findIndex((s) => s.uses?.startsWith("actions/setup-go@"));
    assert.ok(go >= 0 && go < at(/^bash scripts\/pulumi-tools\.sh$/) && at(/^bash scripts\/pulumi-tools\.sh$/) < tests);
    assert.equal(steps[go].with?.["go-version-file"], "tools/pulumi-cli/go.mod");
    // The plugin tarball: the compiled provider, the executable at its root, production dependencies from the
    // lockfile; named for each platform by scripts/release-assets.ts (test/plugin/distribution.test.ts).
    const tarball = at(/npx ts-node --transpile-only scripts\/release-assets\.ts "\$plugin" "\$RUNNER_TEMP\/assets"/);
    assert.match(steps[tarball].run!, /cp -r dist\/provider /);
    assert.match(steps[tarball].run!, /cp package\.json package-lock\.json bin\/pulumi-resource-backupportal /);
    assert.match(steps[tarball].run!, /npm ci --omit=dev --ignore-scripts/);
    // The schema, printed by the tarball's own plugin.
    const schema = at(
      /"\$RUNNER_TEMP\/plugin\/pulumi-resource-backupportal" --schema > "\$RUNNER_TEMP\/assets\/backupportal-schema-v\$VERSION\.json"/,
    );
    // The TypeScript SDK: regenerated, the committed copy unchanged, compiled and packed.
    const ts = at(/npm run gen-sdk/);
    assert.match(
      steps[ts].run!,
      /git diff --exit-code -- sdk\/nodejs\n.*npx tsc -p sdk\/nodejs\n.*npm pack --pack-destination "\$RUNNER_TEMP\/assets"/s,
    );
    // Python and Go through scripts/gen-sdk.ts, archived as release assets (the archives the real-engine tests install).
    const gen = at(/npm run gen-sdk --silent -- --language "\$language" --out "\$RUNNER_TEMP\/sdk" --archive "\$RUNNER_TEMP\/assets"/);
    assert.match(steps[gen].run!, /for language in python go; do/);
    // .NET: the official CLI of the `pulumi` devDependency's version, its gen-sdk from the schema file, then dotnet build.
    const dotnet = at(/pulumi package gen-sdk "\$RUNNER_TEMP\/assets\/backupportal-schema-v\$VERSION\.json" --language dotnet/);
    assert.match(steps[dotnet].run!, /dotnet build "\$RUNNER_TEMP\/sdk\/dotnet"/);
    assert.match(steps[dotnet].run!, /tar -czf "\$RUNNER_TEMP\/assets\/backupportal-sdk-dotnet-v\$VERSION\.tar\.gz"/);
    const cli = steps.findIndex((s) => s.uses?.startsWith("pulumi/actions@"));
    assert.ok(cli >= 0 && cli < dotnet, "the Pulumi CLI is installed before its gen-sdk");
    assert.equal(steps[cli].with?.["pulumi-version"], "${{ steps.cli.outputs.version }}");
    assert.match(steps.find((s) => s.id === "cli")?.run ?? "", /require\('pulumi\/package\.json'\)\.version/);
    assert.ok(
      tests < tarball && tarball < schema && schema < gen && ts < release && gen < release && dotnet < release,
      "tests, tarball, schema, SDKs, release",
    );
    // The SDK is published like the package: provenance from a tag, a dry run on pull requests.
    const sdkPublish = steps.filter((s) => s["working-directory"] === "sdk/nodejs");
    assert.deepEqual(
      sdkPublish.map((s) => [s.run, s.if]),
      [
        ["npm publish --dry-run", "github.event_name == 'pull_request'"],
        ["npm publish --provenance --access public", "startsWith(github.ref, 'refs/tags/v')"],
      ],
    );
    assert.match(steps[release].run!, /"\$RUNNER_TEMP"\/assets\/\*$/, "every asset is attached to the release");
  });
});
