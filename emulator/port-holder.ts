// What holds a loopback port the emulator was to listen on, said in one line with what to do: a portal emulator
// already running (GET /_emulator/process names its pid and data file), or another program. `npm run emulator`
// says it when the port is taken; `npm run local` (scripts/local-up.sh) asks before it builds anything:
//   ts-node emulator/port-holder.ts <port> <command>   exit 0 when the port is free, else the line and exit 1
const HOST = "127.0.0.1";

export interface PortHolder {
  /** e.g. `a portal emulator already running (pid 4242, data file .emulator-data/portal.json)`. */
  text: string;
  pid?: number;
}

/** Whether `err` is a refused connection (nothing listens), through fetch's `cause`. */
const refused = (err: unknown): boolean => (err as { cause?: { code?: string } })?.cause?.code === "ECONNREFUSED";

/** Whether 127.0.0.1:`port` answers GET /_emulator/requests with a list, as every emulator does. */
async function answersAsEmulator(port: number, timeoutMs: number): Promise<boolean> {
  try {
    const answer = await fetch(`http://${HOST}:${port}/_emulator/requests`, { signal: AbortSignal.timeout(timeoutMs) });
    return answer.ok && Array.isArray(await answer.json());
  } catch {
    return false;
  }
}

/** What listens on 127.0.0.1:`port`, asked for at most `timeoutMs`; undefined when nothing does. */
export async function portHolder(port: number, timeoutMs = 2000): Promise<PortHolder | undefined> {
  let answer: Response;
  try {
    answer = await fetch(`http://${HOST}:${port}/_emulator/process`, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    if (refused(err)) return undefined;
    return { text: "another program (it does not answer HTTP as the portal emulator does)" };
  }
  const body = (await answer.json().catch(() => undefined)) as { pid?: unknown; dataFile?: unknown } | undefined;
  if (!answer.ok || typeof body?.pid !== "number") {
    // An emulator from before GET /_emulator/process still answers its request log.
    if (await answersAsEmulator(port, timeoutMs))
      return { text: "a portal emulator already running (an older one: it does not say its pid)" };
    return { text: "another program (it does not answer GET /_emulator/process as the portal emulator does)" };
  }
  const data = typeof body.dataFile === "string" ? `, data file ${body.dataFile}` : "";
  return { text: `a portal emulator already running (pid ${body.pid}${data})`, pid: body.pid };
}

/** The line: where, what holds it, and to stop it (by its pid when known), then `then`. */
export function portInUseLine(port: number, holder: PortHolder, then: string): string {
  return `${HOST}:${port} is in use by ${holder.text}: stop it${holder.pid !== undefined ? ` (kill ${holder.pid})` : ""}${then}`;
}

async function main(argv: string[]): Promise<number> {
  const [port, command] = [Number(argv[0]), argv[1]];
  if (!Number.isInteger(port) || !command) {
    console.error("usage: ts-node emulator/port-holder.ts <port> <command>");
    return 2;
  }
  const holder = await portHolder(port);
  if (!holder) return 0;
  console.error(`${command}: ${portInUseLine(port, holder, `, then run ${command} again (it starts its own emulator on that port)`)}`);
  return 1;
}

if (require.main === module) void main(process.argv.slice(2)).then((code) => (process.exitCode = code));
