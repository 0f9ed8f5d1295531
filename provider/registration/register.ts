// Self-registration of an instance as a backup node (`backup-portal register`).
//
//   const result = await registerInstance({ passwordFile: "/etc/backup-portal/node-password" });
//   summarize(result); // "created consumer 12, created node, set node password, activated as WEB01-1A2B3C, wrote /opt/..."
//
// 1. Read the instance metadata (config drive or network) and user data.
// 2. Validate locally: the backup_* keys and the portal credentials; every problem at once.
// 3. Validate on the portal with reads only: the business unit, the names of operating
//    system, node type, domain and client option set, the default backup server.
// 4. Take the lock of the business unit (one run at a time), then find the consumer tagged
//    `instance-uuid:<uuid>` in the business unit.
// 5. Make only the missing changes: consumer, node (or its explicitly requested fields),
//    password (new or not yet activated node, or rotatePassword), activation.
// 6. Write the option file (and the password file) atomically with mode 0600.
// A second run finds everything in place and writes nothing to the portal.
import { MetadataError, MetadataResult, MetadataSource, readInstanceMetadata, ReadMetadataOptions } from "../metadata";
import { PortalClient } from "../portal/client";
import { isNotTheApi, PortalError, redact } from "../portal/errors";
import { isLoginRefused } from "../portal/login";
import { PortalSettings, SettingKey } from "../portal/settings";
import { BackupServer, BusinessUnit, Consumer, Node, NodeFields } from "../portal/types";
import { Named, ReferenceKind, References, UnknownReferenceError } from "../dynamic/references";
import { CredentialSource, resolveCredentials } from "./credentials";
import { DEFAULT_OPTION_FILE, PendingWrite, prepareSecretFile, renderOptionFile, writeSecretFile } from "./files";
import { CONFIG_DRIVE_NOTE, instanceTag, META_KEYS, parseRegistrationMetadata, RegistrationSpec, Requested } from "./keys";
import { acquireLock, defaultLockFile, HeldLock, LockBusyError } from "./lock";
import { generateNodePassword } from "./password";

export type RegistrationErrorKind =
  | "configuration" // metadata keys, credentials, names: fix the configuration, retrying does not help
  | "metadata" // the instance metadata could not be read
  | "portal" // the portal failed or refused a change; a later run continues where this one stopped
  | "files" // a local file could not be written
  | "locked" // another registration held the lock for the whole wait; a later run continues
  | "usage"; // bad options (arguments), e.g. a platform that is not a path segment: fix them, retrying does not help

/** Every failure of {@link registerInstance}; the message names the key or step and the fix, never a password. */
export class RegistrationError extends Error {
  constructor(
    readonly kind: RegistrationErrorKind,
    message: string,
    /** One line per problem (configuration errors list them all). */
    readonly problems: string[] = [],
    /** Portal changes made before the failure. */
    readonly done: string[] = [],
  ) {
    super(message);
    this.name = "RegistrationError";
  }
}

export interface RegisterOptions {
  /** Passed to the metadata reader (`url`, `configDrive`, `discoverConfigDrive`, `timeoutMs`...); user data is always read. */
  metadata?: ReadMetadataOptions;
  /** The environment holding BACKUP_PORTAL_*; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where to write the backup client's options; default DEFAULT_OPTION_FILE; `false`: do not write one. */
  optionFile?: string | false;
  /** Write the node password here (0600) when one is set; without it the password is not kept anywhere. */
  passwordFile?: string;
  /** Set a new node password even when the node is registered already. */
  rotatePassword?: boolean;
  /** Validate and report what would be done; change nothing (and take no lock). */
  dryRun?: boolean;
  /**
   * The lock file that keeps two runs from registering at the same time; default
   * `defaultLockFile(<business unit id>)`: /run/backup-portal-register-bunit-<id>.lock when /run is writable,
   * else the same name in os.tmpdir(). `false`: none, for a caller that runs one registration at a time itself (the
   * registration broker's queue), where a lock left by a killed process would hold up every later run.
   */
  lockFile?: string | false;
  /** How long to wait for another run's lock before failing, ms; default DEFAULT_LOCK_WAIT_MS (120000). */
  lockWaitMs?: number;
  /** CPU count when `backup_cpu_count` is absent; default os.cpus().length. */
  cpuCount?: () => number;
  /** Transport tuning of the portal client: `deadlineMs` from `--portal-timeout`; the rest for tests. */
  portal?: Partial<Pick<PortalSettings, "timeoutMs" | "deadlineMs" | "maxAttempts" | "retryBaseMs" | "retryMaxMs" | "hintContext">>;
  /** One line per step (no secrets). */
  progress?: (line: string) => void;
  /** Details: metadata reader decisions, portal retries (no secrets). */
  log?: (line: string) => void;
  /** The instance's metadata as already read (the registration broker gets it from the instance); then nothing is read. */
  found?: Pick<MetadataResult, "source" | "location" | "metadata" | "disabled">;
  /** The portal client to use (the broker's own account); then no credentials are resolved from env or user data. */
  client?: PortalClient;
  /** The node password to set when one is needed (the instance chose it and keeps it); default a new random one. */
  nodePassword?: string;
}

