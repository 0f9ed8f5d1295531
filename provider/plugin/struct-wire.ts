/**
 * `google.protobuf.Struct` fields written and read directly on the protobuf wire, as the Go engine's
 * protobuf-go marshals them (sdk/go/common/resource/plugin/rpc.go, MarshalProperties → structpb), instead
 * of through google-protobuf's JavaScript classes: those build a message object per value and encode
 * strings one byte at a time into a JS array, which made them the largest single cost of every Check and
 * Diff (docs/benchmark.md). The plugin reads and writes its property maps with it (message-codec.ts), and
 * the engine stand-in its side of the same messages (test/engine/messages.ts). The bytes are the same wire
 * format; test/plugin/struct-wire.test.ts holds it to google-protobuf's, byte for byte, both ways.
 *
 * Struct  { map<string, Value> fields = 1 }            an entry: { string key = 1; Value value = 2 }
 * Value   { oneof kind: null_value = 1 (enum), number_value = 2 (double), string_value = 3,
 *           bool_value = 4, struct_value = 5 (Struct), list_value = 6 (ListValue) }
 * ListValue { repeated Value values = 1 }
 */

/** A JavaScript value a Struct can hold: null, boolean, finite number, string, array, plain object. */
export type StructValue = null | boolean | number | string | StructValue[] | { [key: string]: StructValue };
export type StructMap = Record<string, unknown>;

const LEN = 2; // wire type: length-delimited
const VARINT = 0;
const FIXED64 = 1;
const FIXED32 = 5;

function varintSize(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5;
}

/**
 * Sizes first, bytes second: the size pass records, in the order the write pass needs them, the length of
 * every string and every nested message (a length prefix comes before its content).
 */
class Sizer {
  readonly lens: number[] = [];

  /** Bytes of a Value message holding `v`. */
  value(v: unknown): number {
    if (v === null) return 2;
    switch (typeof v) {
      case "number":
        return 9;
      case "boolean":
        return 2;
      case "string": {
        const n = Buffer.byteLength(v);
        this.lens.push(n);
        return 1 + varintSize(n) + n;
      }
      case "object":
        break;
      default:
        // google-protobuf refuses these too (Struct.fromJavaScript: "Unexpected struct type").
        throw new Error(`struct-wire: a Struct cannot hold ${typeof v}`);
    }
    const n = Array.isArray(v) ? this.list(v) : this.struct(v as StructMap);
    return 1 + varintSize(n) + n;
  }

  /** Bytes of a Struct message. */
  struct(m: StructMap): number {
    const at = this.lens.push(0) - 1;
    let total = 0;
    for (const key of Object.keys(m)) {
      const entryAt = this.lens.push(0) - 1;
      const k = Buffer.byteLength(key);
      this.lens.push(k);
      const v = this.value(m[key]);
      const entry = 1 + varintSize(k) + k + 1 + varintSize(v) + v;
      this.lens[entryAt] = entry;
      total += 1 + varintSize(entry) + entry;
    }
    this.lens[at] = total;
    return total;
  }

  /** Bytes of a ListValue message. */
  list(a: unknown[]): number {
    const at = this.lens.push(0) - 1;
    let total = 0;
    for (const x of a) {
      const v = this.value(x);
      total += 1 + varintSize(v) + v;
    }
    this.lens[at] = total;
    return total;
  }
}

class Writer {
  private pos = 0;
  private next = 0;

  constructor(
    private readonly buf: Buffer,
    private readonly lens: number[],
  ) {}

  private byte(b: number): void {
    this.buf[this.pos++] = b;
  }

