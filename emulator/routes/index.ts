// All /v1 routes of the portal.
import { Router } from "../router";
import * as session from "./session";
import * as reference from "./reference";
import * as bunits from "./bunits";
import * as consumers from "./consumers";
import * as nodes from "./nodes";
import * as auditlogs from "./auditlogs";
import * as reports from "./reports";
import * as jobs from "./jobs";
import * as billing from "./billing";

export function portalRouter(): Router {
  const r = new Router();
  for (const area of [session, reference, bunits, consumers, nodes, auditlogs, reports, jobs, billing]) area.register(r);
  return r;
}
