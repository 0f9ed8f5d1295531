// Where spec 000 is silent or says two things, a real portal may answer either
// way. Each reading is an emulator mode (a flag of `npm run emulator`), so the
// client and `backup-portal doctor` are tested against every one of them.

/** Which audit log filter spelling the portal honours (the spec's table: startTime/endTime; its prose: startDate/endDate). */
export type AuditDates = "time" | "date" | "both";
/**
 * Where the job list is: "first" at `.../jobs/first?startTime&endTime` only (spec 000's table), "jobs" at
 * `.../jobs` only (`jobs/first` then answers the first job whatever the query), "both".
 */
export type JobsList = "first" | "jobs" | "both";
/** `GET .../node/spname`: the bare name (what the published Go client relies on) or a JSON string. */
export type SpnameAnswer = "bare" | "json";
/** `DELETE .../node`: 200 with the deleted node (what the Go client decodes), 200 with no body, or 204. */
export type NodeDeleteAnswer = "node" | "empty" | "204";

/**
 * The refresh grant: "allowed" as each client ID says (the seed's `emulator` allows it, `norefresh` does not),
 * "refused" (a refresh_token is issued but every refresh grant is 400 invalid_grant, as a portal that does not
 * honour its refresh tokens), "none" (no client ID gets a refresh_token; the grant is 400 unauthorized_client).
 */
export type RefreshGrant = "allowed" | "refused" | "none";
/**
 * The reads the published Go client (cloutility-api-client 3a29ec8) makes that spec 000 does not list:
 * `GET /v1/bunits?bunitID=` (cloutility/businessunit.go, GetBusinessUnit) and `GET /v1/actions`,
 * `/v1/actions/{id}` (cloutility/action.go). "served" answers them, as the real portal evidently does (the
 * client is used against it); "absent" answers 404, as a portal that keeps to the spec.
 */
export type GoClientReads = "served" | "absent";

export interface Readings {
  /** PUT replaces the settable fields (absent ones cleared) instead of merging the ones present. */
  putReplaces: boolean;
  auditDates: AuditDates;
  jobsList: JobsList;
  spname: SpnameAnswer;
  nodeDelete: NodeDeleteAnswer;
  refresh: RefreshGrant;
  goClientReads: GoClientReads;
}

export const DEFAULT_READINGS: Readings = {
  putReplaces: false,
  auditDates: "both",
  jobsList: "both",
  spname: "bare",
  nodeDelete: "node",
  refresh: "allowed",
  goClientReads: "served",
};

/** The values each enumerated reading may take, for the command line and option checks. */
export const READING_VALUES = {
  auditDates: ["time", "date", "both"],
  jobsList: ["first", "jobs", "both"],
  spname: ["bare", "json"],
  nodeDelete: ["node", "empty", "204"],
  refresh: ["allowed", "refused", "none"],
  goClientReads: ["served", "absent"],
} as const satisfies Record<Exclude<keyof Readings, "putReplaces">, readonly string[]>;

/** The readings of the given options, defaults filled in; throws on a value a reading cannot take. */
export function readingsOf(opts: Partial<Readings>): Readings {
  const out: Readings = { ...DEFAULT_READINGS };
  for (const [key, value] of Object.entries(opts) as Array<[keyof Readings, unknown]>) {
    if (value === undefined) continue;
    if (key === "putReplaces") {
      out.putReplaces = value === true;
      continue;
    }
    const allowed = READING_VALUES[key] as readonly string[];
    if (!allowed.includes(String(value))) throw new Error(`${key} must be one of ${allowed.join(", ")}, got ${JSON.stringify(value)}`);
    (out as unknown as Record<string, unknown>)[key] = value;
  }
  return out;
}
