// Backup nodes: create, read, update, delete (removes the consumer too),
// password, activation, proposed names, filespaces and proxy relations.
import { randomBytes } from "node:crypto";
import type { Router } from "../router";
import type { Ctx } from "../context";
import type { Input } from "../input";
import type { ConsumerRec, NodeRec } from "../types";
import { noContent, ok } from "../context";
import { conflict, notFound, validation } from "../errors";
import { qBool, qInt } from "../input";
import { nodeOf, pathConsumer, pathNode, reachConsumer } from "../access";
import { AUDIT, audit } from "../audit";
import { collection, nodeHref, renderNode } from "../views";
import { hashSecret, iso } from "../util";
import { applyPatch, putWrite, Write } from "./bunits";
import { removeConsumer } from "./consumers";
import { defaultServer } from "./reference";

export const TSM_NAME_RE = /^[A-Z0-9_.\-+&]{1,64}$/;

type Patch = { [K in keyof NodeRec]?: NodeRec[K] | null };

/**
 * A node's type must be one its operating system lists as supported (`supportedNodeTypes`), as a portal that
 * enforces the pairs it lists refuses the others. An operating system that lists none (a data file an older
 * emulator wrote) takes every type.
 */
function refuseUnsupportedType(ctx: Ctx, osId: number | undefined, typeId: number | undefined): void {
  const os = ctx.state.operatingSystems.find((o) => o.id === osId);
  if (!os?.supportedNodeTypeIds?.length || typeId === undefined || os.supportedNodeTypeIds.includes(typeId)) return;
  const names = ctx.state.nodeTypes.filter((t) => os.supportedNodeTypeIds!.includes(t.id)).map((t) => t.name);
  throw validation(
    `type.id ${typeId} is not a node type operating system ${os.id} (${os.name}) supports; it supports ${names.join(", ")}`,
    "UnsupportedNodeType",
  );
}

/** The fields of a node's POST or PUT; `current`: the node a PUT changes. */
function readFields(ctx: Ctx, input: Input, w: Write, current?: NodeRec): Patch {
  const creating = w === "create";
  const s = ctx.state;
  const server = defaultServer(ctx);
  const p: Patch = {};
  /** A reference that must exist; required on create, cannot be cleared on update. */
  const mandatory = (key: string, exists: (id: number) => boolean, what: string): number | undefined => {
    if (w === "merge" && !input.has(key)) return undefined;
    if (!creating && input.raw(key) === null) throw validation(`${key} cannot be cleared`);
    const id = input.reqRef(key);
    if (!exists(id)) throw validation(`${key}.id ${id} is not ${what}`);
    return id;
  };
  p.operatingSystemId = mandatory("operatingSystem", (id) => s.operatingSystems.some((o) => o.id === id), "a known operating system");
  p.typeId = mandatory("type", (id) => s.nodeTypes.some((t) => t.id === id), "a known node type");
  refuseUnsupportedType(ctx, p.operatingSystemId ?? current?.operatingSystemId, p.typeId ?? current?.typeId);
  p.domainId = mandatory(
    "domain",
    (id) => s.domains.some((d) => d.id === id && d.serverId === server.id),
    "a domain of the default server",
  );
  const cos = input.optRef("clientOptionSet");
  if (typeof cos === "number" && !s.clientOptionSets.some((c) => c.id === cos && c.serverId === server.id)) {
    throw validation(`clientOptionSet.id ${cos} is not a client option set of the default server`);
  }
  p.clientOptionSetId = cos;
  const serverId = input.optRef("server");
  if (typeof serverId === "number" && serverId !== server.id) throw validation(`server.id ${serverId} is not the default server`);
  if (creating) p.serverId = server.id;
  p.contact = input.optString("contact", 500);
  p.cpuCount = input.optNumber("cpuCount", { integer: true, min: 0, max: 100000 });
  return p;
}

function otherNode(ctx: Ctx, self: ConsumerRec, otherId: number, param: string): { consumer: ConsumerRec; node: NodeRec } {
  if (otherId === self.id) throw validation(`${param} must name another consumer than ${self.id}`);
  const consumer = reachConsumer(ctx, otherId);
  const node = nodeOf(ctx, consumer.id);
  if (!node) throw validation(`Consumer ${otherId} (${param}) has no node`);
  return { consumer, node };
}

function proxyIdParam(ctx: Ctx, name: string): number {
  const id = qInt(ctx.query, name, 1, Number.MAX_SAFE_INTEGER);
  if (id === undefined) throw validation(`Query parameter ${name} is required`);
  return id;
}

