#!/usr/bin/env node
// The notes of a release: the CHANGELOG section of the version being released.
//
//   node .github/scripts/release-notes.js v0.2.0     the section of 0.2.0, checked against package.json
//   node .github/scripts/release-notes.js            the newest released section (what package.json must say)
//
// Exits 1 with one line when the tag, package.json's version and the CHANGELOG's newest released section do
// not agree, so a release never goes out under a version the CHANGELOG does not describe.
"use strict";
const fs = require("fs");
const path = require("path");

/** The released sections of a CHANGELOG text, newest first: [{ version, body }]. "Unreleased" is skipped. */
function releasedSections(changelog) {
  const parts = changelog.split(/^## /m).slice(1);
  return parts
    .map((part) => {
      const [heading, ...rest] = part.split("\n");
      const m = /^(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\b/.exec(heading.trim());
      return m ? { version: m[1], body: rest.join("\n").trim() } : undefined;
    })
    .filter(Boolean);
}

/** The notes for `tag` (or for package.json's version), or throws with what disagrees. */
function releaseNotes(changelog, packageVersion, tag) {
  const sections = releasedSections(changelog);
  if (!sections.length) throw new Error("CHANGELOG.md has no released section (`## X.Y.Z (date)`)");
  const newest = sections[0];
  if (newest.version !== packageVersion) {
    throw new Error(`package.json says ${packageVersion} but the CHANGELOG's newest released section is ${newest.version}`);
  }
  if (tag !== undefined && tag !== `v${packageVersion}`) {
    throw new Error(`tag ${tag} does not match package.json's version ${packageVersion} (expected v${packageVersion})`);
  }
  if (!newest.body) throw new Error(`the CHANGELOG section of ${newest.version} is empty`);
  return newest.body + "\n";
}

if (require.main === module) {
  const root = path.join(__dirname, "..", "..");
  try {
    const changelog = fs.readFileSync(path.join(root, "CHANGELOG.md"), "utf8");
    const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
    process.stdout.write(releaseNotes(changelog, version, process.argv[2]));
  } catch (err) {
    console.error(`release-notes: ${err.message}`);
    process.exit(1);
  }
}

module.exports = { releasedSections, releaseNotes };
