// Which kubeconfigs the registry's storage-class check can use at preview (the check itself runs against a real API
// server in test/real-engine/registry-cluster.test.ts): inline credentials only, never an exec plugin.
import { strict as assert } from "node:assert";
import { stringify } from "yaml";
import { inlineAccess, storageClassProblem } from "../../provider/registry/storage-class-check";

const kubeconfig = (user: Record<string, unknown>, server = "https://127.0.0.1:6443") =>
  stringify({
    apiVersion: "v1",
    clusters: [{ name: "c", cluster: { server, "certificate-authority-data": Buffer.from("CA").toString("base64") } }],
    users: [{ name: "u", user }],
    contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
    "current-context": "x",
  });

describe("registry: the storage-class check's kubeconfig", () => {
  it("reads a token or an inline client certificate of the current context", () => {
    assert.deepEqual(inlineAccess(kubeconfig({ token: "t0k" })), {
      server: "https://127.0.0.1:6443",
      ca: "CA",
      token: "t0k",
      cert: undefined,
      key: undefined,
      insecure: false,
    });
    const cert = inlineAccess(
      kubeconfig({
        "client-certificate-data": Buffer.from("C").toString("base64"),
        "client-key-data": Buffer.from("K").toString("base64"),
      }),
    );
    assert.equal(cert?.cert, "C");
    assert.equal(cert?.key, "K");
  });

  it("does not use an exec plugin, a plain-http server, a broken file or a missing context", async () => {
    assert.equal(inlineAccess(kubeconfig({ exec: { command: "aws", args: ["eks", "get-token"] } })), undefined);
    assert.equal(inlineAccess(kubeconfig({ token: "t" }, "http://127.0.0.1:8080")), undefined);
    assert.equal(inlineAccess("{ not yaml"), undefined);
    assert.equal(inlineAccess(kubeconfig({ token: "t" }).replace("current-context: x", "current-context: y")), undefined);
    // Unusable: no problem reported (the provider says what it finds), and nothing asked.
    assert.equal(await storageClassProblem(kubeconfig({ exec: { command: "x" } }), "large", "registry"), undefined);
  });
});
