// NameCheck: the names the stack's tenants use (time zones, operating systems, node types, the default server's
// domains and client option sets, the root business unit and the tenants' adoptIds) checked against the portal in
// the provider host's Check, only when they changed. The stack program (program/deploy.ts) registers one first, and
// every tenant's business unit depends on it: while it has check failures no business unit, and so nothing under
// one, is registered, and the engine stops the deployment at it (a resource with check failures is invalid). Its
// inputs are the tenants block reduced to what tenants/names.ts reads (namesOf) and the root business unit; its
// state is a digest of the names it checks (nameFacts, with the root, the portal and account) and the root's id. A
// Check whose digest the state holds reads nothing; any other runs validateNames, the one place of the rules,
// through the host's shared References, so the reference lists it reads are the ones the resources' own Checks use
// in the same deployment. Each problem is one failure line, `<stack file>: backup-portal:<path>: <problem>`, as the
// program's own config problems are.
// Create, Update, Read and Delete send nothing: there is nothing of it on the portal.
import { createHash } from "crypto";
import type * as pulumi from "@pulumi/pulumi";
import { currentPortal, portal } from "../dynamic/connection";
import { hostProvider, Lifecycle, serializedProvider } from "../dynamic/provider";
import { referencesFor } from "../dynamic/references";
import { DynamicResource } from "../dynamic/resource";
import { moduleSpecifier } from "../dynamic/specifier";
import { PortalError } from "../portal/errors";
import { formatConfigProblems } from "../stack-config/problems";
import { nameFacts, namesOf, TenantNames, validateNames } from "../tenants/names";
import type { TenantsConfig } from "../tenants/model";
import { escapeControls } from "../text/controls";

export { configure as configurePortal } from "../dynamic/connection";

/**
 * The rules' edition: part of the digest, so a release whose name checks read something new (or read it otherwise)
 * checks every stack's names once more on its first run. Raise it with any change to tenants/names.ts that a stack
 * whose names passed before could now fail.
 */
const RULES = 1;

export interface NameCheckArgs {
  /** The stack file the problems name (`Pulumi.<stack>.yaml`). */
  file: string;
  /** The business unit the tenants go under. */
  rootBusinessUnitId: number;
  /** The tenants block as namesOf(tenants) reduces it. */
  tenants: TenantNames;
}

type Inputs = Record<string, any>;

/**
 * The digest of what the check's verdict depends on: the rules' edition, the portal and account, the root and the
 * distinct names the tenants use (nameFacts: not their key paths, so renaming a key or adding an object with names
 * in use changes nothing). Sorted throughout: the same however the engine orders a map's keys.
 */
export function namesDigest(where: string, rootBusinessUnitId: unknown, tenants: TenantNames): string {
  const text = JSON.stringify({ rules: RULES, portal: where, rootBusinessUnitId, names: nameFacts(tenants) });
  return createHash("sha256").update(text).digest("hex");
}

/** A failure of the whole resource (no property: the CLI prints "has a problem: <reason>"), shown and not obeyed. */
const failure = (reason: string): pulumi.dynamic.CheckFailure => ({ property: "", reason: escapeControls(reason) });

/** A failed read: its message holds the hint that names the settings to check (a refused login, no answer, not the API). */
const unchecked = (e: Error) => failure(`the stack config's names could not be checked against the portal: ${e.message}`);

async function check(olds: Inputs, news: Inputs): Promise<pulumi.dynamic.CheckResult> {
  const file = typeof news.file === "string" ? news.file : "the stack file";
  const root = news.rootBusinessUnitId;
  let where: string;
  try {
    where = currentPortal();
  } catch (e) {
    // The connection settings: the program says so before it registers anything; a caller of its own hears it here.
    return { inputs: { rootBusinessUnitId: root }, failures: [failure(`${file}: ${(e as Error).message}`)] };
  }
  const tenants: TenantNames = news.tenants && typeof news.tenants === "object" ? news.tenants : {};
  const digest = namesDigest(where, root, tenants);
  const inputs: Inputs = { digest, rootBusinessUnitId: root };
  // Checked when the state took this digest: nothing to read.
  if (olds.digest === digest) return { inputs, failures: [] };
  try {
    const problems = await validateNames(tenants, referencesFor(portal()), root);
    return { inputs, failures: formatConfigProblems(file, problems).map(failure) };
  } catch (e) {
    // The portal could not be read (a refused login, no answer, not the API): one line, never a stack trace.
    if (e instanceof PortalError) return { inputs, failures: [unchecked(e)] };
    throw e;
  }
}

async function diff(_id: string, olds: Inputs, news: Inputs): Promise<pulumi.dynamic.DiffResult> {
  const changes = olds.digest !== news.digest || olds.rootBusinessUnitId !== news.rootBusinessUnitId;
  return { changes, replaces: [], deleteBeforeReplace: false };
}

const ID = "names";

async function create(inputs: Inputs): Promise<pulumi.dynamic.CreateResult> {
  return { id: ID, outs: { digest: inputs.digest, rootBusinessUnitId: inputs.rootBusinessUnitId } };
}

async function read(id: string, props: Inputs): Promise<pulumi.dynamic.ReadResult> {
  const state = { digest: props.digest, rootBusinessUnitId: props.rootBusinessUnitId };
  return { id, props: state, inputs: state };
}

async function update(_id: string, _olds: Inputs, news: Inputs): Promise<pulumi.dynamic.UpdateResult> {
  return { outs: { digest: news.digest, rootBusinessUnitId: news.rootBusinessUnitId } };
}

async function remove(): Promise<void> {}

export const nameCheckLifecycle: Lifecycle = { check, diff, create, read, update, delete: remove };

/** The provider object the host runs for the NameCheck; `__provider` names it (dynamic/provider.ts). */
export const nameCheckProvider = hostProvider(nameCheckLifecycle);

/** The NameCheck's `__provider`: one line that `require`s this module for `nameCheckProvider`. */
export const nameCheckProviderText = serializedProvider(moduleSpecifier(__filename), "nameCheckProvider");

export class NameCheck extends DynamicResource {
  /** The digest of the names last checked (and the portal, the root and the rules' edition). */
  declare readonly digest: pulumi.Output<string>;

  /** Checks the names of `tenants` (reduced by namesOf), as the stack file `file` declares them under `rootBusinessUnitId`. */
  constructor(
    name: string,
    args: { file: string; rootBusinessUnitId: number; tenants: TenantsConfig },
    opts?: pulumi.CustomResourceOptions,
  ) {
    const inputs: NameCheckArgs = { file: args.file, rootBusinessUnitId: args.rootBusinessUnitId, tenants: namesOf(args.tenants) };
    super(nameCheckProviderText, name, { ...inputs, digest: undefined }, opts, "backup-portal", "NameCheck");
  }
}
