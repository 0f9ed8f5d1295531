// A refused login is a configuration error: retrying cannot help, the settings
// must change. The real portal's token endpoint most likely answers as OAuth
// servers do (400 invalid_grant for a wrong username or password, 400
// invalid_client for an unknown client ID); an Origin it does not know, or an
// older portal, may answer 401. Every caller (register, the CLI, the billing
// receiver, the providers) asks this module, not the status.
import { PortalError } from "./errors";
import { HintContext, settingName, STACK_HINTS } from "./hints";
import { maskUrl } from "../http/mask-url";

/** Whether the portal refused the token request itself (not a later call). */
export function isLoginRefused(err: unknown): err is PortalError {
  return err instanceof PortalError && err.loginRefused;
}

/** The settings a refused login points at, for one message: `config key (or ENV)` for the stack, `ENV` for a command. */
export function loginSettings(context: Pick<HintContext, "tool" | "namespace"> = STACK_HINTS): string {
  const keys = ["clientId", "origin", "username", "password"] as const;
  return keys.map((k) => settingName(k, context)).join(", ");
}

/** Which setting the portal's answer points at, when it says: a client ID it does not know, or the account. */
export function refusedSetting(err: PortalError): string {
  if (err.code === "invalid_client") return "the client ID is not known to the portal (or not for this origin)";
  if (err.code === "invalid_grant") return "the username or password is wrong, or the account may not use this client ID";
  if (err.code === "unauthorized_client") return "this client ID may not use this grant";
  return "the portal refused the login";
}

/** One line saying what was refused and what to check. */
export function loginRefusedMessage(err: PortalError, url: string): string {
  return (
    `the portal at ${maskUrl(url)} refused the login (HTTP ${err.status}${err.code ? ` ${err.code}` : ""}): ${refusedSetting(err)}; ` +
    `check ${loginSettings()}; the origin must be the one registered with the client ID`
  );
}
