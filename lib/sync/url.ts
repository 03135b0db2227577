/**
 * Store URLs: `file:///abs/dir` (the embedded store, a directory laid out
 * exactly like the bucket) and `s3://bucket[/prefix]`.
 */
export type StoreUrl =
  | { readonly kind: "file"; readonly root: string; readonly prefix: string; readonly url: string }
  | { readonly kind: "s3"; readonly bucket: string; readonly prefix: string; readonly url: string };

/** A URL the user gave that is not a store URL; the message says what is accepted. */
export class StoreUrlError extends Error {}

/**
 * Parse a store URL. The prefix never has leading or trailing slashes.
 *
 * @example
 * ```ts
 * parseStoreUrl("s3://traces/acme"); // { kind: "s3", bucket: "traces", prefix: "acme", ... }
 * parseStoreUrl("file:///srv/traces"); // { kind: "file", root: "/srv/traces", prefix: "", ... }
 * ```
 */
export function parseStoreUrl(url: string): StoreUrl {
  const usage = "use file:///absolute/dir or s3://bucket[/prefix]";
  if (url.startsWith("file://")) {
    let path: string;
    try {
      path = decodeURIComponent(new URL(url).pathname);
    } catch {
      throw new StoreUrlError(`not a valid file URL: ${url} (${usage})`);
    }
    if (!url.startsWith("file:///") || !path.startsWith("/")) throw new StoreUrlError(`a file store needs an absolute path: ${url} (${usage})`);
    const root = path.replace(/\/+$/, "") || "/";
    return { kind: "file", root, prefix: "", url: `file://${root}` };
  }
  const m = /^s3:\/\/([^/?#]+)\/?([^?#]*)$/.exec(url);
  if (m) {
    const bucket = m[1]!;
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new StoreUrlError(`not a valid bucket name: "${bucket}"`);
    const prefix = m[2]!.replace(/^\/+|\/+$/g, "").replace(/\/{2,}/g, "/");
    if (prefix.split("/").some((p) => p === "." || p === "..")) throw new StoreUrlError(`"." and ".." are not allowed in a prefix: ${url}`);
    return { kind: "s3", bucket, prefix, url: `s3://${bucket}${prefix ? `/${prefix}` : ""}` };
  }
  throw new StoreUrlError(`unsupported store URL "${url}" (${usage})`);
}