export interface RegistrationResult {
  /** `registered`: the portal was changed; `unchanged`: it was complete; `planned`: dry run. */
  status: "registered" | "unchanged" | "planned";
  instance: { uuid: string; name: string; source: MetadataSource; location: string };
  businessUnit: { id: number; name?: string };
  /** Absent only in a dry run that would create the consumer. */
  consumerId?: number;
  nodeId?: number;
  /** The node's name: the activated one, or the one it gets. */
  tsmName: string;
  /** Portal changes made (or, in a dry run, planned), in order. */
  actions: string[];
  optionFile?: { path: string; written: boolean };
  passwordFile?: { path: string; written: boolean };
  warnings: string[];
  /** Where each portal setting came from (empty when a client was given). */
  credentialSources: Partial<Record<SettingKey, CredentialSource>>;
  /** Whether a node password was set on the portal by this run. */
  passwordSet: boolean;
  /** The business unit's default backup server, as the option file names it. */
  server?: { name?: string; address?: string; port?: number };
}

interface Resolved {
  bunit: BusinessUnit;
  operatingSystem: Named;
  nodeType: Named;
  domain: Named;
  clientOptionSet: Named;
  server: BackupServer;
}

const KIND_OF: Record<"operatingSystem" | "nodeType" | "domain" | "clientOptionSet", ReferenceKind> = {
  operatingSystem: "operatingSystem",
  nodeType: "type",
  domain: "domain",
  clientOptionSet: "clientOptionSet",
};

/** CONFIG_DRIVE_NOTE when the metadata came from the config drive (a change to it would not show), else "". */
function metadataChangeNote(source: MetadataSource): string {
  return source === "config-drive" ? CONFIG_DRIVE_NOTE : "";
}