function addProxy(ctx: Ctx, agent: ConsumerRec, target: ConsumerRec): void {
  const s = ctx.state;
  if (s.proxies.some((p) => p.agentConsumerId === agent.id && p.targetConsumerId === target.id)) return;
  s.proxies.push({ agentConsumerId: agent.id, targetConsumerId: target.id, createdDate: iso() });
  for (const c of [agent, target]) {
    const node = nodeOf(ctx, c.id);
    if (!node) continue;
    audit(ctx, {
      type: AUDIT.modify,
      action: "AddProxy",
      objectType: "Node",
      objectId: node.id,
      businessUnitId: c.businessUnitId,
      consumerId: c.id,
      message: `Consumer ${agent.id} made proxy agent of consumer ${target.id}`,
    });
  }
}

function removeProxy(ctx: Ctx, agent: ConsumerRec, target: ConsumerRec): void {
  const s = ctx.state;
  const before = s.proxies.length;
  s.proxies = s.proxies.filter((p) => !(p.agentConsumerId === agent.id && p.targetConsumerId === target.id));
  if (s.proxies.length === before) throw notFound(`The proxy relation of agent ${agent.id} and target ${target.id}`);
  for (const c of [agent, target]) {
    const node = nodeOf(ctx, c.id);
    if (!node) continue;
    audit(ctx, {
      type: AUDIT.modify,
      action: "RemoveProxy",
      objectType: "Node",
      objectId: node.id,
      businessUnitId: c.businessUnitId,
      consumerId: c.id,
      message: `Consumer ${agent.id} is no longer proxy agent of consumer ${target.id}`,
    });
  }
}