  private varint(n: number): void {
    while (n >= 0x80) {
      this.buf[this.pos++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    this.buf[this.pos++] = n;
  }

  private string(field: number, s: string): void {
    const n = this.lens[this.next++];
    this.byte((field << 3) | LEN);
    this.varint(n);
    this.pos += this.buf.write(s, this.pos, n, "utf8");
  }

  value(v: unknown): void {
    if (v === null) {
      this.byte((1 << 3) | VARINT);
      this.byte(0);
      return;
    }
    switch (typeof v) {
      case "number":
        this.byte((2 << 3) | FIXED64);
        this.pos = this.buf.writeDoubleLE(v, this.pos);
        return;
      case "boolean":
        this.byte((4 << 3) | VARINT);
        this.byte(v ? 1 : 0);
        return;
      case "string":
        this.string(3, v);
        return;
    }
    if (Array.isArray(v)) {
      this.byte((6 << 3) | LEN);
      this.list(v);
    } else {
      this.byte((5 << 3) | LEN);
      this.struct(v as StructMap);
    }
  }

  /** A Struct message, its length first. */
  struct(m: StructMap): void {
    this.varint(this.lens[this.next++]);
    for (const key of Object.keys(m)) {
      this.byte((1 << 3) | LEN);
      this.varint(this.lens[this.next++]);
      this.string(1, key);
      // The Value's length is not recorded: it follows from its content, so it is sized again here.
      this.byte((2 << 3) | LEN);
      this.varint(this.valueLength(m[key]));
      this.value(m[key]);
    }
  }

  private list(a: unknown[]): void {
    this.varint(this.lens[this.next++]);
    for (const x of a) {
      this.byte((1 << 3) | LEN);
      this.varint(this.valueLength(x));
      this.value(x);
    }
  }

  /** The length of the Value message about to be written, from the lengths the size pass recorded. */
  private valueLength(v: unknown): number {
    if (v === null || typeof v === "boolean") return 2;
    if (typeof v === "number") return 9;
    const n = this.lens[this.next];
    return 1 + varintSize(n) + n;
  }

  tag(field: number): void {
    this.byte((field << 3) | LEN);
  }

  get length(): number {
    return this.pos;
  }
}

/**
 * A message's bytes with Struct fields added after them. A protobuf parser accepts fields in any order,
 * so `base` holds the message's other fields, serialized by its generated class. An undefined map is left
 * out (the field is absent); an empty one is sent as an empty Struct, as the engine sends `olds: {}`.
 * Values must already be in wire form (values.ts, toWireMap): no undefined, no non-finite number.
 */
export function withStructFields(base: Uint8Array, fields: Array<[number, StructMap | undefined]>): Buffer {
  const sizer = new Sizer();
  let size = base.length;
  for (const [, m] of fields) {
    if (!m) continue;
    const n = sizer.struct(m);
    size += 1 + varintSize(n) + n;
  }
  const buf = Buffer.allocUnsafe(size);
  buf.set(base, 0);
  const w = new Writer(buf.subarray(base.length), sizer.lens);
  for (const [field, m] of fields) {
    if (!m) continue;
    w.tag(field);
    w.struct(m);
  }
  if (base.length + w.length !== size) throw new Error(`struct-wire: wrote ${base.length + w.length} bytes, sized ${size}`);
  return buf;
}

/** One Struct message on its own (tests, and Struct-typed payloads). */
export function encodeStruct(m: StructMap): Buffer {
  const sizer = new Sizer();
  sizer.struct(m);
  const buf = Buffer.allocUnsafe(sizer.lens[0] + varintSize(sizer.lens[0]));
  const w = new Writer(buf, sizer.lens);
  w.struct(m);
  // The Writer wrote the Struct's length prefix too: drop it.
  return buf.subarray(varintSize(sizer.lens[0]));
}

class Reader {
  pos: number;

  constructor(
    private readonly buf: Buffer,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  varint(): number {
    let n = 0;
    let shift = 0;
    for (;;) {
      if (this.pos >= this.end) throw new Error("struct-wire: truncated varint");
      const b = this.buf[this.pos++];
      // Lengths and tags fit in 32 bits; a longer varint (an int64 field we skip) is read to its end.
      if (shift < 28) n |= (b & 0x7f) << shift;
      else if (shift === 28) n += (b & 0x0f) * 2 ** 28;
      if (b < 0x80) return n;
      shift += 7;
    }
  }

  /** The end of a length-delimited field that starts here. */
  delimited(): number {
    const n = this.varint();
    const end = this.pos + n;
    if (end > this.end) throw new Error("struct-wire: a field runs past its message");
    return end;
  }

  skip(wireType: number): void {
    if (wireType === VARINT) this.varint();
    else if (wireType === FIXED64) this.pos += 8;
    else if (wireType === LEN) this.pos = this.delimited();
    else if (wireType === FIXED32) this.pos += 4;
    else throw new Error(`struct-wire: wire type ${wireType} is not supported`);
  }

  string(end: number): string {
    const s = this.buf.toString("utf8", this.pos, end);
    this.pos = end;
    return s;
  }

  struct(end: number): StructMap {
    const out: StructMap = {};
    while (this.pos < end) {
      const tag = this.varint();
      if (tag !== ((1 << 3) | LEN)) {
        this.skip(tag & 7);
        continue;
      }
      const entryEnd = this.delimited();
      let key = "";
      let value: StructValue | undefined;
      while (this.pos < entryEnd) {
        const t = this.varint();
        if (t === ((1 << 3) | LEN)) key = this.string(this.delimited());
        else if (t === ((2 << 3) | LEN)) value = this.value(this.delimited());
        else this.skip(t & 7);
      }
      // A map entry without a value holds the Value's default, which has no kind: google-protobuf throws too.
      if (value === undefined) throw new Error(`struct-wire: the field ${JSON.stringify(key)} has no value`);
      out[key] = value;
    }
    return out;
  }

  value(end: number): StructValue {
    let v: StructValue | undefined;
    while (this.pos < end) {
      const tag = this.varint();
      switch (tag) {
        case (1 << 3) | VARINT:
          this.varint();
          v = null;
          break;
        case (2 << 3) | FIXED64:
          v = this.buf.readDoubleLE(this.pos);
          this.pos += 8;
          break;
        case (3 << 3) | LEN:
          v = this.string(this.delimited());
          break;
        case (4 << 3) | VARINT:
          v = this.varint() !== 0;
          break;
        case (5 << 3) | LEN:
          v = this.struct(this.delimited()) as { [key: string]: StructValue };
          break;
        case (6 << 3) | LEN: {
          const listEnd = this.delimited();
          const list: StructValue[] = [];
          while (this.pos < listEnd) {
            const t = this.varint();
            if (t === ((1 << 3) | LEN)) list.push(this.value(this.delimited()));
            else this.skip(t & 7);
          }
          v = list;
          break;
        }
        default:
          this.skip(tag & 7);
      }
    }
    if (v === undefined) throw new Error("struct-wire: a Value without a kind");
    return v;
  }
}

/** One Struct message to a plain object, as google-protobuf's `Struct.toJavaScript()` gives it. */
export function decodeStruct(bytes: Uint8Array): StructMap {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  return new Reader(buf).struct(buf.length);
}

/**
 * Splits a message: its Struct fields (by field number) decoded here, its other fields' bytes left for the
 * generated class to read. A Struct field that occurs twice is merged, as protobuf merges messages.
 */
export function splitStructFields(bytes: Uint8Array, fields: number[]): { rest: Buffer; structs: Map<number, StructMap> } {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const r = new Reader(buf);
  const structs = new Map<number, StructMap>();
  const kept: Buffer[] = [];
  let keptFrom = 0;
  while (r.pos < buf.length) {
    const start = r.pos;
    const tag = r.varint();
    const field = tag >>> 3;
    if ((tag & 7) === LEN && fields.includes(field)) {
      const end = r.delimited();
      structs.set(field, { ...structs.get(field), ...r.struct(end) });
      kept.push(buf.subarray(keptFrom, start));
      keptFrom = end;
    } else r.skip(tag & 7);
  }
  kept.push(buf.subarray(keptFrom));
  return { rest: kept.length === 1 ? kept[0] : Buffer.concat(kept), structs };
}