function configurationError(problems: string[], source?: MetadataSource): RegistrationError {
  const lines = problems.map((p) => `  - ${p}`).join("\n");
  const note = source && problems.some((p) => /openstack server (un)?set/.test(p)) ? metadataChangeNote(source) : "";
  return new RegistrationError(
    "configuration",
    `cannot register this instance; nothing was changed:\n${lines}${note ? `\nnote: ${note}` : ""}`,
    problems,
  );
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Reads the portal's view of the requested names; answers problems instead of throwing for configuration mistakes. */
async function validateOnPortal(
  client: PortalClient,
  refs: References,
  spec: RegistrationSpec,
  username: string,
  needServerAddress: boolean,
): Promise<{ resolved?: Resolved; problems: string[] }> {
  const problems: string[] = [];
  const bu = spec.businessUnitId;
  let bunit: BusinessUnit | undefined;
  try {
    bunit = await client.businessUnits.get(bu);
  } catch (err) {
    // A URL that is not the API's is a configuration error too; its message says so and names the setting.
    if (isNotTheApi(err)) throw new RegistrationError("configuration", `${client.redact(message(err))}. Nothing was changed.`);
    if (isLoginRefused(err) || (err instanceof PortalError && err.status === 401)) {
      throw new RegistrationError(
        "configuration",
        `the portal at ${client.url} refused the account "${username}": check BACKUP_PORTAL_CLIENT_ID, ` +
          `BACKUP_PORTAL_ORIGIN (it must be the origin registered with the client ID), BACKUP_PORTAL_USERNAME and BACKUP_PORTAL_PASSWORD. Nothing was changed. (${client.redact(message(err))})`,
      );
    }
    if (err instanceof PortalError && (err.status === 404 || err.status === 403)) {
      problems.push(
        `${META_KEYS.businessUnit} ${bu}: ${err.status === 404 ? "the portal has no business unit with this id" : `the account "${username}" may not reach business unit ${bu}`}; ` +
          `use the id of a business unit the account's own business unit contains (\`openstack server set --property ${META_KEYS.businessUnit}=<id> <instance>\`)`,
      );
      return { problems };
    }
    throw err;
  }

  const named = async (field: keyof typeof KIND_OF, req: Requested<string>): Promise<Named | undefined> => {
    try {
      return await refs.resolve(KIND_OF[field], req.value, bu);
    } catch (err) {
      if (!(err instanceof UnknownReferenceError)) throw err;
      const fix = `set it with \`openstack server set --property ${req.key}=<name> <instance>\``;
      problems.push(
        req.explicit
          ? `${req.key}: ${err.message}; ${fix}`
          : `${req.key} is not set and its default ${JSON.stringify(req.value)} is not known to this portal (${err.message}); ${fix}`,
      );
      return undefined;
    }
  };
  const [operatingSystem, nodeType, domain, clientOptionSet, server] = await Promise.all([
    named("operatingSystem", spec.operatingSystem),
    named("nodeType", spec.nodeType),
    named("domain", spec.domain),
    named("clientOptionSet", spec.clientOptionSet),
    client.reference.defaultServer(bu),
  ]);
  if (needServerAddress && (!server.address || !server.name)) {
    problems.push(
      `the default backup server of business unit ${bu} has no ${server.address ? "name" : "address"} on the portal, so no option file can be written; ask the portal operator, or use --no-option-file`,
    );
  }
  if (problems.length || !operatingSystem || !nodeType || !domain || !clientOptionSet) return { problems };
  return { problems, resolved: { bunit, operatingSystem, nodeType, domain, clientOptionSet, server } };
}

function hasTag(c: Consumer, tag: string): boolean {
  return Array.isArray(c.tags) && c.tags.some((t) => typeof t === "string" && t.toLowerCase() === tag);
}

/** The consumer of this instance (and its node), or none. Several tagged consumers: the most complete one wins. */
async function findRegistration(
  client: PortalClient,
  spec: RegistrationSpec,
  warnings: string[],
): Promise<{ consumer?: Consumer; node?: Node }> {
  const bu = spec.businessUnitId;
  const tag = instanceTag(spec.uuid);
  const listed = await client.consumers.list(bu);
  const matches = listed.filter((c) => hasTag(c, tag));
  // Lists may carry incomplete objects: every consumer listed without tags is read in full (whatever its
  // name: the instance may have been renamed since it registered). Bounded by the list's length.
  for (const c of listed.filter((x) => !Array.isArray(x.tags))) {
    const full = await client.consumers.get(bu, c.id);
    if (hasTag(full, tag)) matches.push(full);
  }
  if (matches.length === 0) return {};
  const found: Array<{ consumer: Consumer; node?: Node }> = [];
  for (const consumer of matches) found.push({ consumer, node: await client.nodes.find(bu, consumer.id) });
  const rank = (f: { node?: Node }): number => (f.node?.tsmName ? 0 : f.node ? 1 : 2);
  found.sort((a, b) => rank(a) - rank(b) || a.consumer.id - b.consumer.id);
  if (found.length > 1) {
    warnings.push(
      `consumers ${found.map((f) => f.consumer.id).join(", ")} of business unit ${bu} all carry ${tag}; ` +
        `using ${found[0].consumer.id}: delete the others on the portal`,
    );
  }
  return found[0];
}

/** The metadata's named references: spec and resolved key, the node's field, and how a message names it. */
const REFERENCE_FIELDS = [
  ["operatingSystem", "operatingSystem", "operating system"],
  ["nodeType", "type", "type"],
  ["domain", "domain", "domain"],
  ["clientOptionSet", "clientOptionSet", "client option set"],
] as const;

/** Node fields the metadata asks for explicitly that differ from the node (defaults never change a node). */
function drift(node: Node, spec: RegistrationSpec, r: Resolved): { fields: NodeFields; names: string[] } {
  const fields: NodeFields = {};
  const names: string[] = [];
  for (const [key, field, name] of REFERENCE_FIELDS) {
    if (spec[key].explicit && node[field]?.id !== r[key].id) {
      fields[field] = { id: r[key].id };
      names.push(name);
    }
  }
  if (spec.contact.explicit && spec.contact.value !== undefined && node.contact !== spec.contact.value) {
    fields.contact = spec.contact.value;
    names.push("contact");
  }
  if (spec.cpuCount.explicit && node.cpuCount !== spec.cpuCount.value) {
    fields.cpuCount = spec.cpuCount.value;
    names.push("cpu count");
  }
  return { fields, names };
}

type Found = Pick<MetadataResult, "source" | "location" | "metadata" | "disabled" | "userData"> & Partial<Pick<MetadataResult, "warnings">>;

/**
 * Reads the instance metadata (and user data) for a registration; RegistrationError when it cannot, or when the
 * metadata turns cloud-init's source off (dsmode=disabled).
 */
export async function readForRegistration(
  opts: Pick<RegisterOptions, "metadata" | "log">,
  progress: (line: string) => void,
): Promise<Found> {
  progress("reading instance metadata");
  let found: Found;
  try {
    found = await readInstanceMetadata({ ...opts.metadata, userData: true, log: opts.log ?? opts.metadata?.log });
  } catch (err) {
    // The reader refuses bad options (platform "a/b", attempts 0...) with a RangeError: bad arguments, not a read failure.
    if (err instanceof RangeError) throw new RegistrationError("usage", `bad metadata reader option; nothing was changed: ${message(err)}`);
    const hint =
      err instanceof MetadataError && err.kind === "timeout"
        ? "; not on an instance, or the metadata service is unreachable: try --config-drive or --timeout (see `backup-portal metadata --verbose`)"
        : "";
    throw new RegistrationError("metadata", `cannot read the instance metadata; nothing was changed: ${message(err)}${hint}`);
  }
  const md = found.metadata;
  progress(`instance ${JSON.stringify(md.name)} (${md.uuid}) from ${found.location}`);
  // What the reader passed over without failing (user_data that answered 500, a broken latest): said, not fatal.
  for (const warning of found.warnings ?? []) progress(`warning: ${warning}`);
  if (found.disabled) {
    // cloud-init's off switch for the metadata source: whoever set it does not want the instance configured from it.
    throw configurationError(
      [
        `the instance metadata sets dsmode=disabled, cloud-init's switch that turns this metadata source off, ` +
          `so the instance is not registered from it; to register it, remove the key: openstack server unset --property dsmode <instance>`,
      ],
      found.source,
    );
  }
  return found;
}

/**
 * Makes sure this instance is registered as a backup node; see the file header.
 * Throws RegistrationError; its message never contains a password.
 */
export async function registerInstance(opts: RegisterOptions = {}): Promise<RegistrationResult> {
  const progress = opts.progress ?? (() => undefined);
  const env = opts.env ?? process.env;
  const optionFile = opts.optionFile === false ? undefined : (opts.optionFile ?? DEFAULT_OPTION_FILE);

  if (opts.rotatePassword && !opts.passwordFile && !opts.nodePassword)
    throw new RegistrationError(
      "usage",
      "rotatePassword needs passwordFile: a new node password kept nowhere locks the backup client out; nothing was changed",
    );
  const found: Found = opts.found ? { ...opts.found, userData: null } : await readForRegistration(opts, progress);
  const md = found.metadata;
  const parsed = parseRegistrationMetadata(md, { cpuCount: opts.cpuCount });
  const creds = opts.client ? { problems: [], credentials: undefined } : resolveCredentials(env, found.userData);
  const local = [...parsed.problems.map((p) => p.message), ...creds.problems];
  if (local.length || !parsed.spec || (!creds.credentials && !opts.client)) throw configurationError(local, found.source);
  const spec = parsed.spec;
  const credentials = creds.credentials;
  const warnings: string[] = [];
  if (spec.unknownKeys.length) {
    warnings.push(
      `unknown metadata key${spec.unknownKeys.length > 1 ? "s" : ""} ${spec.unknownKeys.join(", ")} ignored; ` +
        `known keys: ${Object.values(META_KEYS).join(", ")}`,
    );
  }

  const settings: PortalSettings | undefined = credentials ? { ...credentials.settings, ...opts.portal } : undefined;
  const client = opts.client ?? new PortalClient(settings!, { log: opts.log });
  const username = settings?.username ?? "of the registration broker";
  const secrets: string[] = settings ? [settings.password] : [];
  const clean = (text: string): string => client.redact(redact(text, secrets));
  const done: string[] = [];
  let lock: HeldLock | undefined;
  try {
    // One run at a time: two runs that both find no consumer would both create one.
    if (!opts.dryRun && opts.lockFile !== false)
      lock = await takeLock(opts.lockFile ?? defaultLockFile(spec.businessUnitId), opts.lockWaitMs, progress);
    progress(`checking business unit ${spec.businessUnitId} and the requested names on ${client.url}`);
    let check;
    try {
      check = await validateOnPortal(client, new References(client), spec, username, optionFile !== undefined);
    } catch (err) {
      if (err instanceof RegistrationError) throw err;
      throw new RegistrationError("portal", `cannot check the registration on the portal; nothing was changed: ${clean(message(err))}`);
    }
    if (!check.resolved) throw configurationError(check.problems, found.source);
    const r = check.resolved;
    const bu = spec.businessUnitId;

    let existing;
    try {
      existing = await findRegistration(client, spec, warnings);
    } catch (err) {
      throw new RegistrationError("portal", `cannot look up this instance's consumer; nothing was changed: ${clean(message(err))}`);
    }
    let consumer = existing.consumer;
    let node = existing.node;
    progress(
      consumer
        ? `found consumer ${consumer.id}${node ? `, node ${node.tsmName ? `activated as ${node.tsmName}` : "not activated"}` : " without a node"}`
        : `no consumer of business unit ${bu} carries ${instanceTag(spec.uuid)}`,
    );

    if (node?.tsmName && spec.tsmName.explicit && node.tsmName.toUpperCase() !== spec.tsmName.value) {
      warnings.push(
        `the node is activated as ${node.tsmName}; ${spec.tsmName.key} ${spec.tsmName.value} is ignored because a node's name never changes ` +
          `(delete the node on the portal to register under a new name)`,
      );
    }
    if (node?.locked) warnings.push(`node ${node.tsmName ?? node.id} is locked on the backup server; unlock it on the portal`);
    if (node?.decommissioned) warnings.push(`node ${node.tsmName ?? node.id} is decommissioned`);
    const tsmName = node?.tsmName ?? spec.tsmName.value;
    const changes = node ? drift(node, spec, r) : { fields: {}, names: [] };
    const needPassword = !node || !node.tsmName || opts.rotatePassword === true;

    const result: RegistrationResult = {
      status: "unchanged",
      instance: { uuid: md.uuid, name: md.name, source: found.source, location: found.location },
      businessUnit: { id: bu, name: r.bunit.name },
      consumerId: consumer?.id,
      nodeId: node?.id,
      tsmName,
      actions: [],
      warnings,
      credentialSources: credentials?.sources ?? {},
      passwordSet: false,
      server: { name: r.server.name, address: r.server.address, port: r.server.port },
    };

    if (opts.dryRun) {
      const plan: string[] = [];
      if (!consumer) plan.push(`create consumer ${JSON.stringify(spec.consumerName)}`);
      if (!node) plan.push("create node");
      else if (changes.names.length) plan.push(`update node (${changes.names.join(", ")})`);
      if (needPassword) plan.push("set node password");
      if (!node?.tsmName) plan.push(`activate as ${tsmName}`);
      if (optionFile) plan.push(`write ${optionFile}`);
      return { ...result, status: "planned", actions: plan };
    }

    if (!consumer) {
      progress(`creating consumer ${JSON.stringify(spec.consumerName)} in business unit ${bu}`);
      consumer = await client.consumers.create(bu, {
        name: spec.consumerName,
        note: `Registered by the instance itself (backup-portal register), instance ${md.uuid}`,
        tags: [instanceTag(spec.uuid)],
      });
      done.push(`created consumer ${consumer.id}`);
    }
    const consumerId = consumer.id;
    result.consumerId = consumerId;
    if (!node) {
      progress(
        `creating node: ${r.operatingSystem.name}, ${r.nodeType.name}, domain ${r.domain.name}, option set ${r.clientOptionSet.name}, ${spec.cpuCount.value} CPU`,
      );
      node = await client.nodes.create(bu, consumerId, {
        operatingSystem: { id: r.operatingSystem.id },
        type: { id: r.nodeType.id },
        domain: { id: r.domain.id },
        clientOptionSet: { id: r.clientOptionSet.id },
        server: { id: r.server.id },
        cpuCount: spec.cpuCount.value,
        ...(spec.contact.value !== undefined ? { contact: spec.contact.value } : {}),
      });
      done.push("created node");
    } else if (changes.names.length) {
      progress(`updating node: ${changes.names.join(", ")}`);
      // Only the changed keys: `change` keeps the others whether the portal's PUT merges or replaces.
      node = await client.nodes.change(bu, consumerId, changes.fields);
      done.push(`updated node (${changes.names.join(", ")})`);
    }
    result.nodeId = node.id;

    if (needPassword) {
      const password = opts.nodePassword ?? generateNodePassword();
      secrets.push(password);
      // The password file is prepared first and moved in place only once the portal took the password,
      // so neither side ever holds a password the other does not know.
      let pending: PendingWrite | undefined;
      if (opts.passwordFile) {
        try {
          pending = await prepareSecretFile(opts.passwordFile, password);
        } catch (err) {
          throw new RegistrationError(
            "files",
            `cannot write the password file ${opts.passwordFile} (done so far: ${done.join(", ") || "nothing"}): ${clean(message(err))}`,
            [],
            done,
          );
        }
      }
      progress("setting the node password");
      try {
        await client.nodes.setPassword(bu, consumerId, password);
      } catch (err) {
        await pending?.abort();
        throw err;
      }
      try {
        await pending?.commit();
      } catch (err) {
        throw new RegistrationError(
          "files",
          `the node password was set on the portal but the password file ${opts.passwordFile} could not be written ` +
            `(${clean(message(err))}); run \`backup-portal register --rotate-password --password-file ${opts.passwordFile}\` once it can be written`,
          [],
          done,
        );
      }
      result.passwordSet = true;
      done.push(pending ? `set node password (saved to ${pending.path})` : "set node password");
      if (pending) result.passwordFile = { path: pending.path, written: true };
      else if (!opts.nodePassword)
        warnings.push(
          "the node password was set on the portal but kept nowhere (no --password-file): the backup client cannot log in " +
            "until you run again with --rotate-password --password-file <path>",
        );
    }

    if (!node.tsmName) {
      progress(`activating the node as ${tsmName}`);
      try {
        result.tsmName = await client.nodes.activate(bu, consumerId, tsmName);
      } catch (err) {
        if (err instanceof PortalError && err.status === 409) {
          const so = `done so far: ${done.join(", ") || "nothing"}`;
          if (err.code === "TsmNameTaken") {
            // The name may be taken by this very instance: registered meanwhile by another run (without this lock).
            const again = await findRegistration(client, spec, []).catch((e: unknown) => {
              opts.log?.(`looking for this instance's registration again failed: ${clean(message(e))}`);
              return undefined;
            });
            if (again?.consumer && again.consumer.id !== consumerId && again.node?.tsmName?.toUpperCase() === tsmName.toUpperCase()) {
              throw new RegistrationError(
                "portal",
                `cannot activate the node as ${tsmName}: this instance is registered under that name already, ` +
                  `as the node of consumer ${again.consumer.id}, most likely by another \`backup-portal register\` that ran at the same time. ` +
                  `Consumer ${consumerId} of this run is a duplicate: delete it on the portal, then run again with --rotate-password so that the ` +
                  `password file holds the password of node ${tsmName} (${so}).`,
                [],
                done,
              );
            }
          }
          const taken = err.code === "TsmNameTaken" ? `another node is already named ${tsmName}` : "the portal refused the name";
          const note = metadataChangeNote(found.source);
          throw new RegistrationError(
            "portal",
            `cannot activate the node as ${tsmName}: ${taken}; set another name with ` +
              `\`openstack server set --property ${META_KEYS.tsmName}=<name> <instance>\` and run again${note ? ` (${note})` : ""} (${so}). ` +
              `Portal said: ${clean(message(err))}`,
            [],
            done,
          );
        }
        throw err;
      }
      done.push(`activated as ${result.tsmName}`);
    }
    result.actions = [...done];
    result.status = done.length ? "registered" : "unchanged";

    if (optionFile) {
      await writeOptionFile(optionFile, result, progress, clean);
    }
    return result;
  } catch (err) {
    if (err instanceof RegistrationError) {
      if (err.message === clean(err.message)) throw err;
      throw new RegistrationError(err.kind, clean(err.message), err.problems.map(clean), err.done);
    }
    const so = done.length ? `registration stopped after: ${done.join(", ")}` : "registration stopped before any change";
    throw new RegistrationError(
      "portal",
      `${so}: ${clean(message(err))}. Run it again once the cause is fixed: it continues where it stopped.`,
      [],
      done,
    );
  } finally {
    if (!opts.client) client.close();
    lock?.release();
  }
}

/** Writes the backup client's option file of a registered node (result.server, result.tsmName); RegistrationError when it cannot. */
export async function writeOptionFile(
  file: string,
  result: RegistrationResult,
  progress: (line: string) => void,
  clean: (text: string) => string = (t) => t,
): Promise<void> {
  let content: string;
  try {
    content = renderOptionFile({
      serverName: result.server?.name ?? "",
      serverAddress: result.server?.address ?? "",
      serverPort: result.server?.port,
      nodeName: result.tsmName,
      comments: [
        `Backup client options of node ${result.tsmName}, written by \`backup-portal register\`.`,
        `Instance ${result.instance.uuid}, business unit ${result.businessUnit.id}, consumer ${result.consumerId}. Changes are overwritten by the next run.`,
      ],
    });
    result.optionFile = { path: file, written: await writeSecretFile(file, content) };
    progress(`option file ${file}: ${result.optionFile.written ? "written" : "up to date"}`);
  } catch (err) {
    throw new RegistrationError(
      "files",
      `the node is registered as ${result.tsmName} but the option file ${file} could not be written: ${clean(message(err))}`,
      [],
      result.actions,
    );
  }
}

/** The lock, or a RegistrationError that says what holds it and what to remove if it is stale. */
async function takeLock(file: string, waitMs: number | undefined, progress: (line: string) => void): Promise<HeldLock> {
  try {
    return await acquireLock(file, {
      waitMs,
      onWait: (holder) => progress(`waiting for another registration to finish (lock file ${file}${holder ? `, held by ${holder}` : ""})`),
    });
  } catch (err) {
    if (err instanceof LockBusyError) {
      throw new RegistrationError(
        "locked",
        `another registration is running (lock file ${file}${err.holder ? `, held by ${err.holder}` : ""}; ` +
          `waited ${Math.round(err.waitedMs / 1000)} s); nothing was changed. Run again when it has finished; if no other \`backup-portal register\` ` +
          `is running, the lock is stale (left by a run that was killed): remove ${file} and run again`,
      );
    }
    if (err instanceof RangeError) throw new RegistrationError("usage", `${message(err)}; nothing was changed`);
    throw new RegistrationError(
      "files",
      `cannot create the lock file ${file}: ${message(err)}; nothing was changed (give another path with --lock-file)`,
    );
  }
}

/** One line for people: what was done, or that nothing was needed. */
export function summarize(r: RegistrationResult): string {
  const files: string[] = [];
  if (r.optionFile?.written) files.push(`wrote ${r.optionFile.path}`);
  if (r.status === "planned") return `dry run, would: ${r.actions.join(", ") || "nothing"}`;
  if (r.status === "registered") return [...r.actions, ...files].join(", ");
  const what = `already registered as ${r.tsmName} (business unit ${r.businessUnit.id}, consumer ${r.consumerId})`;
  return files.length ? `${what}; ${files.join(", ")}` : `${what}; nothing to do`;
}
