// Self-registration of instances for backup: `backup-portal register` on the
// instance (registerInstance) and, for Pulumi programs, the cloud-init user
// data that runs it at first boot (registrationUserData). See docs/registration.md.
export { registerInstance, summarize, RegisterOptions, RegistrationError, RegistrationErrorKind, RegistrationResult } from "./register";
export {
  META_KEYS,
  REGISTRATION_DEFAULTS,
  INSTANCE_TAG_PREFIX,
  instanceTag,
  deriveTsmName,
  uuidSuffix,
  consumerNameFor,
  parseRegistrationMetadata,
  RegistrationSpec,
  Requested,
  KeyProblem,
  CONFIG_DRIVE_NOTE,
} from "./keys";
export { credentialsFromUserData, resolveCredentials, USER_DATA_KEY, CredentialSource, ResolvedCredentials } from "./credentials";
export { generateNodePassword, NODE_PASSWORD_ALPHABET, NODE_PASSWORD_LENGTH } from "./password";
export { acquireLock, defaultLockDir, defaultLockFile, DEFAULT_LOCK_WAIT_MS, HeldLock, LockBusyError, releaseHeldLocks } from "./lock";
export { DEFAULT_OPTION_FILE, renderOptionFile, writeSecretFile, prepareSecretFile, OptionFileValues, PendingWrite } from "./files";
export {
  registrationUserData,
  renderRegistrationUserData,
  renderEnvFile,
  shellQuote,
  RegistrationUserDataArgs,
  RegistrationUserDataOptions,
  PortalAccount,
  DEFAULT_ENV_FILE,
  DEFAULT_PASSWORD_FILE,
  DEFAULT_TOKEN_FILE,
  DEFAULT_SCRIPT_FILE,
  defaultPackageSpec,
  REGISTER_ATTEMPTS,
  BrokerAccess,
} from "./user-data";
export {
  renderBootScript,
  tarballIntegrity,
  isPinnedSpec,
  DEFAULT_NODE_BUILD,
  NODE_MIN_MAJOR,
  BOOT_DRY_RUN_ENV,
  BootScriptOptions,
  NodeBuild,
} from "./boot-script";
// The token the user data carries in broker mode (minted by the stack with the broker's secret).
export { mintRegistrationToken, MAX_TOKEN_TTL_SECONDS } from "../broker/token";
export { registerThroughBroker, BrokerRegisterOptions } from "./through-broker";
