// Each exported scalar is one line of the file, however long (issue 48 item 2): stack-yaml.ts writes without
// folding, so that a pull request's diff of a changed note is one line. Folded text reads back the same, so only
// the file's lines can tell: a 500-character note, a name and a tag of 200 characters, in a file export writes
// and in a tenant `--merge` adds to one.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { clientSuite } from "../support/portal";
import { BuSpec, exportCli, plant } from "./support";

/** Words and spaces, `length` characters: text a writer that folds would break at a space. */
const words = (first: string, length: number) => `${`${first} ${"lorem ipsum dolor sit amet ".repeat(40)}`.slice(0, length - 1)}x`;

const LONG = {
  note: words("note", 500),
  name: words("Name", 200),
  tag: words("tag", 200),
  consumerNote: words("consumer note", 500),
  consumerName: words("consumer", 200),
  consumerTag: words("consumer tag", 200),
  contact: words("contact", 500),
};

const LONG_TENANT: BuSpec = {
  name: LONG.name,
  registrationNumber: "L-1",
  timeZoneId: 1,
  settings: { note: LONG.note, tags: [LONG.tag, "short"] },
  consumers: [
    {
      name: LONG.consumerName,
      note: LONG.consumerNote,
      tags: [LONG.consumerTag],
      node: { os: 3, type: 1, domain: 1, cpuCount: 2, contact: LONG.contact },
    },
  ],
};

/** Asserts that each long value is written whole on one line of `text`. */
function assertOneLineEach(text: string): void {
  const lines = text.split(/\r?\n/);
  for (const [what, value] of Object.entries(LONG)) {
    assert.ok(
      lines.some((l) => l.includes(value)),
      `the ${what} (${value.length} characters) is not one line of the file:\n${lines.filter((l) => /lorem/.test(l)).join("\n")}`,
    );
  }
}

describe("export writes each scalar on one line, however long", function () {
  this.timeout(60_000);
  const p = clientSuite();

  it("export: a 500-character note, a 200-character name and tag (a business unit's, a consumer's), a long contact", async () => {
    plant(p.emu, [LONG_TENANT]);
    const r = await exportCli(p.emu);
    assert.equal(r.code, 0, r.err);
    assertOneLineEach(r.out);
  });

  it("--merge: the same values in a tenant the merge adds to an exported file", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "one-line-"));
    try {
      const file = path.join(dir, "Pulumi.prod.yaml");
      const first = await exportCli(p.emu, ["--out", file]);
      assert.equal(first.code, 0, first.err);
      plant(p.emu, [LONG_TENANT]);
      const r = await exportCli(p.emu, ["--merge", file]);
      assert.equal(r.code, 0, r.err);
      assert.match(r.err, /: 1 business units? added/);
      assertOneLineEach(fs.readFileSync(file, "utf8"));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
