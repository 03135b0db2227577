/**
 * Reading single objects out of git packfiles: look the id up in the pack's
 * `.idx` (version 2, or the old version 1), read just that entry from the
 * `.pack` with positioned reads, inflate it and apply its
 * delta chain (OFS_DELTA inside the pack, REF_DELTA by id through the caller).
 *
 * Why this exists instead of isomorphic-git's pack reader: the diff needs a
 * few dozen objects out of packs holding tens of thousands, and
 * isomorphic-git's first packed read parses the whole index into a Map and
 * loads the whole pack into memory, inflating with pako in JavaScript.
 * Measured on the 10,000-file bench repo (bench/diff, 2-core machine, load
 * 2-5): importing isomorphic-git cost 40-90 ms and its first packed read
 * 45-80 ms, against 80-210 ms for git's whole `add -A` + `diff --cached`;
 * `tracegate diff` took 4.0-4.4x git's time. Here a lookup is a binary
 * search in the index bytes (read once, never parsed) and a read is one or
 * two `readSync` calls at an offset, so the cost follows the objects read,
 * not the size of the pack, and isomorphic-git is not loaded at all. With
 * this reader (and refs.ts, and the other start-up savings listed in
 * bench/diff/README.md) the same bench measured 2.2-2.5x at 10,000 files and
 * 1.8-2.2x at 100,000, in the same alternating runs as the old build. Anything this reader does not handle is reported as a
 * PackFormatError and the object store falls back to isomorphic-git.
 *
 * Format: https://git-scm.com/docs/pack-format
 *
 * @example
 * ```ts
 * const pack = openPack("/repo/.git/objects/pack/pack-1234.idx");
 * const at = pack?.index.find(Buffer.from(oid, "hex"));
 * if (pack && at !== undefined) pack.read(at, (base) => store.readSync(base)); // { type: "blob", data }
 * ```
 */
import fs from "node:fs";
import { openRegular, readBounded } from "../fs/safe-open.ts";
import { GIT_LIMITS, MAX_OBJECT_BYTES } from "./limits.ts";

export type ObjectType = "commit" | "tree" | "blob" | "tag";

export interface GitObject {
  readonly type: ObjectType;
  readonly data: Buffer;
}

/** Something in a pack or its index this reader does not understand. */
export class PackFormatError extends Error {
  override name = "PackFormatError";
}

/**
 * An object whose inflated size is over what its header declares or over
 * MAX_OBJECT_BYTES: an inflate bomb, or a blob too large to diff. Never
 * retried through isomorphic-git, which would inflate it whole.
 */
/**
 * An object no other reader should be asked for: isomorphic-git would read
 * the same bytes, and inflate a bomb whole.
 */
export class FinalObjectError extends PackFormatError {
  override name = "FinalObjectError";
}

export class ObjectTooLargeError extends FinalObjectError {
  override name = "ObjectTooLargeError";
}

// Deflate cannot do better than about 1032:1, so an input this much smaller
// than the bound cannot inflate past it.
const DEFLATE_MAX_RATIO = 1032;

let zlib: typeof import("node:zlib") | undefined;
function nodeZlib(): typeof import("node:zlib") {
  // Loaded only for inputs that could inflate past their bound (see inflate).
  zlib ??= require("node:zlib") as typeof import("node:zlib");
  return zlib;
}

/**
 * Inflate a zlib stream (header and adler32 checked; bytes after its end are
 * ignored) to at most `maxBytes`, or null when it is corrupt or cut short.
 * Throws ObjectTooLargeError past `maxBytes`. Bun's zlib binding when the
 * input is too small to pass the bound (Bun's takes no output limit);
 * node:zlib with `maxOutputLength` otherwise: loading node:zlib and its
 * stream classes costs about 20 ms, measured, which is a tenth of git's whole
 * diff at 10,000 files, so small objects never pay it.
 *
 * @example
 * ```ts
 * import { inflate } from "./pack.ts";
 * import { deflateSync } from "node:zlib";
 * inflate(deflateSync(Buffer.from("blob 2\0hi")))?.toString(); // "blob 2\0hi"
 * ```
 */
export function inflate(z: Uint8Array, maxBytes: number = MAX_OBJECT_BYTES): Buffer | null {
  if (z.length * DEFLATE_MAX_RATIO + 64 <= maxBytes) {
    try {
      const out = Bun.inflateSync(z as Uint8Array<ArrayBuffer>, { windowBits: 15, library: "zlib" });
      return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
    } catch {
      return null;
    }
  }
  try {
    return nodeZlib().inflateSync(z, { maxOutputLength: Math.max(1, maxBytes) });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw new ObjectTooLargeError(`object inflates past ${maxBytes} bytes`);
    return null;
  }
}

