/**
 * Finding tags: `[REDACTED:<kind>:<tag>]` where the tag is the first 4 hex
 * digits of HMAC-SHA256(key, secret).
 *
 * Why keyed: a plain hash of a low-entropy password lets anyone holding the
 * trace confirm a guess offline. With a random per-data-dir key the tag is
 * stable across every hook process writing the same store (so the same secret
 * gets the same tag within and across traces), yet reveals nothing without
 * the key file. 16 bits also leaves too few bits to test guesses against
 * even if the key leaked: many candidates share each tag.
 */
import { chmodSync, closeSync, linkSync, mkdirSync, openSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { readBounded } from "../fs/safe-open.ts";

// Never a FIFO, a device or a symlink, and never more than a key's worth of bytes.
const readKeyFile = (path: string) => readBounded(path, 4096, { noFollow: true });

export type FingerprintKey = Uint8Array | string | (() => Uint8Array | string);

/**
 * A tagger: secret text -> 4 hex digits, cached per secret.
 *
 * @example
 * ```ts
 * const tag = makeTagger("k");
 * tag("hunter2") === tag("hunter2"); // true
 * ```
 */
export function makeTagger(key: FingerprintKey | undefined): (secret: string) => string {
  const keyOf = lazyKey(key);
  const cache = new Map<string, string>();
  let cachedChars = 0;
  let keyed: Bun.CryptoHasher | undefined;
  // Bun writes a digest only into 64 bytes or more, whatever the algorithm.
  const digestOut = new Uint8Array(64);
  return (secret: string): string => {
    const hit = cache.get(secret);
    if (hit !== undefined) return hit;
    // The keyed state is set up once and copied per tag (re-keying an HMAC hashes two blocks), and
    // the digest lands in a kept buffer: a 5 MB output holds thousands of finds, each tagged.
    (keyed ??= new Bun.CryptoHasher("sha256", keyOf())).copy().update(secret).digest(digestOut);
    const t = HEX_BYTE[digestOut[0]!]! + HEX_BYTE[digestOut[1]!]!;
    // Bounded by what it holds, not by a count: a record is tagged twice (each find as it is
    // registered, then as it is rendered), and a count below its number of secrets (a 5 MB output
    // holds thousands) emptied the cache between the two, so every tag was computed twice.
    if (secret.length <= TAG_CACHE_LONGEST) {
      if (cachedChars + secret.length > TAG_CACHE_CHARS) {
        cache.clear();
        cachedChars = 0;
      }
      cache.set(secret, t);
      cachedChars += secret.length;
    }
    return t;
  };
}

/**
 * The key, resolved on first use (a loader reads or creates the key file, so a
 * record with no finding costs no I/O); a loader that throws leaves the
 * per-process key.
 *
 * @example
 * ```ts
 * const k = lazyKey(() => "from-file");
 * k() === k(); // true, and the loader ran once
 * ```
 */
export function lazyKey(key: FingerprintKey | undefined): () => Uint8Array | string {
  let resolved: Uint8Array | string | undefined;
  return () => {
    if (resolved === undefined) {
      try {
        resolved = typeof key === "function" ? key() : (key ?? processKey());
      } catch {
        resolved = processKey();
      }
    }
    return resolved;
  };
}

/**
 * Two hex digits per byte value: a tag is the first two bytes of the keyed digest. A plain loop:
 * `Array.from` with `toString(16).padStart` cost every process about a millisecond at load, most of
 * it the first call of each builtin.
 */
const HEX_BYTE: string[] = [];
for (let b = 0; b < 256; b++) HEX_BYTE.push("0123456789abcdef"[b >> 4]! + "0123456789abcdef"[b & 15]!);

/** The tag cache's bound, in characters of the secrets it keeps (8 MB), and the longest secret it keeps. */
const TAG_CACHE_CHARS = 1 << 22;
const TAG_CACHE_LONGEST = 4096;

/**
 * HMAC-SHA256 (hex) of `data` under `key`: the digest to keep of anything that
 * may hold a secret. A plain sha256 of it lets whoever holds the trace test
 * guesses at the secret offline; this one, only whoever holds the key.
 *
 * Bun's native hasher, not node:crypto: it is ~5x cheaper per call than
 * createHmac (thousands of findings in a 5 MB payload), and importing
 * node:crypto costs a hook 20-35 ms of start-up.
 *
 * @example
 * ```ts
 * keyedDigest("k", "hunter2").length; // 64
 * ```
 */
export function keyedDigest(key: Uint8Array | string, data: string | Uint8Array): string {
  return new Bun.CryptoHasher("sha256", key).update(data).digest("hex");
}

function randomBytes(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n));
}

let procKey: Uint8Array | undefined;
/** A random key for this process only: the fallback when no key file is usable. */
function processKey(): Uint8Array {
  procKey ??= randomBytes(32);
  return procKey;
}

/** File name of the fingerprint key inside the data dir. */
export const KEY_FILE = "redact.key";

/**
 * Reads the data dir's fingerprint key, creating it (32 random bytes, mode
 * 0600, written whole and then linked in, so concurrent hooks agree on one
 * key) when missing.
 * Falls back to a per-process key if the dir is unusable: tags then stay
 * stable only within the process, which never blocks a write.
 *
 * @example
 * ```ts
 * const key = loadFingerprintKey("/tmp/tg");
 * createRedactor({ fingerprintKey: key });
 * ```
 */
export function loadFingerprintKey(dir: string): Uint8Array {
  const path = join(dir, KEY_FILE);
  try {
    const k = readKeyFile(path);
    if (k.length >= 16) return k;
  } catch {
    // missing: create below
  }
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const fresh = randomBytes(32);
    let published: boolean;
    try {
      published = publishKey(dir, path, fresh);
    } catch {
      // No hard links on this filesystem: create it in place, the one way left.
      published = createKeyFile(path, fresh);
    }
    if (published) return fresh;
  } catch {
    // the dir is unusable: one more read below
  }
  // Lost the race: the winner's key is whole, since a key is linked in only once written.
  try {
    const k = readKeyFile(path);
    if (k.length >= 16) return k;
  } catch {
    // fall through
  }
  return processKey();
}

/**
 * Creates `path` holding `key`, mode 0600 ("wx": it fails if the path exists,
 * a symlink included). Where the key is read, this is the way for a filesystem
 * without links (one creator wins); elsewhere it writes the file that
 * publishKey links in.
 */
function createKeyFile(path: string, key: Uint8Array): true {
  const fd = openSync(path, "wx", 0o600);
  try {
    writeSync(fd, key);
  } finally {
    closeSync(fd);
  }
  try {
    chmodSync(path, 0o600);
  } catch {
    // best effort on filesystems without modes
  }
  return true;
}

/**
 * Writes `key` to a file of its own, then links it in as `path`: true when
 * this process's key is the one in place, false when another got there first.
 * Created in place instead (open "wx", then write), a key could be read while
 * empty by a hook started the same instant, which then tagged with a key of
 * its own: two parallel tool calls on a fresh data dir gave one secret two tags.
 */
function publishKey(dir: string, path: string, key: Uint8Array): boolean {
  const tmp = join(dir, `${KEY_FILE}.${process.pid}.${Buffer.from(randomBytes(6)).toString("hex")}`);
  try {
    createKeyFile(tmp, key);
    try {
      linkSync(tmp, path);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw e;
    }
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
  }
}
