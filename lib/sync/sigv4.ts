/**
 * AWS Signature Version 4 for S3, with node:crypto only. Bun's S3 client
 * cannot send `If-None-Match` (its options have no such field and
 * `fetch("s3://...")` drops custom headers), so every sync request is a
 * signed plain `fetch`: the conditional header is signed too, which real AWS
 * requires of it.
 */
import { nodeCrypto } from "../runtime/builtins.ts";
import type { S3Settings } from "./aws.ts";

const sha256hex = (data: string | Uint8Array) => nodeCrypto().createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Uint8Array, data: string) => nodeCrypto().createHmac("sha256", key).update(data).digest();

/** RFC 3986 encoding as SigV4 wants it. */
export const uriEncode = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export interface SignedRequest {
  readonly url: string;
  readonly headers: Record<string, string>;
}

/**
 * Sign one request. `path` is the object path inside the bucket ("" for the
 * bucket itself); `bodySha256` is the hex sha256 of the body.
 *
 * @example
 * ```ts
 * const { url, headers } = signS3(settings, "PUT", "traces", "a/b.jsonl", {}, { "if-none-match": "*" }, sha);
 * await fetch(url, { method: "PUT", headers, body });
 * ```
 */
export function signS3(
  s: S3Settings,
  method: string,
  bucket: string,
  key: string,
  query: Record<string, string>,
  extraHeaders: Record<string, string>,
  bodySha256: string,
  now: Date = new Date(),
): SignedRequest {
  const base = new URL(s.endpoint);
  const host = s.pathStyle ? base.host : `${bucket}.${base.host}`;
  const encodedKey = key.split("/").map(uriEncode).join("/");
  const path = s.pathStyle ? `/${bucket}${key ? `/${encodedKey}` : "/"}` : `/${encodedKey}`;
  const amzDate = now.toISOString().replace(/[:-]|\.\d{3}/g, "");
  const day = amzDate.slice(0, 8);
  const canonicalQuery = Object.keys(query)
    .sort()
    .map((k) => `${uriEncode(k)}=${uriEncode(query[k]!)}`)
    .join("&");
  const headers: Record<string, string> = { host, "x-amz-date": amzDate, "x-amz-content-sha256": bodySha256 };
  if (s.sessionToken) headers["x-amz-security-token"] = s.sessionToken;
  for (const [k, v] of Object.entries(extraHeaders)) headers[k.toLowerCase()] = v;
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((k) => `${k}:${headers[k]!.trim()}\n`).join("");
  const signed = names.join(";");
  const canonical = [method, path, canonicalQuery, canonicalHeaders, signed, bodySha256].join("\n");
  const scope = `${day}/${s.region}/s3/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256hex(canonical)].join("\n");
  let k: Buffer = hmac(`AWS4${s.secretAccessKey}`, day);
  for (const part of [s.region, "s3", "aws4_request"]) k = hmac(k, part);
  const signature = nodeCrypto().createHmac("sha256", k).update(toSign).digest("hex");
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${s.accessKeyId}/${scope}, SignedHeaders=${signed}, Signature=${signature}`;
  delete headers.host;
  return { url: `${base.protocol}//${host}${path}${canonicalQuery ? `?${canonicalQuery}` : ""}`, headers };
}

/** The sha256 of an empty body, for GET/HEAD/LIST. */
export const EMPTY_SHA256 = sha256hex("");