/**
 * The first bytes of a zlib stream, inflated as far as `z` goes: enough to
 * read a loose object's `type size\0` header without inflating the body.
 */
export function inflateHead(z: Uint8Array, maxBytes = 64): Buffer | null {
  try {
    const { inflateSync, constants } = nodeZlib();
    // 512 bytes hold the header even behind a dynamic Huffman table, and cannot inflate past the bound.
    const input = z.subarray(0, Math.min(z.length, 512));
    return inflateSync(input, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: input.length * DEFLATE_MAX_RATIO + 1024 }).subarray(0, maxBytes);
  } catch {
    return null;
  }
}

const TYPES: readonly (ObjectType | undefined)[] = [undefined, "commit", "tree", "blob", "tag"];
const OFS_DELTA = 6;
const REF_DELTA = 7;

/**
 * A pack index held as its raw bytes: lookups binary-search the sorted id
 * table in place, so opening a 100,000-object index costs one file read.
 */
export class PackIndex {
  readonly count: number;
  private readonly version: 1 | 2;
  private readonly ids: number;
  private readonly offsets32: number;
  private readonly offsets64: number;

  constructor(private readonly buf: Buffer) {
    const v2 = buf.length >= 8 && buf.readUInt32BE(0) === 0xff744f63;
    if (v2 && buf.readUInt32BE(4) !== 2) throw new PackFormatError(`pack index version ${buf.readUInt32BE(4)}`);
    this.version = v2 ? 2 : 1;
    const fanout = v2 ? 8 : 0;
    if (buf.length < fanout + 1024) throw new PackFormatError("truncated pack index");
    this.count = buf.readUInt32BE(fanout + 255 * 4);
    if (v2) {
      this.ids = fanout + 1024;
      this.offsets32 = this.ids + this.count * 24; // after ids (20) and CRCs (4)
      this.offsets64 = this.offsets32 + this.count * 4;
      if (buf.length < this.offsets64 + 40) throw new PackFormatError("truncated pack index");
    } else {
      this.ids = 1024 + 4; // v1 entries are `offset(4) id(20)`; ids start 4 bytes in
      this.offsets32 = 1024;
      this.offsets64 = 0;
      if (buf.length < 1024 + this.count * 24 + 40) throw new PackFormatError("truncated pack index");
    }
  }

  private stride(): number {
    return this.version === 2 ? 20 : 24;
  }

  private idAt(i: number): number {
    return this.ids + i * this.stride();
  }

  private range(first: number): [number, number] {
    const fanout = this.version === 2 ? 8 : 0;
    const lo = first === 0 ? 0 : this.buf.readUInt32BE(fanout + (first - 1) * 4);
    return [lo, this.buf.readUInt32BE(fanout + first * 4)];
  }

  /** The pack offset of the object with this 20-byte id, or undefined. */
  find(id: Uint8Array): number | undefined {
    let [lo, hi] = this.range(id[0]!);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.idAt(mid);
      const c = this.buf.compare(id, 0, 20, at, at + 20);
      if (c === 0) return this.offsetAt(mid);
      if (c > 0) hi = mid;
      else lo = mid + 1;
    }
    return undefined;
  }

  /** Ids (hex) starting with an even- or odd-length hex prefix, at most `limit` of them. */
  withPrefix(prefix: string, limit = 2): string[] {
    const even = prefix.length & ~1;
    const head = Buffer.from(prefix.slice(0, even), "hex");
    if (head.length === 0) return []; // callers pass at least 4 hex digits
    let [lo, hi] = this.range(head[0]!);
    // Lower bound of `head` in [lo, hi).
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.idAt(mid);
      // buf.compare(target, ...) orders the index's bytes against `head`.
      if (this.buf.compare(head, 0, head.length, at, at + head.length) < 0) lo = mid + 1;
      else hi = mid;
    }
    const out: string[] = [];
    for (let i = lo; i < this.count && out.length < limit; i++) {
      const at = this.idAt(i);
      const hex = this.buf.toString("hex", at, at + 20);
      if (!hex.startsWith(prefix)) {
        if (this.buf.compare(head, 0, head.length, at, at + head.length) !== 0) break;
        continue;
      }
      out.push(hex);
    }
    return out;
  }

  private offsetAt(i: number): number {
    if (this.version === 1) return this.buf.readUInt32BE(1024 + i * 24);
    const small = this.buf.readUInt32BE(this.offsets32 + i * 4);
    if (!(small & 0x80000000)) return small;
    // MSB set: the low 31 bits index the table of 64-bit offsets (packs over 2 GiB).
    const at = this.offsets64 + (small & 0x7fffffff) * 8;
    if (at + 8 > this.buf.length - 40) throw new PackFormatError("pack index: bad 64-bit offset");
    return this.buf.readUInt32BE(at) * 0x100000000 + this.buf.readUInt32BE(at + 4);
  }
}

