// The registration broker: registers instances that present a one-time token for their own business unit, so
// that no portal credential reaches an instance's user data. See docs/security.md and docs/registration.md.
export {
  mintRegistrationToken,
  verifyRegistrationToken,
  TokenRefused,
  TokenClaims,
  TokenRefusal,
  MAX_TOKEN_TTL_SECONDS,
  MIN_SECRET_BYTES,
  CLOCK_SKEW_SECONDS,
} from "./token";
export { TokenLedger, LedgerEntry, LedgerFileError } from "./ledger";
export { startRegistrationBroker, BrokerOptions, BrokerHandle, REGISTER_PATH, HEALTH_PATH, MAX_PENDING } from "./server";
export type { BrokerAnswer } from "./protocol";
export {
  RegistrationBroker,
  RegistrationBrokerArgs,
  RegistrationBrokerConfigError,
  registrationBrokerProblems,
  REGISTRATION_BROKER_TYPE,
  DEFAULT_BROKER_PORT,
  LEDGER_FILE,
} from "./component";
