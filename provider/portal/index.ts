// The Backup Portal API client, usable without Pulumi.
export { PortalClient, ClientOptions } from "./client";
export { PortalError, isNotFound } from "./errors";
export { PortalSettings, resolveSettings, SETTING_SOURCES } from "./settings";
export { tsmNameProblem, TSM_NAME_PATTERN, proxyPeers } from "./nodes";
export { invoiceDate, InvoiceUpload, UploadForm } from "./billing";
export { JobsPath } from "./activity";
export { AuditLogQuery, JobQuery, ReportQuery } from "./activity";
export { ConsumerDeletion } from "./consumers";
export * from "./types";