/** Apply a git delta (`src-size dst-size` then copy/insert ops) to its base. */
export function applyDelta(base: Uint8Array, delta: Uint8Array): Buffer {
  let pos = 0;
  const varint = (): number => {
    let n = 0;
    let mul = 1;
    let c: number;
    do {
      if (pos >= delta.length) throw new PackFormatError("truncated delta");
      c = delta[pos++]!;
      n += (c & 0x7f) * mul;
      mul *= 128;
    } while (c & 0x80);
    return n;
  };
  if (varint() !== base.length) throw new PackFormatError("delta base size mismatch");
  const size = varint();
  if (size > MAX_OBJECT_BYTES) throw new ObjectTooLargeError(`delta result of ${size} bytes`);
  const out = Buffer.allocUnsafe(size);
  let o = 0;
  while (pos < delta.length) {
    const op = delta[pos++]!;
    if (op & 0x80) {
      // Copy from the base: which offset and size bytes follow is in the op's low bits.
      let off = 0;
      let len = 0;
      if (op & 0x01) off = delta[pos++]!;
      if (op & 0x02) off |= delta[pos++]! << 8;
      if (op & 0x04) off |= delta[pos++]! << 16;
      if (op & 0x08) off += delta[pos++]! * 0x1000000;
      if (op & 0x10) len = delta[pos++]!;
      if (op & 0x20) len |= delta[pos++]! << 8;
      if (op & 0x40) len |= delta[pos++]! << 16;
      if (len === 0) len = 0x10000;
      if (pos > delta.length || off + len > base.length || o + len > size) throw new PackFormatError("bad delta copy");
      out.set(base.subarray(off, off + len), o);
      o += len;
    } else if (op !== 0) {
      if (pos + op > delta.length || o + op > size) throw new PackFormatError("bad delta insert");
      out.set(delta.subarray(pos, pos + op), o);
      pos += op;
      o += op;
    } else throw new PackFormatError("delta opcode 0");
  }
  if (o !== size) throw new PackFormatError("delta result size mismatch");
  return out;
}

interface EntryHead {
  readonly kind: number;
  readonly size: number;
  /** Where the zlib stream starts. */
  readonly dataAt: number;
  readonly baseOffset?: number;
  readonly baseId?: Buffer;
}

const SCRATCH = Buffer.allocUnsafe(4096);

/** Resolved delta bases kept per pack, oldest dropped first past this many bytes. */
const BASE_CACHE_BYTES = 16 << 20;
const MAX_CHAIN = 10000;

/** One pack: its index plus positioned reads from the `.pack` file. */
export class Pack {
  private fd: number | null = null;
  private readonly cache = new Map<number, GitObject>();
  private cacheBytes = 0;

  constructor(
    readonly index: PackIndex,
    private readonly packFile: string,
  ) {}