export function register(r: Router): void {
  const base = "/v1/bunits/:bu/consumers/:consumer/node";

  r.get(base, (ctx) => ok(renderNode(ctx, pathNode(ctx).node)));

  r.post(base, (ctx) => {
    const { consumer } = pathConsumer(ctx);
    if (nodeOf(ctx, consumer.id)) throw conflict("NodeExists", `Consumer ${consumer.id} already has a node`);
    const patch = readFields(ctx, ctx.input(), "create");
    const node: NodeRec = {
      id: ctx.store.nextId("node"),
      createdDate: iso(),
      consumerId: consumer.id,
      operatingSystemId: 0,
      typeId: 0,
      domainId: 0,
      serverId: 0,
      locked: false,
      decommissioned: false,
    };
    applyPatch(node, patch);
    ctx.state.nodes.push(node);
    audit(ctx, {
      type: AUDIT.create,
      action: "Create",
      objectType: "Node",
      objectId: node.id,
      businessUnitId: consumer.businessUnitId,
      consumerId: consumer.id,
      message: "Node created",
    });
    return ok(renderNode(ctx, node));
  });

  r.put(base, (ctx) => {
    const { consumer, node } = pathNode(ctx);
    const w = putWrite(ctx);
    const changed = applyPatch(node, readFields(ctx, ctx.input(), w, node), w);
    if (changed.length) {
      audit(ctx, {
        type: AUDIT.modify,
        action: "Modify",
        objectType: "Node",
        objectId: node.id,
        businessUnitId: consumer.businessUnitId,
        consumerId: consumer.id,
        message: `Node modified: ${changed.join(", ")}`,
      });
    }
    return ok(renderNode(ctx, node));
  });

  // The real portal most likely answers the deleted node (the published Go client decodes one); the
  // other readings are modes (emulator/readings.ts).
  r.delete(base, (ctx) => {
    const { consumer, node } = pathNode(ctx);
    const rendered = renderNode(ctx, node);
    removeConsumer(ctx, consumer, `Consumer "${consumer.name}" deleted with its node`);
    const answer = ctx.app.readings.nodeDelete;
    return answer === "node" ? ok(rendered) : answer === "empty" ? { status: 200 } : noContent();
  });

  r.post(`${base}/password`, (ctx) => {
    const { consumer, node } = pathNode(ctx);
    const pw = ctx.input().raw("tsmPassword");
    if (typeof pw !== "string" || pw.length < 1 || pw.length > 64) throw validation("tsmPassword must be a string of 1 to 64 characters");
    node.passwordHash = hashSecret(pw, `node-${node.id}`);
    delete node.generatedPassword;
    node.passwordChangedDate = iso();
    audit(ctx, {
      type: AUDIT.modify,
      action: "ChangePassword",
      objectType: "Node",
      objectId: node.id,
      businessUnitId: consumer.businessUnitId,
      consumerId: consumer.id,
      message: "Node password changed",
    });
    return ok(renderNode(ctx, node));
  });

  r.get(`${base}/activate`, (ctx) => {
    const { consumer, node } = pathNode(ctx);
    const raw = ctx.query.get("tsmName");
    if (raw === null || raw === "") throw validation("Query parameter tsmName is required");
    const name = raw.toUpperCase();
    if (!TSM_NAME_RE.test(name)) {
      throw validation("tsmName must be 1 to 64 characters of A-Z, 0-9, _ . - + &", "InvalidTsmName");
    }
    if (node.tsmName) {
      if (node.tsmName === name) return ok(node.tsmName);
      throw conflict("AlreadyActivated", `The node is already activated as ${node.tsmName}; the name cannot change`);
    }
    if (ctx.state.nodes.some((n) => n.tsmName === name)) throw conflict("TsmNameTaken", `Another node is already named ${name}`);
    node.tsmName = name;
    node.activatedDate = iso();
    // No password set before activation: the portal chooses one and hands it back on the node.
    if (!node.passwordHash) node.generatedPassword = generatedNodePassword();
    audit(ctx, {
      type: AUDIT.modify,
      action: "Activate",
      objectType: "Node",
      objectId: node.id,
      businessUnitId: consumer.businessUnitId,
      consumerId: consumer.id,
      message: `Node activated as ${name}`,
    });
    return ok(name);
  });

  r.get(`${base}/spname`, (ctx) => {
    pathConsumer(ctx);
    for (let i = 0; i < 100; i++) {
      const name = `EMU-${randomBytes(6).toString("hex").toUpperCase()}`;
      // Bare, as the published Go client expects (it puts the body into activate?tsmName= as it is).
      if (!ctx.state.nodes.some((n) => n.tsmName === name))
        return ctx.app.readings.spname === "bare" ? { status: 200, text: name } : ok(name);
    }
    throw new Error("could not find a free node name");
  });

  r.get(`${base}/filespaces`, (ctx) => {
    const { consumer } = pathNode(ctx);
    qBool(ctx.query, "tsmSync");
    const items = ctx.state.filespaces
      .filter((f) => f.consumerId === consumer.id)
      .map((f) => ({
        id: f.id,
        name: f.name,
        type: f.type,
        capacity: f.capacity,
        used: f.used,
        lastBackupDate: f.lastBackupDate,
      }));
    return ok(collection(`${nodeHref(ctx, consumer)}/filespaces`, items));
  });

  r.get(`${base}/possibleproxynodes`, (ctx) => {
    const { consumer } = pathNode(ctx);
    const s = ctx.state;
    const ids = new Set(s.consumers.filter((c) => c.businessUnitId === consumer.businessUnitId && c.id !== consumer.id).map((c) => c.id));
    const items = s.nodes.filter((n) => ids.has(n.consumerId)).map((n) => renderNode(ctx, n));
    return ok(collection(`${nodeHref(ctx, consumer)}/possibleproxynodes`, items));
  });

  // The path's consumer is the target; proxyAgentId names the agent.
  r.post(`${base}/proxyagents`, (ctx) => {
    const { consumer, node } = pathNode(ctx);
    const agent = otherNode(ctx, consumer, proxyIdParam(ctx, "proxyAgentId"), "proxyAgentId");
    addProxy(ctx, agent.consumer, consumer);
    return ok(renderNode(ctx, node));
  });

  // The path's consumer is the agent; proxyTargetId names the target.
  r.post(`${base}/proxytargets`, (ctx) => {
    const { consumer, node } = pathNode(ctx);
    const target = otherNode(ctx, consumer, proxyIdParam(ctx, "proxyTargetId"), "proxyTargetId");
    addProxy(ctx, consumer, target.consumer);
    return ok(renderNode(ctx, node));
  });

  r.delete(`${base}/proxyagents/:other`, (ctx) => {
    const { consumer } = pathNode(ctx);
    const agent = reachConsumer(ctx, ctx.param("other"));
    removeProxy(ctx, agent, consumer);
    return noContent();
  });

  r.delete(`${base}/proxytargets/:other`, (ctx) => {
    const { consumer } = pathNode(ctx);
    const target = reachConsumer(ctx, ctx.param("other"));
    removeProxy(ctx, consumer, target);
    return noContent();
  });
}

/** A node password as the portal would choose one: 16 letters and digits (IBM Storage Protect takes 8 to 64). */
function generatedNodePassword(): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
  return [...randomBytes(16)].map((b) => alphabet[b % alphabet.length]).join("");
}
