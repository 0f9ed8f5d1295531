// Issue 28 item 2: the receiver runs only from an image built from this repository. The Dockerfile cannot be
// built here (no docker); its content is held to what the component and docs/security.md promise: a pinned
// base, dependencies installed from the lockfile (npm ci checks every integrity hash) without install scripts,
// no secret built in, an unprivileged user, and the entry the component runs.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { RECEIVER_COMMAND } from "../../provider/billing/component";

const ROOT = join(__dirname, "..", "..");
const text = readFileSync(join(ROOT, "provider", "billing", "Dockerfile"), "utf8");
/** The instructions, comments and blank lines left out. */
const lines = text
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"));

describe("billing: the receiver image's Dockerfile", () => {
  it("pins the base image by version (or digest), never a moving tag", () => {
    const arg = lines.find((l) => l.startsWith("ARG NODE_IMAGE="));
    assert.ok(arg, "the base image is one build argument");
    const image = arg.slice("ARG NODE_IMAGE=".length);
    assert.match(image, /^node:\d+\.\d+\.\d+-alpine\d+\.\d+$|^node@sha256:[0-9a-f]{64}$/, image);
    const major = /^node:(\d+)\./.exec(image)?.[1];
    if (major) assert.ok(Number(major) >= 22, `the receiver runs on a supported Node.js (22 or later), not ${image}`);
    const froms = lines.filter((l) => l.startsWith("FROM "));
    assert.ok(froms.length >= 1);
    for (const f of froms) assert.match(f, /^FROM \$\{NODE_IMAGE\}( AS \w+)?$/, f);
  });

  it("installs only what package-lock.json pins, without install scripts, and never `npm install`", () => {
    const runs = lines.filter((l) => l.startsWith("RUN "));
    assert.ok(
      runs.some((r) => /npm ci --omit=dev --ignore-scripts/.test(r)),
      runs.join("\n"),
    );
    for (const r of runs.filter((x) => /\bnpm ci\b/.test(x))) assert.match(r, /--ignore-scripts/, r);
    assert.ok(!runs.some((r) => /npm (install|i) /.test(r) || /\bnpx\b(?! tsc)/.test(r)), runs.join("\n"));
  });

  it("carries no secret and runs the receiver as an unprivileged user", () => {
    for (const l of lines.filter((x) => /^(ENV|ARG) /.test(x))) assert.doesNotMatch(l, /PASSWORD|SECRET|TOKEN|CLIENT_ID|USERNAME/i, l);
    const users = lines.filter((l) => l.startsWith("USER "));
    assert.ok(users.length > 0, "a USER line");
    const last = users[users.length - 1].slice(5);
    assert.doesNotMatch(last, /^(0|root)(:|$)/, last);
    assert.ok(
      lines.indexOf(users[users.length - 1]) < lines.findIndex((l) => l.startsWith("ENTRYPOINT")),
      "the user is set before the entry",
    );
  });

  it("its entry is the command the component runs", () => {
    const entry = lines.find((l) => l.startsWith("ENTRYPOINT "));
    assert.ok(entry);
    assert.deepEqual(JSON.parse(entry.slice("ENTRYPOINT ".length)), RECEIVER_COMMAND);
    assert.ok(
      lines.some((l) => l === "COPY --from=build /src/dist/provider ./dist/provider"),
      "the compiled provider is what runs",
    );
  });

  it("the build context leaves out local state", () => {
    const ignore = readFileSync(join(ROOT, ".dockerignore"), "utf8").split("\n");
    for (const x of ["node_modules/", "dist/", ".git/", "stacks/Pulumi.*.yaml"]) assert.ok(ignore.includes(x), x);
  });
});
