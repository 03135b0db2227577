/**
 * Where S3 requests go and with which keys, from the standard AWS sources:
 * `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL`, `AWS_REGION` / `AWS_DEFAULT_REGION`,
 * `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN`, and
 * `AWS_PROFILE` with `~/.aws/credentials` and `~/.aws/config`
 * (`AWS_SHARED_CREDENTIALS_FILE`, `AWS_CONFIG_FILE`). Environment keys win
 * over the profile, as in the AWS CLI.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

type Env = Readonly<Record<string, string | undefined>>;

export interface S3Settings {
  /** Origin requests go to, e.g. `http://127.0.0.1:7480`; path-style when set by the user. */
  readonly endpoint: string;
  /** Path-style (`/bucket/key`) when an endpoint is configured; virtual-hosted for AWS itself. */
  readonly pathStyle: boolean;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string | null;
}

/** Credentials or settings are missing; the message says where they are looked up. */
export class AwsConfigError extends Error {}

/**
 * Parse an AWS INI file into sections of lower-cased keys.
 *
 * @example
 * ```ts
 * parseIni("[default]\naws_access_key_id = A\n").get("default")?.get("aws_access_key_id"); // "A"
 * ```
 */
export function parseIni(text: string): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  let cur: Map<string, string> | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith("#") || line.startsWith(";")) continue;
    const sec = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (sec) {
      cur = out.get(sec[1]!) ?? new Map();
      out.set(sec[1]!, cur);
      continue;
    }
    const kv = /^([^=]+?)\s*=\s*(.*)$/.exec(line);
    if (kv && cur) cur.set(kv[1]!.toLowerCase(), kv[2]!);
  }
  return out;
}

function readIni(path: string): Map<string, Map<string, string>> {
  try {
    return parseIni(readFileSync(path, "utf8"));
  } catch {
    return new Map();
  }
}

/**
 * Resolve S3 settings from the environment and the AWS files.
 *
 * @example
 * ```ts
 * const s = resolveS3Settings({ AWS_ENDPOINT_URL: "http://127.0.0.1:7480", AWS_ACCESS_KEY_ID: "a", AWS_SECRET_ACCESS_KEY: "b" });
 * s.pathStyle; // true
 * ```
 */
export function resolveS3Settings(env: Env): S3Settings {
  const home = env.HOME || homedir();
  const profile = env.AWS_PROFILE || env.AWS_DEFAULT_PROFILE || "default";
  const creds = readIni(env.AWS_SHARED_CREDENTIALS_FILE || join(home, ".aws", "credentials")).get(profile);
  const cfg = readIni(env.AWS_CONFIG_FILE || join(home, ".aws", "config")).get(profile === "default" ? "default" : `profile ${profile}`);
  const pick = (envKeys: string[], fileKey: string): string | undefined => {
    for (const k of envKeys) if (env[k]) return env[k];
    return creds?.get(fileKey) || cfg?.get(fileKey) || undefined;
  };
  // Keys come as a pair: an env key id never combines with a profile's secret.
  const envPair = !!env.AWS_ACCESS_KEY_ID;
  const accessKeyId = envPair ? env.AWS_ACCESS_KEY_ID! : creds?.get("aws_access_key_id") || cfg?.get("aws_access_key_id");
  const secretAccessKey = envPair ? env.AWS_SECRET_ACCESS_KEY : creds?.get("aws_secret_access_key") || cfg?.get("aws_secret_access_key");
  const sessionToken = envPair ? env.AWS_SESSION_TOKEN : creds?.get("aws_session_token") || cfg?.get("aws_session_token");
  if (!accessKeyId || !secretAccessKey) {
    throw new AwsConfigError(
      `no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with a [${profile}] section in ~/.aws/credentials`,
    );
  }
  const region = pick(["AWS_REGION", "AWS_DEFAULT_REGION"], "region") || "us-east-1";
  const configured = pick(["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"], "endpoint_url");
  let endpoint = `https://s3.${region}.amazonaws.com`;
  if (configured) {
    let u: URL;
    try {
      u = new URL(configured);
    } catch {
      throw new AwsConfigError(`the S3 endpoint "${configured}" is not a URL (AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL)`);
    }
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new AwsConfigError(`the S3 endpoint must be http(s): ${configured}`);
    endpoint = u.origin;
  }
  return { endpoint, pathStyle: !!configured, region, accessKeyId, secretAccessKey, sessionToken: sessionToken || null };
}
