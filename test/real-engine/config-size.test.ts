// The real limit, under the real CLI (v3.260.0 with the Node.js host of sdk/v3 v3.68.0): the host hands the program
// the whole config in ONE environment variable, PULUMI_CONFIG, and Linux refuses an environment string longer than
// 131072 bytes with its name and NUL (MAX_ARG_STRLEN). provider/rules/config-env.ts computes that string's size from
// a stack file; here the repository's stacks/ program (an empty tenants block: no portal) runs with a config whose
// PULUMI_CONFIG is exactly 131072 bytes by the rule, and fails with "argument list too long" at 131073. A trivial
// key of another namespace makes up the size; beside it, values that Go's JSON escapes otherwise than JavaScript's
// (`<`, `&`, U+2028, quotes inside an object's JSON, which the host escapes twice), so that the rule must count the
// host's string byte for byte for both previews to come out as they do. `backup-portal validate` names the file over
// the limit before the CLI is run on it.
import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { run as validate } from "../../provider/cli/validate";
import { ENV_STRING_MAX_BYTES } from "../../provider/rules/config-env";
import { stackFileConfigSize } from "../../provider/stack-config/config-size";
import type { Workspace } from "./cli";
import { stacksWorkspace } from "./project";

/** The config: an empty tenants block, values Go escapes, and `pad:filler` of `pad` characters. */
const configYaml = (pad: number): string =>
  [
    "config:",
    "  backup-portal:tenants: {}",
    '  pad:text: "<tag> & \\u2028 \\"quoted\\" é 😀"',
    "  pad:number: 42",
    "  pad:object:",
    "    html: \"<a href='x'>&</a>\"",
    '    quote: "say \\"hi\\" \\\\ back"',
    '    lines: "one\\ntwo\\tthree\\u0001\\u2029"',
    "    number: 1.5",
    "    big: 12345678901",
    "    flag: true",
    "    nothing: null",
    "    list: [1, two, {three: 3}]",
    `  pad:filler: ${"x".repeat(pad)}`,
    "",
  ].join("\n");

describe("real engine: PULUMI_CONFIG at Linux's limit for one environment variable", function () {
  this.timeout(300_000);
  let ws: Workspace;
  let salt: string;
  before(async () => {
    ws = stacksWorkspace("size", configYaml(1));
    await ws.ok(["stack", "init"]);
    // The passphrase's salt the init wrote: kept in every file written below.
    salt = fs.readFileSync(ws.stackFile, "utf8").match(/^encryptionsalt: .*$/m)?.[0] ?? "";
  });
  after(() => ws?.remove());

  /** Writes the stack file with PULUMI_CONFIG of `bytes` bytes by the rule (the filler makes it up). */
  function writeWithSize(bytes: number): string {
    // One `x` (no filler at all would be null, "null" to the CLI); each more is a byte more.
    const one = stackFileConfigSize(configYaml(1), "Pulumi.size.yaml").bytes;
    const text = `${salt}\n${configYaml(bytes - one + 1)}`;
    assert.equal(stackFileConfigSize(text, "Pulumi.size.yaml").bytes, bytes);
    fs.writeFileSync(ws.stackFile, text);
    return text;
  }

  async function validateFile() {
    let out = "";
    let err = "";
    const code = await validate([path.basename(ws.stackFile), "--offline"], {
      out: (t) => (out += t),
      err: (t) => (err += t),
      env: {},
      cwd: ws.project,
      errIsTTY: false,
    });
    return { code, out, err };
  }

  it("131073 bytes: validate names the file first; then pulumi preview fails with the kernel's E2BIG", async () => {
    writeWithSize(ENV_STRING_MAX_BYTES + 1);
    const checked = await validateFile();
    assert.equal(checked.code, 1, checked.out + checked.err);
    assert.match(
      checked.out,
      /^Pulumi\.size\.yaml: backup-portal:tenants: the config the Pulumi CLI hands a Node\.js program is 131,073 bytes \(PULUMI_CONFIG\), over Linux's 131,072 for one environment variable: pulumi preview and up fail with "argument list too long"; without its tenants it is 131,073 bytes already; its largest value is pad:filler /,
    );
    const preview = await ws.pulumi(["preview"]);
    assert.notEqual(preview.code, 0, preview.stdout);
    assert.match(
      preview.stdout + preview.stderr,
      /Problem executing program \(could not run language executor\): fork\/exec \S+\/node: argument list too long/,
    );
  });

  it("131072 bytes: valid, and the same program runs", async () => {
    writeWithSize(ENV_STRING_MAX_BYTES);
    const checked = await validateFile();
    assert.equal(checked.code, 0, checked.out + checked.err);
    const preview = await ws.pulumi(["preview"]);
    assert.equal(preview.code, 0, preview.stdout + preview.stderr);
    assert.doesNotMatch(preview.stdout + preview.stderr, /argument list too long/);
  });
});
