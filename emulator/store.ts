// The data model in memory, and its persistence: with a data file, the state
// is loaded at start (when the file exists) and written atomically (temp file
// in the same directory, fsync, rename) after every change.
import * as fs from "node:fs";
import * as path from "node:path";
import type { State } from "./types";
import { seedState } from "./seed";
import { randomToken } from "./util";

export class Store {
  state: State;
  private dirty = false;

  private constructor(
    state: State,
    readonly dataFile?: string,
  ) {
    this.state = state;
  }

  /** Loads `dataFile` when it exists, else seeds (and writes the seed when a file is given). */
  static open(dataFile?: string): Store {
    if (dataFile && fs.existsSync(dataFile)) {
      const text = fs.readFileSync(dataFile, "utf8");
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (err) {
        throw new Error(`emulator data file ${dataFile} is not valid JSON: ${(err as Error).message}`);
      }
      const state = parsed as State;
      if (typeof parsed !== "object" || parsed === null || state.schemaVersion !== 1 || !Array.isArray(state.businessUnits)) {
        throw new Error(`emulator data file ${dataFile} is not an emulator state (schemaVersion 1)`);
      }
      return new Store(state, dataFile);
    }
    const store = new Store(seedState(), dataFile);
    store.changed();
    store.flush();
    return store;
  }

  nextId(kind: string): number {
    const id = this.state.nextIds[kind] ?? 1;
    this.state.nextIds[kind] = id + 1;
    this.dirty = true;
    return id;
  }

  /** Marks the state as changed; `flush()` writes it. */
  changed(): void {
    this.dirty = true;
  }

  /** Writes the state when it changed since the last write (no-op without a data file). */
  flush(): void {
    if (!this.dirty) return;
    this.dirty = false;
    if (!this.dataFile) return;
    writeAtomically(this.dataFile, JSON.stringify(this.state, null, 1));
  }

  reset(): void {
    this.state = seedState();
    this.changed();
    this.flush();
  }

  /** A deep copy, safe to hand out. */
  snapshot(): State {
    return structuredClone(this.state);
  }
}

export function writeAtomically(file: string, content: string): void {
  const dir = path.dirname(path.resolve(file));
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomToken(6)}.tmp`);
  try {
    const fd = fs.openSync(tmp, "w", 0o600);
    try {
      fs.writeSync(fd, content);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (err) {
    // A full disk or a failed rename: the old file stays as it was, and no half-written temp file is left.
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  // Make the rename itself durable where the platform allows syncing a directory.
  try {
    const dfd = fs.openSync(dir, "r");
    try {
      fs.fsyncSync(dfd);
    } finally {
      fs.closeSync(dfd);
    }
  } catch {
    /* not supported here (e.g. Windows); the file itself is synced */
  }
}
