// The release path: the tag, package.json's version and the CHANGELOG's newest released section agree
// (.github/scripts/release-notes.js, which the release workflow runs), and the workflow publishes with
// provenance only from a tag, with a dry run on pull requests.
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
});
