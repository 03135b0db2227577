/**
 * From a store URL to an ObjectStore: one place that knows which class
 * serves which scheme and where S3 settings come from.
 */
import { resolveS3Settings } from "./aws.ts";
import { DEFAULT_REQUEST_TIMEOUT_MS, FileStore, S3Store, type ObjectStore } from "./objects.ts";
import { parseStoreUrl } from "./url.ts";

export interface OpenedStore {
  readonly store: ObjectStore;
  /** Key prefix inside the store ("" for a file store). */
  readonly prefix: string;
  /** The normalised URL. */
  readonly url: string;
}

/**
 * Open a store URL. Throws StoreUrlError or AwsConfigError with a message for the user.
 *
 * @example
 * ```ts
 * const { store, prefix } = openStore("s3://traces/acme", process.env);
 * // reading: a file store is listed from "/" so keys keep every layout component
 * ```
 */
export function openStore(url: string, env: Readonly<Record<string, string | undefined>>, opts: { reading?: boolean } = {}): OpenedStore {
  const u = parseStoreUrl(url);
  if (u.kind === "file") {
    // A reader may open any directory below the store's root (file:///store/acme/api/2026/11):
    // rooted at "/", its keys keep the org/repo/date components the layout parser reads.
    if (opts.reading && u.root !== "/") return { store: new FileStore("/"), prefix: u.root.slice(1), url: u.url };
    return { store: new FileStore(u.root), prefix: "", url: u.url };
  }
  const timeoutS = Number(env.TRACEGATE_SYNC_TIMEOUT_S);
  const timeoutMs = timeoutS > 0 ? timeoutS * 1000 : DEFAULT_REQUEST_TIMEOUT_MS;
  return { store: new S3Store(resolveS3Settings(env), u.bucket, timeoutMs), prefix: u.prefix, url: u.url };
}
