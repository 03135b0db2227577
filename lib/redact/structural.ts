/**
 * Structural rules: secrets recognised by the structure around them (PEM
 * blocks, URL userinfo, auth headers, connection strings, Kubernetes Secrets)
 * rather than by a prefix. One rule (or one small family) per file in rules/;
 * each reads a bounded window from its keyword.
 */
import { pemRule } from "./rules/pem.ts";
import { keyTextRule } from "./rules/key-text.ts";
import { byteListRule, dumpRule } from "./rules/dump.ts";
import { htmlEscapedRule, nestedJsonRule, unicodeEscapedRule } from "./rules/escaped.ts";
import { puttyRule } from "./rules/putty.ts";
import { urlUserinfoRule } from "./rules/url-userinfo.ts";
import { SIG_RULES } from "./rules/query-signature.ts";
import { authzRule } from "./rules/authorization.ts";
import { bearerRule } from "./rules/bearer.ts";
import { cookieRule } from "./rules/cookie.ts";
import { CLI_RULES } from "./rules/cli-flags.ts";
import { awsPairRule } from "./rules/aws-pair.ts";
import { k8sSecretRule } from "./rules/k8s-secret.ts";
import { dockerAuthRule } from "./rules/docker-auth.ts";
import { afterVerbRule } from "./rules/after-verb.ts";
import { printedRule } from "./rules/printed.ts";
import { replRule } from "./rules/repl.ts";
import { labelLineRule, setupPasswordsRule } from "./rules/label-line.ts";
import { aloneLineRule } from "./rules/alone-line.ts";
import { STDIN_RULES } from "./rules/stdin.ts";
import { SETTER_RULES } from "./rules/setter.ts";
import { CONNECTION_RULES } from "./rules/connection.ts";
import { ciMaskRule } from "./rules/ci-mask.ts";
import { PROMPT_RULES } from "./rules/prompt.ts";
import { SQL_RULES } from "./rules/sql.ts";
import { ENV_DEFAULT_RULES } from "./rules/env-default.ts";
import { MARKUP_RULES } from "./rules/markup.ts";
import { PROSE_RULES } from "./rules/prose.ts";
import { LANGUAGE_RULES } from "./rules/languages.ts";
import type { Rule } from "./types.ts";

/** Each structural rule's name as `--explain` reports it (the file in rules/ it lives in). */
export const STRUCTURAL_NAMES: ReadonlyMap<Rule, string> = new Map<Rule, string>([
  [pemRule, "pem"], [keyTextRule, "key-text"], [puttyRule, "putty"], [urlUserinfoRule, "url-userinfo"], ...SIG_RULES.map((r) => [r, "query-signature"] as [Rule, string]),
  [authzRule, "authorization"], [bearerRule, "bearer"], [cookieRule, "cookie"], ...CLI_RULES.map((r) => [r, "cli-flags"] as [Rule, string]),
  [awsPairRule, "aws-pair"], [k8sSecretRule, "k8s-secret"], [dockerAuthRule, "docker-auth"], [afterVerbRule, "after-verb"],
  [printedRule, "printed"],
  [replRule, "repl"],
  [labelLineRule, "label-line"],
  [setupPasswordsRule, "label-line"],
  [aloneLineRule, "alone-line"],
  ...STDIN_RULES.map((r) => [r, "stdin"] as [Rule, string]),
  ...SETTER_RULES.map((r) => [r, "setter"] as [Rule, string]),
  ...CONNECTION_RULES.map((r) => [r, "connection"] as [Rule, string]),
  [ciMaskRule, "ci-mask"],
  ...PROMPT_RULES.map((r) => [r, "prompt"] as [Rule, string]),
  ...SQL_RULES.map((r) => [r, "sql"] as [Rule, string]),
  ...ENV_DEFAULT_RULES.map((r) => [r, "env-default"] as [Rule, string]),
  ...MARKUP_RULES.map((r) => [r, "markup"] as [Rule, string]),
  ...PROSE_RULES.map((r) => [r, "prose"] as [Rule, string]),
  ...LANGUAGE_RULES.map((r) => [r, "language"] as [Rule, string]),
  [dumpRule, "dump"],
  [byteListRule, "dump"],
  [nestedJsonRule, "escaped"],
  [htmlEscapedRule, "escaped"],
  [unicodeEscapedRule, "escaped"],
]);

/** Every structural rule, in the order above (the order their finds are listed in). */
export const STRUCTURAL_RULES: readonly Rule[] = [...STRUCTURAL_NAMES.keys()];
