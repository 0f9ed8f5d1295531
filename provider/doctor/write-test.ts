// `backup-portal doctor --write-test --bunit ID`: makes a consumer and node
// named doctor-<random> in that business unit and checks what the providers
// rely on: a PUT merges or replaces, the spname and activate answers, the
// password change, the DELETE answers, and that deleting the node removed its
// consumer. Whatever happens, it removes what it made, and says what it could not.
import { randomBytes } from "crypto";
import { PortalClient } from "../portal/client";
import { PortalError } from "../portal/errors";
import { consumerPath } from "../portal/core";
import { tsmNameProblem } from "../portal/nodes";
import { firstValidPair } from "../rules/node-pairs";
import { Checks } from "./report";
import { Probe, said } from "./probe";

export interface WriteContext {
  client: PortalClient;
  probe: Probe;
  checks: Checks;
  bunitId: number;
  /** Random names (tests pass a fixed source). */
  random?: () => string;
}

function why(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Runs the write test; answers what it could not remove (empty when it left nothing behind). */
export async function writeTest(w: WriteContext): Promise<string[]> {
  const { client, checks, bunitId: b } = w;
  const suffix = w.random?.() ?? randomBytes(4).toString("hex");
  const name = `doctor-${suffix}`;
  let consumerId: number;
  try {
    consumerId = (await client.consumers.create(b, { name, note: "made by backup-portal doctor --write-test; removed when it ends" })).id;
    checks.ok("create", `made consumer ${consumerId} ${JSON.stringify(name)} in business unit ${b}`);
  } catch (err) {
    checks.failed(
      "create",
      `could not make a consumer in business unit ${b}: ${why(err)}`,
      "use --bunit with a business unit the account may write to",
    );
    // The portal may have made it all the same (its answer lost): the name is random, so one by that name is ours.
    const made = await findByName(w, name);
    if (made === "unknown") return [`perhaps a consumer named ${JSON.stringify(name)} in business unit ${b}: ${removal(b)}`];
    return made === undefined ? [] : cleanup(w, made, name);
  }
  try {
    await nodeChecks(w, consumerId, name, suffix);
  } catch (err) {
    checks.failed("write-test", `stopped: ${why(err)}`, "see the check before it");
  }
  // Whatever happened above: nodeChecks throws nothing past this point.
  return cleanup(w, consumerId, name);
}

async function nodeChecks(w: WriteContext, consumerId: number, name: string, suffix: string): Promise<void> {
  const { client, checks, probe, bunitId: b } = w;
  const [os, types, domains] = await Promise.all([
    client.reference.operatingSystems(),
    client.reference.nodeTypes(),
    client.reference.domains(b),
  ]);
  // A pair the portal lists as going together (rules/node-pairs.ts): one it refuses would fail the test for a reason
  // that is not the one it tests.
  const pair = firstValidPair(os, types);
  if (!pair) {
    checks.failed("node-create", "no operating system lists a node type the portal has", "check the reference data lines above");
    return;
  }
  try {
    await client.nodes.create(b, consumerId, {
      operatingSystem: { id: pair.os.id },
      type: { id: pair.type.id },
      domain: { id: domains[0].id },
      contact: "backup-portal doctor",
      cpuCount: 1,
    });
    checks.ok(
      "node-create",
      `made its node (${pair.os.name ?? pair.os.id}, ${pair.type.name ?? pair.type.id}, domain ${domains[0].name ?? domains[0].id})`,
    );
  } catch (err) {
    checks.failed("node-create", why(err), "check the reference data lines above");
    return;
  }

  // PUT: the same consumer with its note, then without: merge keeps the note, replace clears it.
  try {
    await client.consumers.update(b, consumerId, { name, note: "doctor put test" });
    await client.consumers.update(b, consumerId, { name });
    const after = await client.consumers.get(b, consumerId);
    if (after.note === "doctor put test") checks.ok("put", "a PUT merges: fields it leaves out keep their value", "merge");
    else
      checks.differs(
        "put",
        "a PUT replaces the object: fields it leaves out are cleared; the providers send every declared field (handled)",
        "replace",
      );
  } catch (err) {
    checks.failed("put", why(err), "the providers update with PUT: check the account's rights");
  }

  // spname: the bare name (what the published Go client relies on) or a JSON string; the client takes both.
  let tsmName = `DOCTOR-${suffix.toUpperCase()}`;
  try {
    const a = await probe.send("GET", consumerPath(b, consumerId, "/node/spname"));
    if (a.status === 200) {
      const proposed = await client.nodes.proposeName(b, consumerId);
      const bare = typeof a.json !== "string";
      if (bare) checks.ok("spname", `GET .../node/spname answers the bare name (${proposed}), as the published Go client expects`, "bare");
      else
        checks.differs(
          "spname",
          `GET .../node/spname answers a JSON string (${a.text.slice(0, 70)}); the client takes both (handled)`,
          "json",
        );
      if (!tsmNameProblem(proposed)) tsmName = proposed;
    } else {
      checks.differs(
        "spname",
        `GET .../node/spname answered HTTP ${a.status} (${said(a)}); the API documentation does not list it and the providers take tsmName from the config (handled)`,
        "none",
      );
    }
  } catch (err) {
    checks.failed("spname", why(err), "the client could not read the proposed name: report this answer");
  }

  // activate: the answer is the stored name (a JSON string, bare, or nothing); the node then carries it.
  try {
    const a = await probe.send("GET", consumerPath(b, consumerId, "/node/activate"), { query: { tsmName } });
    if (a.status !== 200) throw new Error(`GET .../node/activate answered HTTP ${a.status}: ${said(a)}`);
    const node = await client.nodes.get(b, consumerId);
    const shape = typeof a.json === "string" ? "a JSON string" : a.text.trim() === "" ? "no body" : "the bare name";
    if (node.tsmName?.toUpperCase() !== tsmName.toUpperCase()) {
      checks.failed(
        "activate",
        `activated as ${tsmName}, but the node reads tsmName ${JSON.stringify(node.tsmName)}`,
        "report this answer: the providers read the activated name back",
      );
    } else {
      checks.ok("activate", `activated as ${node.tsmName}; the answer was ${shape} (the client takes any)`, shape);
      // A retried activation (its answer lost) repeats the same name.
      await client.nodes.activate(b, consumerId, tsmName);
      checks.ok("activate-again", "activating again under the same name succeeds");
    }
  } catch (err) {
    const again = err instanceof PortalError && err.status === 409;
    if (again)
      checks.differs(
        "activate-again",
        `activating again under the same name is refused (${why(err)}); a retried activation then fails and \`pulumi refresh\` settles it`,
        "409",
      );
    else checks.failed("activate", why(err), "the providers activate nodes this way: report this answer");
  }

  // The password change: answered with the node, never with the password.
  const password = `Dr-${randomBytes(12).toString("base64url")}`;
  try {
    const node = await client.nodes.setPassword(b, consumerId, password);
    checks.ok("password", `POST .../node/password answered the node (id ${node?.id ?? "?"}); the password is never kept from an answer`);
  } catch (err) {
    checks.failed(
      "password",
      probe.clean(why(err)).split(password).join("***"),
      "the providers set node passwords this way: report this answer",
    );
  }

  // DELETE of the node: 200 with the node, 200 empty or 204; the consumer goes with it; a second DELETE is 404.
  try {
    const a = await probe.send("DELETE", consumerPath(b, consumerId, "/node"), { json: {} });
    const withNode = a.status === 200 && a.json !== null && typeof a.json === "object" && "id" in (a.json as object);
    if (withNode)
      checks.ok(
        "node-delete",
        "DELETE .../node answers 200 with the deleted node (what the published Go client decodes)",
        "200 with the node",
      );
    else if (a.status === 200 || a.status === 204)
      checks.differs(
        "node-delete",
        `DELETE .../node answers ${a.status}${a.text ? ` with ${JSON.stringify(a.text.slice(0, 40))}` : " without a body"}; the client takes any 2xx (handled)`,
        String(a.status === 200 ? "200 empty" : 204),
      );
    else throw new Error(`DELETE .../node answered HTTP ${a.status}: ${said(a)}`);
    const gone = await client.consumers.get(b, consumerId).then(
      () => false,
      (e: unknown) => {
        if (e instanceof PortalError && e.status === 404) return true;
        throw e;
      },
    );
    if (gone) checks.ok("consumer-removed", "deleting the node removed its consumer, as the API documentation says");
    else
      checks.differs(
        "consumer-removed",
        "the consumer stays after its node is deleted; the Consumer resource's delete removes it (handled)",
        "consumer kept",
      );
    const again = await probe.send("DELETE", consumerPath(b, consumerId, "/node"), { json: {} });
    if (again.status === 404) checks.ok("delete-again", "a second DELETE answers 404, which the client takes as done");
    else
      checks.differs(
        "delete-again",
        `a second DELETE answers HTTP ${again.status}; the client takes 2xx and 404 as done`,
        String(again.status),
      );
  } catch (err) {
    checks.failed("node-delete", why(err), "the providers delete nodes this way: report this answer");
  }
}

/** The id of the consumer named `name` in the business unit, undefined when there is none, "unknown" when the list failed. */
async function findByName(w: WriteContext, name: string): Promise<number | undefined | "unknown"> {
  try {
    return (await w.client.consumers.list(w.bunitId)).find((c) => c.name === name)?.id;
  } catch {
    return "unknown";
  }
}

/** How to remove what the write test left, by hand. */
function removal(b: number, consumerId?: number): string {
  const where = consumerId === undefined ? `/v1/bunits/${b}/consumers/<id>` : `/v1/bunits/${b}/consumers/${consumerId}`;
  return `delete it in the portal (business unit ${b}, consumption units; its node goes with it), or with the API: DELETE ${where}?deleteAssociations=true`;
}

/**
 * Whether the consumer is there: false on a 404, undefined when the portal did not say. Asked twice, the second
 * time through the list: a portal that just failed a DELETE may fail the next read too.
 */
async function present(w: WriteContext, consumerId: number): Promise<boolean | undefined> {
  const one = await w.client.consumers.get(w.bunitId, consumerId).then(
    () => true,
    (e: unknown) => (e instanceof PortalError && e.status === 404 ? false : undefined),
  );
  if (one !== undefined) return one;
  return w.client.consumers.list(w.bunitId).then(
    (all) => all.some((c) => c.id === consumerId),
    () => undefined,
  );
}

/**
 * Removes the consumer (and its node) if still there; answers what is left behind. Whatever the DELETE
 * answered, the portal is asked afterwards: an answer lost after the removal is no failure, and a DELETE that
 * succeeded but left the consumer is one.
 */
async function cleanup(w: WriteContext, consumerId: number, name: string): Promise<string[]> {
  const { client, checks, bunitId: b } = w;
  let refused: unknown;
  let removed = false;
  try {
    removed = await client.consumers.delete(b, consumerId, { deletionComment: "backup-portal doctor --write-test" });
  } catch (err) {
    refused = err;
  }
  const there = await present(w, consumerId);
  if (there === false || (there === undefined && refused === undefined)) {
    checks.ok(
      "cleanup",
      removed || refused ? `removed consumer ${consumerId} ${JSON.stringify(name)} and its node` : "nothing left to remove",
    );
    return [];
  }
  // Still there, or the DELETE failed and the portal would not say: named either way, with how to remove it.
  const what = `${there ? "" : "perhaps "}consumer ${consumerId} ${JSON.stringify(name)} in business unit ${b} (with its node, if any)`;
  const reason = refused !== undefined ? why(refused) : "it is still there after DELETE";
  checks.failed("cleanup", `could not remove ${what}: ${reason}`, removal(b, consumerId));
  return [`${what}: ${removal(b, consumerId)}`];
}
