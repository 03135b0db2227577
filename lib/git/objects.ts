/**
 * A repository's object database: loose objects (one zlib file each), packs
 * (lib/git/pack.ts) and the object directories named in
 * `objects/info/alternates` (what `git clone --shared` leaves behind).
 *
 * Reads are synchronous and touch only the objects asked for; see pack.ts
 * for why this does not go through isomorphic-git. isomorphic-git stays as
 * the fallback: an object this reader cannot decode (a pack feature it does
 * not know) is asked of isomorphic-git before the read fails.
 *
 * @example
 * ```ts
 * const store = new ObjectStore("/repo/.git/objects");
 * const { type, data } = await store.read("3b18e512dba79e4c8300dd08aeb37f8e728b8dad"); // "blob", <Buffer ...>
 * ```
 */
import fs from "node:fs";
import path from "node:path";
import { FinalObjectError, type GitObject, inflate, inflateHead, type ObjectType, ObjectTooLargeError, openPack, type Pack, PackFormatError } from "./pack.ts";
import { MAX_OBJECT_BYTES } from "./limits.ts";
import { readBounded, readTextBounded } from "../fs/safe-open.ts";
import { GIT_LIMITS } from "./limits.ts";
import { isomorphicGit } from "../runtime/third-party.ts";

export type { GitObject, ObjectType } from "./pack.ts";

/** An object id that is in none of the repository's object directories. */
export class MissingObjectError extends Error {
  override name = "MissingObjectError";
  constructor(readonly oid: string) {
    super(`object ${oid} not found`);
  }
}

const HEX40 = /^[0-9a-f]{40}$/;

/** The object directories to search: this one, then its alternates (recursively, as git does). */
function objectDirs(dir: string, seen = new Set<string>()): string[] {
  const real = path.resolve(dir);
  if (seen.has(real) || seen.size > 5) return [];
  seen.add(real);
  const out = [real];
  let text = "";
  try {
    text = readTextBounded(path.join(real, "info", "alternates"), GIT_LIMITS.smallFile);
  } catch {
    return out;
  }
  for (const line of text.split("\n")) {
    const l = line.trim();
    if (l === "" || l.startsWith("#")) continue;
    out.push(...objectDirs(path.resolve(real, l), seen));
  }
  return out;
}

function parseLoose(oid: string, raw: Buffer): GitObject {
  const nul = raw.indexOf(0);
  const [type, size] = raw.toString("latin1", 0, nul < 0 ? 0 : nul).split(" ");
  if (nul < 0 || !["commit", "tree", "blob", "tag"].includes(type!) || Number(size) !== raw.length - nul - 1) {
    throw new FinalObjectError(`loose object ${oid}: bad header`);
  }
  return { type: type as ObjectType, data: raw.subarray(nul + 1) };
}

/**
 * How far a loose object may inflate: its header's size plus the header,
 * never more than MAX_OBJECT_BYTES. Small files cannot inflate far and skip
 * the header peek.
 */
function looseBound(oid: string, raw: Buffer): number {
  if (raw.length * 1032 + 64 <= MAX_OBJECT_BYTES) return MAX_OBJECT_BYTES;
  const head = inflateHead(raw);
  const nul = head ? head.indexOf(0) : -1;
  const size = nul < 0 ? NaN : Number(head!.toString("latin1", 0, nul).split(" ")[1]);
  if (!Number.isSafeInteger(size)) throw new FinalObjectError(`loose object ${oid}: bad header`);
  if (size > MAX_OBJECT_BYTES) throw new ObjectTooLargeError(`loose object ${oid} declares ${size} bytes`);
  return size + nul + 1;
}

/** The object store of one repository. */
export class ObjectStore {
  private dirsCache: string[] | null = null;
  private packs: Pack[] | null = null;
  /** How many reads had to go to isomorphic-git (for tests: 0 means this reader did the work). */
  fallbacks = 0;

  /** `objectsDir` is the common git dir's `objects`. */
  constructor(private readonly objectsDir: string) {}

  /** Found on first use: a store made only to read refs touches no file. */
  private get dirs(): string[] {
    return (this.dirsCache ??= objectDirs(this.objectsDir));
  }

