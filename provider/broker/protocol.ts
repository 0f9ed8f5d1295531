// What the registration broker answers on POST /v1/register (server.ts), as the instance reads it (through-broker.ts).
import type { RegistrationResult } from "../registration/register";

export interface BrokerAnswer {
  /** On 200: the registration's result (credentialSources empty: the broker's account is its own). */
  result?: RegistrationResult;
  /** Otherwise: one line (or the registration's own message), never a token or a password. */
  error?: string;
  /** `token` (refused: not retried), `busy`, `internal`, or the RegistrationError kind. */
  kind?: string;
  problems?: string[];
  done?: string[];
}
