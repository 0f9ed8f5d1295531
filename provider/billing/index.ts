// Billing data: the notification receiver, its files and its Kubernetes deployment.
export * from "./receiver";
export * from "./files";
export * from "./component";
export { parseArgs as parseReceiverArgs, receiverClient, SECRET_ENV, USAGE as RECEIVER_USAGE } from "./main";
export * from "./args-table";