  private open(): number {
    if (this.fd !== null) return this.fd;
    const { fd } = openRegular(this.packFile);
    try {
      const head = Buffer.alloc(12);
      fs.readSync(fd, head, 0, 12, 0);
      if (head.toString("latin1", 0, 4) !== "PACK") throw new PackFormatError(`${this.packFile}: not a pack`);
      const v = head.readUInt32BE(4);
      if (v !== 2 && v !== 3) throw new PackFormatError(`${this.packFile}: pack version ${v}`);
      this.end = fs.fstatSync(fd).size - 20;
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
    this.fd = fd;
    return fd;
  }

  /** Where the entries end: the 20-byte checksum follows. */
  private end = 0;

  /** Release the file descriptor; a later read reopens it. */
  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  private readBytes(at: number, len: number, into?: Buffer): Buffer {
    const fd = this.open();
    const n = Math.max(0, Math.min(len, this.end - at, into ? into.length : len));
    const buf = into ?? Buffer.allocUnsafe(n);
    let got = 0;
    while (got < n) {
      const r = fs.readSync(fd, buf, got, n - got, at + got);
      if (r === 0) break;
      got += r;
    }
    return got === buf.length ? buf : buf.subarray(0, got);
  }

  private head(at: number, chunk: Buffer): EntryHead {
    let p = 0;
    let c = chunk[p++]!;
    const kind = (c >> 4) & 7;
    let size = c & 15;
    let mul = 16;
    while (c & 0x80) {
      c = chunk[p++]!;
      size += (c & 0x7f) * mul;
      mul *= 128;
    }
    if (kind === OFS_DELTA) {
      c = chunk[p++]!;
      let rel = c & 0x7f;
      while (c & 0x80) {
        c = chunk[p++]!;
        rel = (rel + 1) * 128 + (c & 0x7f);
      }
      if (rel <= 0 || rel > at) throw new PackFormatError("bad OFS_DELTA base offset");
      return { kind, size, dataAt: at + p, baseOffset: at - rel };
    }
    if (kind === REF_DELTA) {
      const baseId = Buffer.from(chunk.subarray(p, p + 20));
      return { kind, size, dataAt: at + p + 20, baseId };
    }
    if (!TYPES[kind]) throw new PackFormatError(`pack entry type ${kind}`);
    return { kind, size, dataAt: at + p };
  }

  /**
   * The zlib stream at `head.dataAt` inflated. Its compressed length is not
   * stored, so read what deflate's worst case needs (the inflated size plus
   * a little), and more only if that was not the whole stream; a stream
   * still failing at twice its inflated size is corrupt.
   */
  private inflate(h: EntryHead, first: Buffer, firstAt: number): Buffer {
    if (h.size > MAX_OBJECT_BYTES) throw new ObjectTooLargeError(`pack entry of ${h.size} bytes`);
    const cap = h.size * 2 + 1024;
    let want = h.size + (h.size >> 6) + 64;
    let input = first.subarray(h.dataAt - firstAt);
    for (;;) {
      if (input.length < want) input = this.readBytes(h.dataAt, want);
      // Never past the size the entry header declares.
      const out = inflate(input, h.size);
      if (out && out.length === h.size) return out;
      if (h.dataAt + input.length >= this.end || want >= cap) {
        throw new PackFormatError(out ? "pack entry size mismatch" : "corrupt pack entry");
      }
      want = Math.min(cap, want * 2);
    }
  }

  private entry(at: number): { h: EntryHead; data: Buffer } {
    // One read covers the header and, for most objects, the whole stream. Into
    // a reused buffer: nothing read here outlives the call (inflate copies out).
    const first = this.readBytes(at, SCRATCH.length, SCRATCH);
    if (first.length < 2) throw new PackFormatError("pack entry past the end");
    const h = this.head(at, first);
    return { h, data: this.inflate(h, first, at) };
  }

  private remember(at: number, obj: GitObject): void {
    if (obj.data.length > BASE_CACHE_BYTES / 4) return;
    this.cache.set(at, obj);
    this.cacheBytes += obj.data.length;
    for (const [k, v] of this.cache) {
      if (this.cacheBytes <= BASE_CACHE_BYTES) break;
      this.cache.delete(k);
      this.cacheBytes -= v.data.length;
    }
  }

  /**
   * The object at pack offset `at`, its delta chain applied. `byId` finds a
   * REF_DELTA base anywhere in the repository.
   */
  read(at: number, byId: (id: Buffer) => GitObject | null): GitObject {
    const deltas: Buffer[] = [];
    const offsets: number[] = [];
    let base: GitObject | undefined;
    for (let step = 0; base === undefined; step++) {
      if (step > MAX_CHAIN) throw new PackFormatError("delta chain too long");
      const cached = this.cache.get(at);
      if (cached) {
        base = cached;
        break;
      }
      const { h, data } = this.entry(at);
      if (h.kind === OFS_DELTA) {
        deltas.push(data);
        offsets.push(at);
        at = h.baseOffset!;
      } else if (h.kind === REF_DELTA) {
        deltas.push(data);
        offsets.push(at);
        const found = byId(h.baseId!);
        if (!found) throw new PackFormatError(`REF_DELTA base ${h.baseId!.toString("hex")} not found`);
        base = found;
      } else base = { type: TYPES[h.kind]!, data };
    }
    // Apply from the base up; every intermediate result may be a base again.
    for (let i = deltas.length - 1; i >= 0; i--) {
      base = { type: base.type, data: applyDelta(base.data, deltas[i]!) };
      if (i > 0) this.remember(offsets[i]!, base);
    }
    return base;
  }
}

/**
 * The pack belonging to an `.idx` file, or null when the `.pack` is gone
 * (a concurrent gc) or the index is unreadable.
 */
export function openPack(idxFile: string): Pack | null {
  const packFile = `${idxFile.slice(0, -4)}.pack`;
  try {
    if (!fs.existsSync(packFile)) return null;
    return new Pack(new PackIndex(readBounded(idxFile, GIT_LIMITS.packIndex)), packFile);
  } catch (e) {
    if (e instanceof PackFormatError) throw e;
    return null;
  }
}
