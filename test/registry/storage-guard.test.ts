// The registry's volume guard: what the engine's Check at preview gets (the values in state as olds) decides whether
// a change of the volume is refused. Under the real CLI: test/real-engine/registry-cluster.test.ts.
import { strict as assert } from "node:assert";
import { storageGuardProvider, StorageGuardInputs } from "../../provider/registry/storage-guard";

const made: StorageGuardInputs = {
  path: "registry",
  namespace: "zot",
  claimName: "zot-pvc-zot-0",
  storageSize: "100Gi",
  storageClass: "large",
};

describe("registry: the storage guard's Check", () => {
  it("passes the first create (no olds) and an unchanged volume", async () => {
    assert.deepEqual((await storageGuardProvider.check!({}, made)).failures, []);
    assert.deepEqual((await storageGuardProvider.check!(made, { ...made })).failures, []);
  });

  it("refuses a new size at storageSize, saying to keep it and how to grow the claim", async () => {
    const { failures } = await storageGuardProvider.check!(made, { ...made, storageSize: "200Gi" });
    assert.equal(failures!.length, 1);
    assert.equal(failures![0].property, "storageSize");
    assert.match(failures![0].reason, /^registry\.storageSize: the registry's volume was made with 100Gi and cannot become 200Gi/);
    assert.match(failures![0].reason, /Keep storageSize: 100Gi/);
    assert.match(
      failures![0].reason,
      /kubectl -n zot patch pvc zot-pvc-zot-0 -p '\{"spec":\{"resources":\{"requests":\{"storage":"200Gi"\}\}\}\}'/,
    );
  });

  it("refuses a new class at storageClass, and both at once", async () => {
    const { failures } = await storageGuardProvider.check!(made, { ...made, storageSize: "1Ti", storageClass: "" });
    assert.deepEqual(
      failures!.map((f) => f.property),
      ["storageSize", "storageClass"],
    );
    assert.match(failures![1].reason, /^registry\.storageClass: the registry's volume was made in class "large" and cannot move to ""/);
  });
});
