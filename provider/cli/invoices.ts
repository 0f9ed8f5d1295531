// `backup-portal invoices`: invoices, the contract and invoice files of a business unit, and
// uploading an invoice file.
import * as fs from "fs";
import {
  getContract,
  getInvoice,
  getInvoiceFiles,
  getInvoices,
  invoiceFileProblem,
  MAX_INVOICE_FILE_BYTES,
  uploadInvoiceFile,
} from "../data/billing";
import { InvoiceFile } from "../portal/types";
import {
  CliIo,
  dataCommand,
  formatAmount,
  formatBytes,
  formatJson,
  formatRecord,
  formatTable,
  formatTime,
  latestRows,
  printTable,
  processIo,
  runCommand,
  terminalIo,
  UNIT_OPTIONS,
  UsageError,
} from "./output";
import { Values } from "./args";

export const COMMAND = dataCommand(
  "invoices",
  "--bunit <id> [options]",
  `Invoices of a business unit (oldest first); with --date one invoice, with --files the
uploaded invoice files, with --upload a new invoice file, with --contract the contract.`,
  {
    ...UNIT_OPTIONS,
    from: { ...UNIT_OPTIONS.from, kind: "day", value: "day", description: "first invoice date (YYYY-MM-DD)" },
    to: { ...UNIT_OPTIONS.to, kind: "day", value: "day", description: "last invoice date" },
    date: { kind: "day", value: "day", description: "only the invoice of this date" },
    contract: { kind: "flag", description: "the business unit's contract" },
    files: { kind: "flag", description: "the uploaded invoice files" },
    upload: {
      kind: "string",
      value: "file",
      description: `upload this file (usually a PDF): a regular file, ${MAX_INVOICE_FILE_BYTES / 1024 / 1024} MiB or less`,
    },
    name: { kind: "string", value: "name", description: "with --upload: its name in the portal", default: "the file's name" },
    "erp-reference": { kind: "string", value: "ref", description: "with --upload: ERP code of the invoice" },
    "send-to-billing-address": { kind: "flag", description: "with --upload: have the portal send it to the billing address" },
    "raw-upload": {
      kind: "flag",
      description:
        "with --upload: send the file as the raw body with an X-File-Name header, not as multipart/form-data (as ASP.NET uploads usually are)",
    },
  },
);

function fileRows(files: InvoiceFile[]): Array<Array<string | number | undefined>> {
  return files.map((f) => [
    f.id,
    f.fileName,
    formatBytes(f.size),
    f.erpReference,
    f.sendToBillingAddress ? "yes" : "no",
    formatTime(f.uploadedDate),
  ]);
}
const FILE_COLUMNS = [
  { header: "ID", align: "right" as const },
  "NAME",
  { header: "SIZE", align: "right" as const },
  "ERP REFERENCE",
  "SENT",
  "UPLOADED",
];

/** The file to upload and its name in the portal, checked before any request (and before reading a byte). */
function checkUpload(file: string, name: string | undefined): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (err) {
    throw new UsageError(
      `--upload ${JSON.stringify(file)}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (err as Error).message}`,
    );
  }
  const problem = invoiceFileProblem(st);
  if (problem) throw new UsageError(`--upload ${JSON.stringify(file)} ${problem}`);
  // No separator of either kind (a name with one is not its own basename, on any platform), no `.` or `..`.
  if (name !== undefined && (/[\\/]/.test(name) || name === "." || name === ".."))
    throw new UsageError(`--name needs a plain file name (no directory), got ${JSON.stringify(name)}`);
}

export function run(argv: string[], given: CliIo = processIo): Promise<number> {
  const io = terminalIo(given);
  return runCommand(
    COMMAND,
    argv,
    io,
    async ({ client, options: o }) => {
      const b = o.bunit as number;

      if (o.contract) {
        const contract = await getContract(client, b);
        io.out(
          o.json
            ? formatJson(contract)
            : formatRecord([
                ["id", contract.id],
                ["name", contract.name],
                ["start", formatTime(contract.startDate)],
                ["currency", contract.currency],
              ]),
        );
        return 0;
      }
      if (o.files) {
        const files = latestRows(await getInvoiceFiles(client, b), o.limit);
        if (o.json) io.out(formatJson(files));
        else printTable(io, FILE_COLUMNS, fileRows(files), "no invoice files");
        return 0;
      }
      if (typeof o.upload === "string") {
        const stored = await uploadInvoiceFile(client, b, {
          path: o.upload,
          fileName: o.name as string | undefined,
          erpReference: o["erp-reference"] as string | undefined,
          sendToBillingAddress: o["send-to-billing-address"] === true,
          form: o["raw-upload"] === true ? "raw" : "multipart",
        });
        io.out(o.json ? formatJson(stored) : formatTable(FILE_COLUMNS, fileRows([stored])));
        return 0;
      }
      const invoices =
        typeof o.date === "string"
          ? [await getInvoice(client, b, o.date)]
          : latestRows(await getInvoices(client, b, { from: o.from as string | undefined, to: o.to as string | undefined }), o.limit);
      if (o.json) {
        io.out(formatJson(typeof o.date === "string" ? invoices[0] : invoices));
        return 0;
      }
      printTable(
        io,
        ["DATE", { header: "ID", align: "right" }, { header: "AMOUNT", align: "right" }, "CURRENCY"],
        invoices.map((i) => [i.date, i.id, formatAmount(i.amount), i.currency]),
        "no invoices",
      );
      return 0;
    },
    check,
  );
}

/** One mode at a time; the upload's options only with --upload, and its file checked. */
function check(o: Values): void {
  // Flags without a --no- form: given is true, absent is undefined.
  const modes = ["date", "contract", "files", "upload"].filter((k) => o[k] !== undefined);
  if (modes.length > 1) throw new UsageError(`--${modes.join(", --")} exclude each other`);
  if (
    o.upload === undefined &&
    (o.name !== undefined ||
      o["erp-reference"] !== undefined ||
      o["send-to-billing-address"] !== undefined ||
      o["raw-upload"] !== undefined)
  ) {
    throw new UsageError("--name, --erp-reference, --send-to-billing-address and --raw-upload go with --upload");
  }
  if (typeof o.upload === "string") checkUpload(o.upload, o.name as string | undefined);
}
