// The cheaper alternative to the broker: a portal user per tenant, limited to the tenant's business unit, whose
// account the instance's user data carries. The portal (here the emulator) confines that user to its business
// unit's subtree: with it, an instance owner who sets backup_bunit to another tenant's unit gets nothing there.
import assert from "node:assert/strict";
import * as path from "path";
import { PortalError } from "../../provider/portal/errors";
import { clientFor, envFor, writes } from "../support/portal";
import { instanceDocument, register, registrationSuite, UUID } from "./helpers";

const OWN_BUNIT = 2; // the "tenant" account's business unit (seed)
const OTHER_BUNIT = 3; // another tenant's

describe("registration: a tenant's own registration account", () => {
  const suite = registrationSuite();

  it("registers in its own business unit, and cannot register into another tenant's", async () => {
    const dir = suite.dir;
    const args = ["--option-file", path.join(dir, "dsm.opt"), "--password-file", path.join(dir, "pw")];
    const other = await register(args, { doc: instanceDocument({ backup_bunit: String(OTHER_BUNIT) }), env: envFor(suite.emu, "tenant") });
    assert.equal(other.code, 3, other.stderr);
    assert.match(other.stderr, /backup_bunit 3: the account ".*" may not reach business unit 3/);
    assert.deepEqual(writes(suite.emu), [], "nothing changed on the portal");
    assert.equal(suite.emu.state().consumers.filter((c) => c.businessUnitId === OTHER_BUNIT).length, 1);

    const own = await register(args, { doc: instanceDocument({ backup_bunit: String(OWN_BUNIT) }), env: envFor(suite.emu, "tenant") });
    assert.equal(own.code, 0, own.stderr);
    assert.ok(suite.emu.state().consumers.some((c) => c.businessUnitId === OWN_BUNIT && c.tags?.includes(`instance-uuid:${UUID}`)));
  });

  it("the account cannot read or change anything in another business unit through the API either", async () => {
    const client = clientFor(suite.emu, "tenant");
    try {
      const attempts: Array<[string, () => Promise<unknown>]> = [
        ["read the business unit", () => client.businessUnits.get(OTHER_BUNIT)],
        ["list its consumers", () => client.consumers.list(OTHER_BUNIT)],
        ["create a consumer", () => client.consumers.create(OTHER_BUNIT, { name: "intruder" })],
        ["read the parent (reseller) unit", () => client.businessUnits.get(1)],
        ["set a node password there", () => client.nodes.setPassword(OTHER_BUNIT, 3, "Intruder-Pa55word-0123")],
      ];
      for (const [what, attempt] of attempts) {
        const err = await attempt().then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(err instanceof PortalError && err.status === 403, `${what}: ${String(err)}`);
      }
      assert.deepEqual(
        writes(suite.emu).filter((w) => w.status < 400),
        [],
      );
    } finally {
      client.close();
    }
  });
});