  private loadPacks(): Pack[] {
    const packs: Pack[] = [];
    for (const dir of this.dirs) {
      const packDir = path.join(dir, "pack");
      let names: string[];
      try {
        names = fs.readdirSync(packDir);
      } catch {
        continue;
      }
      for (const name of names.sort()) {
        if (!name.endsWith(".idx")) continue;
        const pack = openPack(path.join(packDir, name));
        if (pack) packs.push(pack);
      }
    }
    return packs;
  }

  private fromPacks(id: Buffer): GitObject | null {
    this.packs ??= this.loadPacks();
    for (const pack of this.packs) {
      const at = pack.index.find(id);
      if (at !== undefined) return pack.read(at, (base) => this.byId(base));
    }
    return null;
  }

  private loose(oid: string): GitObject | null {
    for (const dir of this.dirs) {
      let raw: Buffer;
      try {
        raw = readBounded(path.join(dir, oid.slice(0, 2), oid.slice(2)), GIT_LIMITS.object);
      } catch {
        continue;
      }
      const inflated = inflate(raw, looseBound(oid, raw));
      if (!inflated) throw new FinalObjectError(`loose object ${oid}: corrupt`);
      return parseLoose(oid, inflated);
    }
    return null;
  }

  private byId(id: Buffer): GitObject | null {
    const oid = id.toString("hex");
    return this.fromPacks(id) ?? this.loose(oid);
  }

  /**
   * The object, read by this module only; null when absent. Throws
   * PackFormatError (or a zlib error) on data it cannot decode.
   *
   * @example
   * ```ts
   * store.readSync(oid)?.type; // "tree"
   * ```
   */
  readSync(oid: string): GitObject | null {
    if (!HEX40.test(oid)) return null;
    const found = this.byId(Buffer.from(oid, "hex"));
    if (found) return found;
    // A pack written since the list was taken (a concurrent gc or fetch).
    this.close();
    this.packs = this.loadPacks();
    return this.byId(Buffer.from(oid, "hex"));
  }

  /**
   * The object, falling back to isomorphic-git when this reader fails to
   * decode it. Throws MissingObjectError when no reader finds it.
   *
   * @example
   * ```ts
   * (await store.read(treeOid)).type; // "tree"
   * ```
   */
  async read(oid: string): Promise<GitObject> {
    let failure: unknown;
    try {
      const obj = this.readSync(oid);
      if (obj) return obj;
    } catch (e) {
      failure = e;
    }
    if (failure === undefined) throw new MissingObjectError(oid);
    // isomorphic-git reads loose objects the same way and would inflate a bomb whole: never ask it.
    if (failure instanceof FinalObjectError) throw failure;
    this.fallbacks++;
    try {
      // Loaded only here: isomorphic-git costs tens of milliseconds to import.
      const git = await isomorphicGit();
      const gitdir = path.dirname(this.objectsDir);
      const { boundedFs } = await import("./safe-fs.ts");
      const r = await git.readObject({ fs: boundedFs, gitdir, oid, format: "content" });
      return { type: r.type as ObjectType, data: Buffer.from(r.object as Uint8Array) };
    } catch {
      throw failure;
    }
  }

  /**
   * Full ids starting with a hex prefix (at least 4 digits), at most `limit`
   * of them: two are enough to tell an ambiguous prefix.
   *
   * @example
   * ```ts
   * store.expand("3b18e5"); // ["3b18e512dba79e4c8300dd08aeb37f8e728b8dad"]
   * ```
   */
  expand(prefix: string, limit = 2): string[] {
    const p = prefix.toLowerCase();
    if (!/^[0-9a-f]{4,40}$/.test(p)) return [];
    const found = new Set<string>();
    this.packs ??= this.loadPacks();
    for (const pack of this.packs) for (const oid of pack.index.withPrefix(p, limit)) found.add(oid);
    for (const dir of this.dirs) {
      let names: string[];
      try {
        names = fs.readdirSync(path.join(dir, p.slice(0, 2)));
      } catch {
        continue;
      }
      for (const n of names) if ((p.slice(0, 2) + n).startsWith(p) && n.length === 38) found.add(p.slice(0, 2) + n);
    }
    return [...found].sort().slice(0, limit);
  }

  /** Close pack file descriptors; the store stays usable. */
  close(): void {
    for (const p of this.packs ?? []) p.close();
  }
}
