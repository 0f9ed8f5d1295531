// The provider configuration's rules and the import ids in process (provider/plugin/config.ts, resources.ts):
// the edges the process-level tests (config.test.ts, lifecycle.test.ts) do not reach.
import assert from "node:assert/strict";
import { checkConfig, configurationOf, diffConfig, lookup } from "../../provider/plugin/config";
import { resourceOf } from "../../provider/plugin/resources";
import { UNKNOWN } from "../../provider/dynamic/values";

const good = { url: "https://portal.example.com", origin: "https://portal.example.com", clientId: "c", username: "u", password: "p" };
const noEnv = {};

describe("plugin configuration rules", () => {
  it("the keys the engine adds to every provider's inputs are not unknown keys", () => {
    assert.deepEqual(checkConfig({ ...good, version: "0.3.0", pluginDownloadURL: "https://example.com/plugins" }, noEnv), []);
  });

  it("keys in the engine's namespaced forms (`backupportal:url`, `backupportal:config:url`) are the same keys", () => {
    const namespaced = Object.fromEntries(
      Object.entries(good).map(([k, v], i) => [i % 2 ? `backupportal:${k}` : `backupportal:config:${k}`, v]),
    );
    assert.deepEqual(checkConfig(namespaced, noEnv), []);
    assert.equal(lookup({ "backupportal:url": "https://a" })("backup-portal:url"), "https://a");
    assert.equal(lookup({ "backupportal:config:url": "https://b" })("url"), "https://b");
  });

  it("one setting not known yet (a preview) postpones the connection check to Configure; all known, it runs", () => {
    assert.deepEqual(checkConfig({ ...good, url: UNKNOWN }, noEnv), []);
    assert.deepEqual(checkConfig({ ...good, password: UNKNOWN, origin: undefined }, noEnv), []);
    assert.match(checkConfig({ ...good, url: "no url" }, noEnv)[0]?.reason ?? "", /^backupportal:url is not a URL/);
  });

  it('a null setting counts as missing, never as the text "null"', () => {
    assert.equal(lookup({ origin: null })("origin"), undefined);
    const [failure] = checkConfig({ ...good, origin: null }, noEnv);
    assert.match(failure?.reason ?? "", /not configured: set backupportal:origin \(or BACKUP_PORTAL_ORIGIN\)/);
    assert.deepEqual(diffConfig({ ...good, origin: null }, { ...good, origin: undefined }).changed, [], "null and absent are the same");
  });

  it("Configure's configuration: the inputs win, an older engine's variables fill only what they leave out", () => {
    const variables: Array<[string, string]> = [
      ["backupportal:config:url", "https://variables.example.com"],
      ["backupportal:config:username", "from-variables"],
      ["backupportal:password", "p"],
    ];
    assert.deepEqual(
      configurationOf({ url: "https://args.example.com", "backupportal:origin": "o", clientId: undefined, username: null }, variables),
      {
        url: "https://args.example.com",
        username: null,
        password: "p",
        origin: "o",
      },
    );
    assert.deepEqual(configurationOf({}, []), {});
  });

  it("import ids are positive whole numbers without leading zeros, in the form each resource names", () => {
    const bu = resourceOf("backupportal:index:BusinessUnit")!;
    for (const id of ["0", "012", "-1", "1.5", "", "1/2"]) assert.equal(bu.importId.parse(id), undefined, id);
    assert.deepEqual(bu.importId.parse("120"), { id: "120", props: {} });
    const consumer = resourceOf("backupportal:index:Consumer")!;
    assert.deepEqual(consumer.importId.parse("7/30"), { id: "30", props: { businessUnitId: 7, consumerId: 30 } });
    for (const id of ["0/30", "7/0", "07/30", "7/030", "7", "7/30/1"]) assert.equal(consumer.importId.parse(id), undefined, id);
    const proxy = resourceOf("backupportal:index:NodeProxy")!;
    assert.deepEqual(proxy.importId.parse("7/30:31"), {
      id: "30:31",
      props: { businessUnitId: 7, agentConsumerId: 30, targetConsumerId: 31 },
    });
    for (const id of ["7/30", "7/0:31", "7/30:031", "x/30:31"]) assert.equal(proxy.importId.parse(id), undefined, id);
    assert.equal(resourceOf("backupportal:index:Tenant"), undefined);
  });

  it("an import id beyond 2^53 - 1 is refused, not read as another id (9007199254740993 is …992 as a number)", () => {
    const max = String(Number.MAX_SAFE_INTEGER);
    const cases: Array<[string, string[]]> = [
      ["BusinessUnit", ["9007199254740992", "9007199254740993", "9".repeat(20)]],
      ["Consumer", ["2/9007199254740993", "9007199254740993/3", "2/99999999999999999999"]],
      ["Node", ["2/9007199254740993", "2/99999999999999999999"]],
      ["NodeProxy", ["2/9007199254740993:3", "2/3:9007199254740993", "9007199254740993/3:4"]],
    ];
    for (const [type, ids] of cases)
      for (const id of ids) assert.equal(resourceOf(`backupportal:index:${type}`)!.importId.parse(id), undefined, `${type} ${id}`);
    assert.deepEqual(resourceOf("backupportal:index:BusinessUnit")!.importId.parse(max), { id: max, props: {} });
    assert.deepEqual(resourceOf("backupportal:index:Consumer")!.importId.parse(`${max}/${max}`), {
      id: max,
      props: { businessUnitId: Number.MAX_SAFE_INTEGER, consumerId: Number.MAX_SAFE_INTEGER },
    });
  });
});
