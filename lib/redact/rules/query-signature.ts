/** Secrets in query strings and connection strings: presigned-URL signatures, SAS `sig=`, STS tokens, Azure account keys. */
import { entropy } from "../keys.ts";
import { regexRule } from "../prefix.ts";
import type { Rule } from "../types.ts";

/** `X-Amz-Signature=`, `X-Goog-Signature=`, SigV4 `Signature=`, Azure SAS `sig=`, STS tokens in URLs. */
export const SIG_RULES: readonly Rule[] = [
  regexRule("url-signature", ["signature="], String.raw`(?<![A-Za-z0-9])(?:[Xx]-(?:[Aa]mz|[Gg]oog)-)?Signature=((?:[A-Za-z0-9+/=_-]|%[0-9A-Fa-f]{2}){16,1024})`, {
    priority: 2, flags: "i",
    accept: (v) => entropy(v) >= 3.0 && /\d/.test(v),
  }),
  regexRule("azure-sas-signature", ["sig="], String.raw`(?<=[?&;\s"'])sig=((?:[A-Za-z0-9+/=_-]|%[0-9A-Fa-f]{2}){16,256})`, {
    priority: 2, accept: (v) => entropy(v) >= 3.0,
  }),
  regexRule("aws-session-token", ["x-amz-security-token="], String.raw`X-Amz-Security-Token=((?:[A-Za-z0-9+/=_.-]|%[0-9A-Fa-f]{2}){16,8192})`, { priority: 2, flags: "i" }),
  regexRule("azure-storage-account-key", ["accountkey="], String.raw`AccountKey=([A-Za-z0-9+/]{20,120}={0,2})`, { priority: 2, flags: "i" }),
  regexRule("azure-shared-access-key", ["sharedaccesskey="], String.raw`SharedAccessKey=([A-Za-z0-9+/]{20,120}={0,2})`, { priority: 2, flags: "i" }),
];
