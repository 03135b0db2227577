/**
 * Prefix rules: a literal prefix plus a fixed alphabet and length. High
 * confidence, redacted on sight (no placeholder filters), the prefix kept so
 * the trace stays readable: `ghp_[REDACTED:github-pat:3f9a]`.
 *
 * Every pattern starts with its keyword and runs sticky at the keyword's
 * position (`back` chars earlier when the keyword sits inside the token), so
 * the regex engine never scans: the keyword search already did. Quantifiers
 * are bounded and no group is nested under a quantifier.
 */
import { checksumOk } from "./crc32.ts";
import { entropy, isWordUnit, randomHexEntropy } from "./keys.ts";
import { codeUnits } from "./runs.ts";
import type { Rule, RulePattern, ScanCtx } from "./types.ts";

/** Left boundary: not after a word character, except after a JSON escape such as `\n`. */
export const LB = String.raw`(?:(?<![A-Za-z0-9_])|(?<=\\[nrt]))`;
/** Right boundary: not followed by a word character. */
export const RB = String.raw`(?![A-Za-z0-9_])`;

/**
 * A RegexRuleOpts `group` for a pattern whose alternatives hold the secret
 * in different groups (single-quoted, double-quoted, bare): the first of
 * `groups` that took part in the match, or the last.
 *
 * @example
 * ```ts
 * firstMatched(1, 2)(/(?:'(\w+)'|"(\w+)")/.exec('"x"')!); // 2
 * ```
 */
export const firstMatched =
  (...groups: number[]) =>
  (m: RegExpExecArray): number => {
    for (let k = 0; k < groups.length - 1; k++) if (m[groups[k]!] !== undefined) return groups[k]!;
    return groups[groups.length - 1]!;
  };

export interface RegexRuleOpts {
  /** Chars before the keyword where the match starts (keyword inside the token). */
  readonly back?: number;
  /**
   * Capture group holding the secret part; text before it in the match is
   * kept. Default 1. A function picks it per match, for a pattern whose
   * alternatives hold the secret in different groups (quoted or bare).
   */
  readonly group?: number | ((m: RegExpExecArray) => number);
  readonly flags?: string;
  readonly priority?: number;
  /** Extra check on the secret (entropy floor for generic families). */
  readonly accept?: (secret: string, m: RegExpExecArray) => boolean;
  /** Checksum check: true marks the finding verified; false never drops it. */
  readonly checksum?: (m: RegExpExecArray) => boolean;
  /** The pattern brings its own left context (a lookbehind before the keyword). */
  readonly noLB?: boolean;
  /**
   * The body, right after `after`'s keywords, is at most `max` characters of
   * the class `chars` (ranges and single characters), and what follows it may
   * not be one of them: from a hit whose run of such characters is longer,
   * the pattern cannot match. Such a hit is skipped before the regex, which
   * would read the body to its maximum and back for nothing; the run's end is
   * found once for every hit inside it (`-fm2_-fm2_…` made each of thousands
   * of hits read 3,000 characters).
   */
  readonly run?: { readonly chars: string; readonly max: number; readonly after: readonly string[] };
  /**
   * The pattern's look-behind needs one of `words` to start within `within`
   * characters before the match: a hit with none of them there is skipped
   * before the regex, whose variable-length look-behind read back some 200
   * characters at every hit (` -p` is common; `mysql` is not).
   */
  readonly near?: { readonly words: readonly string[]; readonly within: number };
  /**
   * A test of the code units at the keyword's hit, before anything else: a
   * hit it turns away never meets the regex (a noun with no space after it
   * is a key's, not prose; the keyword pass folds case, so capitals are
   * told here).
   */
  readonly hit?: (u: Uint16Array, pos: number, kw: string) => boolean;
}

/** A 128-entry table of a character class body (`A-Za-z0-9+/=_-`: ranges and single characters). */
function classTable(chars: string): Uint8Array {
  const t = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) {
    const c = chars.charCodeAt(i);
    if (chars[i + 1] === "-" && i + 2 < chars.length) {
      for (let x = c; x <= chars.charCodeAt(i + 2); x++) t[x] = 1;
      i += 2;
    } else t[c] = 1;
  }
  return t;
}

/** Whether LB fails at `at`: an ASCII letter, digit or `_` before it that is not an escape's `\\n`, `\\r` or `\\t`. */
function insideWord(s: string, at: number): boolean {
  const c = s.charCodeAt(at - 1);
  if (!isWordUnit(c)) return false;
  return !((c === 110 || c === 114 || c === 116) && at >= 2 && s.charCodeAt(at - 2) === 92);
}

let ruleIds = 0;

/**
 * A `near` test (RegexRuleOpts.near) that reads the text before each hit once: it keeps the latest
 * start of one of the words found so far and how far the text was read, so a hit reads only what
 * came since the last one (a line of thousands of ` -p` read each rule's 200-340 characters back at
 * every hit, 100 times a build log's cost). Per rule, and per scan: another scan's text starts over.
 */
function nearTest(near: NonNullable<RegexRuleOpts["near"]>): (ctx: ScanCtx, at: number) => boolean {
  const { within } = near;
  // Each word as code units, compared against the scan's own (no slice per hit). Made at the first
  // hit: a rule is built at every process's load, and most never see one.
  let words: Uint16Array[] | undefined;
  let longest = 0;
  // The scan read so far, known by its memo (numbers only: holding it keeps no text alive).
  let scanMemo: ScanCtx["memo"] | undefined;
  let seen = -1;
  let to = 0;
  return (ctx, at) => {
    if (words === undefined) {
      words = near.words.map(codeUnits);
      for (const w of words) if (w.length > longest) longest = w.length;
    }
    const from = at > within ? at - within : 0;
    if (ctx.memo !== scanMemo || at < to) {
      scanMemo = ctx.memo;
      seen = -1;
      to = from;
    }
    if (to < at) {
      // A word may straddle where the last read stopped: read from a word's length before it.
      let start = to - longest + 1;
      if (start < from) start = from;
      const u = ctx.units;
      for (const w of words) {
        // The latest start of `w` in u[start..at), read backwards to the first found.
        for (let i = at - w.length; i >= start && i > seen; i--) {
          if (u[i] !== w[0]) continue;
          let k = 1;
          while (k < w.length && u[i + k] === w[k]) k++;
          if (k === w.length) {
            seen = i;
            break;
          }
        }
      }
      to = at;
    }
    return seen >= from;
  };
}

/**
 * A sticky regex rule anchored at a keyword occurrence.
 *
 * @example
 * ```ts
 * regexRule("npm-token", ["npm_"], String.raw`npm_([A-Za-z0-9]{36})` + RB);
 * ```
 */
export function regexRule(kind: string, keywords: readonly string[], source: string, o: RegexRuleOpts = {}): Rule {
  let re: RegExp | undefined;
  const back = o.back ?? 0;
  const group = o.group ?? 1;
  const priority = o.priority ?? 3;
  const memoKey = `re${++ruleIds}`;
  const runFrom = `${memoKey}from`;
  const runTo = `${memoKey}to`;
  const runChars = o.run && classTable(o.run.chars);
  const near = o.near && nearTest(o.near);
  const bounded = source.startsWith(LB);
  return {
    kinds: [kind],
    keywords,
    patterns: () => [{ kind, source, flags: "dy" + (o.flags ?? "") }],
    scan(ctx: ScanCtx, pos: number, kw: string): void {
      if (o.hit && !o.hit(ctx.units, pos, kw)) return;
      const at = pos - back;
      if (at < 0 || at < (ctx.memo[memoKey] ?? 0)) return;
      // LB's test before the regex's: most hits of a short prefix are inside a word (`db_name` for
      // `b_`), where the match would fail at its first step, and the call cost more than the step.
      if (bounded && at > 0 && insideWord(ctx.s, at)) return;
      if (near && !near(ctx, at)) return;
      if (o.run && o.run.after.includes(kw)) {
        const body = pos + kw.length;
        let to = ctx.memo[runTo];
        if (to === undefined || body < ctx.memo[runFrom]! || body > to) {
          const u = ctx.units;
          to = body;
          while (to < u.length && u[to]! < 128 && runChars![u[to]!] === 1) to++;
          ctx.memo[runFrom] = body;
          ctx.memo[runTo] = to;
        }
        if (to - body > o.run.max) return;
      }
      re ??= new RegExp(source, "dy" + (o.flags ?? ""));
      re.lastIndex = at;
      const m = re.exec(ctx.s);
      if (!m) return;
      const end = m.index + m[0].length;
      // Later keyword hits inside this match add nothing and would make
      // `sk-sk-sk-…` quadratic.
      ctx.memo[memoKey] = end;
      const g = typeof group === "number" ? group : group(m);
      const span = m.indices?.[g];
      if (!span) return;
      const secret = m[g]!;
      // All one repeated character (`ghp_xxxx…`) is a docs placeholder, not a token.
      if (/^(.)\1*$/.test(secret)) return;
      if (o.accept && !o.accept(secret, m)) return;
      ctx.out.push({
        from: m.index,
        start: span[0],
        end: span[1],
        kind,
        priority,
        checksum: o.checksum ? o.checksum(m) : undefined,
      });
    },
  };
}

const B62 = "A-Za-z0-9";
const B64U = "A-Za-z0-9_-";
const crc = (m: RegExpExecArray): boolean => checksumOk(m[1]!);
/**
 * A family's entropy floor for body `s`: `floor`, or for a hex body (16
 * characters to draw from, not 62) 0.8 of what random hex of its length
 * measures, if lower.
 */
const floorFor = (s: string, floor: number): number => (/^[0-9a-fA-F]+$/.test(s) ? Math.min(floor, 0.8 * randomHexEntropy(s.length)) : floor);
const highEntropy = (floor: number) => (s: string): boolean => entropy(s) >= floorFor(s, floor) && /\d/.test(s) && /[A-Za-z]/.test(s);

/** Slack's docs URL `T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX` is a placeholder, not a hook. */
function slackHookOk(path: string): boolean {
  const last = path.replace(/\/+$/, "").split("/").pop() ?? "";
  return !/^(.)\1*$/.test(last) && !/^T0+\/B0+\//.test(path);
}

/** Simple `prefix + body` rules: [kind, keywords, pattern (group 1 = secret), options]. */
type Spec = readonly [string, readonly string[], string, RegexRuleOpts?];

const SPECS: readonly Spec[] = [
  // Cloud
  // AWS documents its examples as AKIAIOSFODNN7EXAMPLE: an id ending EXAMPLE is docs, never a key.
  ["aws-access-key-id", ["akia", "asia", "abia", "acca"], String.raw`(?:AKIA|ASIA|ABIA|ACCA)([A-Z0-9]{16})` + RB, { accept: (id) => !id.endsWith("EXAMPLE") }],
  ["aws-session-token", ["iqojb3jpz2lux2vj", "fwogzxivyxdz"], String.raw`((?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdz)(?:[A-Za-z0-9+/=]|%2B|%2F|%3D){60,4096})`],
  ["aws-bedrock-api-key", ["absk"], String.raw`ABSK([A-Za-z0-9+/]{60,400}={0,2})` + RB],
  ["google-api-key", ["aiza"], String.raw`AIza([${B64U}]{35})` + String.raw`(?![A-Za-z0-9_-])`],
  ["google-oauth-client-secret", ["gocspx-"], String.raw`GOCSPX-([${B64U}]{24,40})`],
  ["google-oauth-access-token", ["ya29."], String.raw`ya29\.([${B64U}]{20,2048})`],
  ["google-oauth-refresh-token", ["1//0"], String.raw`1//(0[${B64U}]{30,512})`],
  ["azure-entra-client-secret", ["q~"], String.raw`(?<![A-Za-z0-9_~.-])([A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})(?![A-Za-z0-9_~.-])`, { back: 4 }],
  ["alibaba-access-key-id", ["ltai"], String.raw`LTAI([${B62}]{16,24})` + RB],
  ["digitalocean-token", ["dop_v1_", "doo_v1_", "dor_v1_"], String.raw`do[por]_v1_([a-f0-9]{64})` + RB],
  ["heroku-api-key", ["hrku-aa"], String.raw`HRKU-AA([${B64U}]{58})` + String.raw`(?![A-Za-z0-9_-])`],
  // Docker Hub personal and organization access tokens (`docker login -p`, `~/.docker/config.json` without a helper).
  ["docker-hub-token", ["dckr_pat_", "dckr_oat_"], String.raw`dckr_(?:pat|oat)_([A-Za-z0-9_-]{27,64})` + String.raw`(?![A-Za-z0-9_-])`],
  ["flyio-token", ["fo1_"], String.raw`fo1_([${B64U}]{40,48})`],
  ["databricks-token", ["dapi"], String.raw`dapi([a-f0-9]{32}(?:-\d)?)` + RB],
  ["vault-service-token", ["hvs."], String.raw`hvs\.([${B64U}]{90,300})`],
  ["vault-batch-token", ["hvb."], String.raw`hvb\.([${B64U}]{90,300})`],
  // The 14-character head is the token's id half: it goes too.
  ["terraform-cloud-token", [".atlasv1."], String.raw`([A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,120})`, { back: 14 }],
  ["pulumi-token", ["pul-"], String.raw`pul-([a-z0-9]{40})` + RB],
  ["doppler-token", ["dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."], String.raw`dp\.(?:pt|st|sa|ct|scim|audit)\.([${B62}]{40,44})` + RB],
  ["planetscale-token", ["pscale_tkn_", "pscale_pw_", "pscale_oauth_"], String.raw`pscale_(?:tkn|pw|oauth)_([A-Za-z0-9_.=-]{32,64})`],
  // A PostgreSQL role's stored password (pg_authid, pgbouncer's userlist.txt, `ALTER ROLE … PASSWORD`): the md5
  // form logs in as the role without the password (the client's answer is computed from it), and SCRAM's
  // keys let whoever holds them pose as the server and test guesses offline. SCRAM keeps its count and salt.
  ["postgres-password-hash", ["scram-sha-256$"], String.raw`SCRAM-SHA-256\$\d{1,7}:[A-Za-z0-9+/]{8,64}={0,2}\$([A-Za-z0-9+/]{43}=:[A-Za-z0-9+/]{43}=)`],
  ["postgres-password-hash", ["md5"], String.raw`(md5[a-f0-9]{32})` + RB],
  // MySQL's mysql_native_password hash (`SELECT authentication_string FROM mysql.user`, `IDENTIFIED BY
  // PASSWORD '*…'`): SHA1(SHA1(password)), which a dictionary attack reads back.
  ["mysql-password-hash", [..."0123456789abcdef"].map((c) => `*${c}`), String.raw`\*([0-9A-F]{40})` + RB],
  ["supabase-token", ["sbp_"], String.raw`sbp_((?:[a-f0-9]{40}|[a-z0-9]{40}|v0_[a-f0-9]{40}))` + RB],
  ["netlify-token", ["nfp_"], String.raw`nfp_([${B62}]{36,40})` + RB],
  ["new-relic-key", ["nrak-", "nrii-", "nrjs-", "nrbr-", "nraa-", "nrra-", "nrsp-"], String.raw`NR(?:AK|II|JS|BR|AA|RA|SP)-([A-Za-z0-9_-]{16,40})` + RB, { flags: "i" }],
  ["new-relic-key", ["-nrma"], String.raw`((?:eu01xx)?[a-f0-9]{40,42})-NRMA` + RB, { back: 42, accept: (_s, m) => true }],
  ["dynatrace-token", ["dt0c01."], String.raw`dt0c01\.([A-Z0-9]{24}\.[A-Z0-9]{64})` + RB],
  ["grafana-service-account-token", ["glsa_"], String.raw`glsa_([A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|[A-Za-z0-9]{4,30}_[A-Za-z0-9_]{8,40})` + RB],
  ["grafana-api-key", ["eyjrijoi"], String.raw`(eyJrIjoi[A-Za-z0-9]{60,400}={0,2})` + RB],
  ["grafana-cloud-token", ["glc_"], String.raw`glc_([A-Za-z0-9+/]{32,400}={0,2})` + RB],
  ["sentry-token", ["sntrys_", "sntryu_"], String.raw`sntry[su]_([A-Za-z0-9+/=_-]{64,400})`],
  ["1password-service-account-token", ["ops_eyj"], String.raw`ops_(eyJ[A-Za-z0-9+/=_-]{100,2000})`],
  ["1password-secret-key", ["a3-"], String.raw`A3-([A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})(?:-[A-Z0-9]{5}){3,4})` + RB],
  ["age-secret-key", ["age-secret-key-1"], String.raw`AGE-SECRET-KEY-1([0-9A-Z]{58})` + RB],
  // VCS
  ["github-pat", ["ghp_"], String.raw`ghp_([${B62}]{36,255})` + RB, { checksum: crc }],
  ["github-oauth-token", ["gho_"], String.raw`gho_([${B62}]{36,255})` + RB, { checksum: crc }],
  ["github-user-token", ["ghu_"], String.raw`ghu_([${B62}]{36,255})` + RB, { checksum: crc }],
  ["github-refresh-token", ["ghr_"], String.raw`ghr_([${B62}]{36,255})` + RB, { checksum: crc }],
  // New installation tokens: ghs_<appId>_<JWT>, about 520 chars; old: 36 b62.
  ["github-app-token", ["ghs_"], String.raw`ghs_((?:[0-9]{1,20}_[A-Za-z0-9_.-]{20,2000})|[A-Za-z0-9_]{36,255})` + String.raw`(?![A-Za-z0-9_.-])`, { checksum: crc, run: { chars: "A-Za-z0-9_.-", max: 20 + 1 + 2000, after: ["ghs_"] } }],
  ["github-fine-grained-pat", ["github_pat_"], String.raw`github_pat_([${B62}]{22}_[${B62}]{59}|[A-Za-z0-9_]{70,255})` + RB],
  ["gitlab-pat", ["glpat-"], String.raw`glpat-([${B64U}]{20,300}(?:\.[a-z0-9]{1,20}){0,4})`],
  ["gitlab-deploy-token", ["gldt-"], String.raw`gldt-([${B64U}]{20,300}(?:\.[a-z0-9]{1,20}){0,4})`],
  ["gitlab-runner-token", ["glrt-", "glrtr-"], String.raw`glrtr?-([${B64U}]{20,300}(?:\.[a-z0-9]{1,20}){0,4})`],
  ["gitlab-ci-job-token", ["glcbt-"], String.raw`glcbt-([${B64U}]{20,300}(?:\.[a-z0-9]{1,20}){0,4})`],
  ["gitlab-trigger-token", ["glptt-"], String.raw`glptt-([${B64U}]{40,300})`],
  ["gitlab-feed-token", ["glft-"], String.raw`glft-([${B64U}]{20,300})`],
  ["gitlab-incoming-mail-token", ["glimt-"], String.raw`glimt-([${B64U}]{20,300})`],
  ["gitlab-agent-token", ["glagent-"], String.raw`glagent-([${B64U}]{40,300})`],
  ["gitlab-oauth-secret", ["gloas-"], String.raw`gloas-([${B64U}]{40,300})`],
  ["gitlab-scim-token", ["glsoat-"], String.raw`glsoat-([${B64U}]{20,300})`],
  ["gitlab-feature-flag-token", ["glffct-"], String.raw`glffct-([${B64U}]{20,300})`],
  ["gitlab-workspace-token", ["glwt-"], String.raw`glwt-([${B64U}]{20,300})`],
  ["gitlab-runner-registration-token", ["gr1348941"], String.raw`GR1348941([${B64U}]{20,40})` + String.raw`(?![A-Za-z0-9_-])`],
  ["bitbucket-app-password", ["atbb"], String.raw`ATBB([${B62}]{28,40})` + RB],
  ["atlassian-api-token", ["atatt", "atctt3"], String.raw`AT[AC]TT([A-Za-z0-9_=-]{40,300})`, { accept: highEntropy(3.5) }],
  ["atlassian-api-token", ["bbdc-"], String.raw`BBDC-([A-Za-z0-9+/]{40,50})`],
  ["buildkite-token", ["bkua_"], String.raw`bkua_([a-z0-9]{40})` + RB],
  ["linear-api-key", ["lin_api_"], String.raw`lin_api_([${B62}]{40})` + RB],
  ["figma-token", ["figd_", "figp_", "figr_", "figu_"], String.raw`fig[dpru]_([${B64U}]{40,44})`],
  ["postman-api-key", ["pmak-"], String.raw`PMAK-([A-Za-z0-9]{24}-?[A-Za-z0-9]{34,60})` + RB],
  // Chat and messaging
  ["slack-bot-token", ["xoxb-"], String.raw`xoxb-([0-9]{6,14}-[A-Za-z0-9-]{8,250})`],
  ["slack-user-token", ["xoxp-"], String.raw`xoxp-([0-9]{6,14}-[A-Za-z0-9-]{8,250})`],
  ["slack-legacy-token", ["xoxa-", "xoxr-", "xoxs-", "xoxo-"], String.raw`xox[aors]-([0-9]{1,14}-[A-Za-z0-9-]{8,250})`],
  ["slack-app-token", ["xapp-"], String.raw`xapp-([0-9]-[A-Za-z0-9-]{20,250})`],
  ["slack-config-token", ["xoxe.xox"], String.raw`xoxe\.xox[bp]-([0-9]-[A-Za-z0-9-]{20,300})`],
  ["slack-refresh-token", ["xoxe-"], String.raw`xoxe-([0-9]-[A-Za-z0-9-]{20,300})`],
  ["slack-webhook", ["hooks.slack.com/"], String.raw`hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9_/-]{20,300})`, { accept: slackHookOk }],
  ["discord-webhook", ["discord.com/api/webhooks/", "discordapp.com/api/webhooks/"], String.raw`discord(?:app)?\.com/api/webhooks/[0-9]{15,22}/([${B64U}]{60,80})`],
  ["teams-webhook", ["webhook.office.com/"], String.raw`webhook\.office\.com/webhookb2/([A-Za-z0-9@/_-]{50,400})`],
  ["zapier-webhook", ["hooks.zapier.com/hooks/catch/"], String.raw`hooks\.zapier\.com/hooks/catch/([A-Za-z0-9]{4,20}(?:/[A-Za-z0-9]{4,40})?)`],
  ["tines-webhook", [".tines.com/webhook/"], String.raw`\.tines\.com/webhook/([a-z0-9]{32}/[a-z0-9]{32})`, { noLB: true }],
  ["telegram-bot-token", [":aa"], String.raw`(?<=(?:^|[^0-9])[0-9]{8,10}):(AA[${B64U}]{33})(?![A-Za-z0-9_-])`, { noLB: true }],
  // X/Twitter app-only bearer tokens: 20-odd `A`s, then URL-encoded base64 (`%2B`, `%2F`, `%3D`). Raw
  // base64 has long `A` runs too (zero bytes) but never a `%`, so an escape is required.
  ["twitter-bearer-token", ["aaaaaaaaaaaaaaaaaaaa"], String.raw`A{20,24}((?:[${B62}]|%[0-9A-F]{2}){40,240})(?![A-Za-z0-9%+/=])`, { accept: (v) => /%(?:2B|2F|3D)/.test(v) && /[a-z]/.test(v) && /\d/.test(v) }],
  ["twilio-api-key", ["sk"], String.raw`SK([0-9a-f]{32})` + RB],
  ["sendgrid-api-key", ["sg."], String.raw`SG\.([A-Za-z0-9=_-]{16,32}\.[A-Za-z0-9=_-]{30,50}|[A-Za-z0-9=_.-]{66})` + String.raw`(?![A-Za-z0-9_=-])`],
  ["mailgun-api-key", ["key-"], String.raw`key-([a-z0-9]{32}|[A-Za-z0-9]{64})` + RB, { accept: (v) => /\d/.test(v) && entropy(v) >= floorFor(v, 3.2) }],
  ["mailgun-api-key", ["pubkey-"], String.raw`pubkey-([a-f0-9]{32})` + RB],
  ["mailchimp-api-key", ["-us"], String.raw`([a-f0-9]{32})-us[0-9]{1,2}` + RB, { back: 32 }],
  // Payments and commerce
  ["stripe-secret-key", ["sk_live_", "sk_test_", "sk_prod_"], String.raw`sk_(?:live|test|prod)_([${B62}]{10,250})` + RB],
  ["stripe-restricted-key", ["rk_live_", "rk_test_"], String.raw`rk_(?:live|test)_([${B62}]{16,250})` + RB],
  ["stripe-webhook-secret", ["whsec_"], String.raw`whsec_([A-Za-z0-9+/=]{24,100})`],
  ["shopify-token", ["shpat_", "shpca_", "shppa_", "shpss_"], String.raw`shp(?:at|ca|pa|ss)_([a-fA-F0-9]{32})` + RB],
  ["square-token", ["sq0atp-", "sq0csp-"], String.raw`sq0(?:atp|csp)-([${B64U}]{22,43})`],
  ["easypost-api-key", ["ezak", "eztk"], String.raw`EZ[AT]K([A-Za-z0-9]{54})` + RB],
  // AI providers
  ["anthropic-api-key", ["sk-ant-api"], String.raw`sk-ant-api[0-9]{2}-([${B64U}]{20,300})`],
  ["anthropic-admin-key", ["sk-ant-admin"], String.raw`sk-ant-admin[0-9]{2}-([${B64U}]{20,300})`],
  ["anthropic-oauth-token", ["sk-ant-oat", "sk-ant-ort"], String.raw`sk-ant-o[ar]t[0-9]{2}-([${B64U}]{20,300})`],
  ["anthropic-session-key", ["sk-ant-sid"], String.raw`sk-ant-sid[0-9]{2}-([${B64U}]{20,300})`],
  ["openai-api-key", ["sk-proj-", "sk-svcacct-", "sk-admin-"], String.raw`sk-(?:proj|svcacct|admin)-([${B64U}]{20,300})`],
  ["openai-api-key", ["t3blbkfj"], String.raw`sk-([${B62}]{20}T3BlbkFJ[${B62}]{20})` + RB, { back: 23 }],
  ["openrouter-api-key", ["sk-or-v1-"], String.raw`sk-or-v1-([a-f0-9]{64})` + RB],
  ["groq-api-key", ["gsk_"], String.raw`gsk_([${B62}]{52})` + RB],
  ["xai-api-key", ["xai-"], String.raw`xai-([${B62}]{70,90})` + RB],
  ["replicate-api-token", ["r8_"], String.raw`r8_([${B62}]{37})` + RB],
  ["perplexity-api-key", ["pplx-"], String.raw`pplx-([${B62}]{48})` + RB],
  ["langsmith-api-key", ["lsv2_pt_", "lsv2_sk_"], String.raw`lsv2_(?:pt|sk)_([a-f0-9]{32}_[a-f0-9]{10})` + RB],
  ["huggingface-token", ["hf_"], String.raw`hf_([${B62}]{34})` + RB],
  ["huggingface-org-token", ["api_org_"], String.raw`api_org_([${B62}]{34})` + RB],
  ["notion-token", ["ntn_"], String.raw`ntn_([${B62}]{40,50})` + RB],
  ["notion-token", ["secret_"], String.raw`secret_([${B62}]{43})` + RB],
  ["readme-api-key", ["rdme_"], String.raw`rdme_([a-z0-9]{70})` + RB],
  ["contentful-token", ["cfpat-"], String.raw`CFPAT-([${B64U}]{43})`],
  ["prefect-api-key", ["pnu_"], String.raw`pnu_([${B62}]{36})` + RB],
  // From gitleaks' and trufflehog's rule sets: providers with a distinctive prefix or structure.
  ["alchemy-api-key", ["alcht_"], String.raw`alcht_([${B62}]{30})` + RB],
  ["pinecone-api-key", ["pcsk_"], String.raw`pcsk_([A-Za-z0-9_]{40,120})` + RB],
  ["posthog-personal-api-key", ["phx_"], String.raw`phx_([A-Za-z0-9_]{40,60})` + RB],
  ["nvidia-api-key", ["nvapi-"], String.raw`nvapi-([${B64U}]{60,70})` + String.raw`(?![A-Za-z0-9_-])`],
  ["adafruit-io-key", ["aio_"], String.raw`aio_([${B62}]{28})` + RB],
  ["cloudflare-api-token", ["cfut_", "cfk_", "cfat_"], String.raw`cf(?:ut|k|at)_([${B62}]{40,60})` + RB],
  ["cloudflare-origin-ca-key", ["v1.0-"], String.raw`v1\.0-([a-f0-9]{24}-[a-f0-9]{146})` + RB],
  ["vercel-token", ["vcp_", "vci_", "vca_", "vcr_", "vck_"], String.raw`vc[pirak]_([${B62}]{24,80})` + RB],
  ["adobe-client-secret", ["p8e-"], String.raw`p8e-([A-Za-z0-9]{32})` + RB],
  ["airtable-pat", ["pat"], String.raw`pat([${B62}]{14}\.[a-f0-9]{64})` + RB],
  ["airtable-oauth-token", [".v1.eyj"], String.raw`([A-Za-z0-9]{17}\.v1\.eyJ[A-Za-z0-9_=-]{40,1000}\.[A-Za-z0-9_=-]{20,128})`, { back: 17 }],
  ["artifactory-api-key", ["akcp"], String.raw`AKCp([A-Za-z0-9]{69})` + RB],
  ["beamer-api-token", ["b_"], String.raw`b_([a-z0-9=_-]{44})` + RB, { accept: highEntropy(3.5) }],
  ["clickhouse-cloud-key", ["4b1d"], String.raw`4b1d([A-Za-z0-9]{38})` + RB],
  ["circleci-token", ["ccipat_", "ccpat_"], String.raw`CC(?:I)?PAT_([A-Za-z0-9]{22}_[a-f0-9]{40})` + RB],
  ["defined-networking-token", ["dnkey-"], String.raw`dnkey-([a-z0-9=_-]{26}-[a-z0-9=_-]{52})` + RB],
  ["dropbox-token", ["sl."], String.raw`sl\.(?:u\.)?([A-Za-z0-9_=-]{100,1400})` + String.raw`(?![A-Za-z0-9_=-])`],
  ["duffel-api-token", ["duffel_test_", "duffel_live_"], String.raw`duffel_(?:test|live)_([A-Za-z0-9_=-]{40,46})` + String.raw`(?![A-Za-z0-9_=-])`],
  ["facebook-access-token", ["eaa"], String.raw`(EAA[A-Za-z0-9]{20,400})` + RB, { accept: (v) => /[a-z]/.test(v) && /[A-Z].*[A-Z]/.test(v.slice(3)) && /\d/.test(v) && entropy(v) >= 3.5 }],
  ["flutterwave-key", ["flwseck_", "flwseck-", "flwpubk_", "flwpubk-"], String.raw`FLW(?:SECK|PUBK)[_-](?:TEST[_-]?)?([a-h0-9]{12,32}(?:-X)?)` + RB],
  ["frameio-token", ["fio-u-"], String.raw`fio-u-([A-Za-z0-9_=-]{64})` + String.raw`(?![A-Za-z0-9_=-])`],
  ["flyio-token", ["fm1a_", "fm1r_", "fm2_", "flyv1 "], String.raw`(?:FlyV1 )?fm(?:1[ar]|2)_([A-Za-z0-9+/=_-]{50,3000})` + String.raw`(?![A-Za-z0-9+/=_-])`, { flags: "", run: { chars: "A-Za-z0-9+/=_-", max: 3000, after: ["fm1a_", "fm1r_", "fm2_"] } }],
  ["gocardless-token", ["live_"], String.raw`live_([A-Za-z0-9_=-]{30,60})` + String.raw`(?![A-Za-z0-9_=-])`, { priority: 2.5, accept: highEntropy(3.5) }],
  ["harness-api-key", ["pat.", "sat."], String.raw`(?:pat|sat)\.([A-Za-z0-9_-]{22}\.[a-z0-9]{24}\.[A-Za-z0-9]{20})` + RB],
  ["hubspot-private-app-token", ["pat-na1-", "pat-eu1-", "pat-na2-", "pat-ap1-"], String.raw`pat-(?:na|eu|ap)[12]-([a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12})` + RB],
  ["infracost-api-token", ["ico-"], String.raw`ico-([A-Za-z0-9]{32})` + RB],
  ["intra42-client-secret", ["s-s4t2"], String.raw`s-s4t2(?:ud|af)-([a-f0-9]{64})` + RB],
  ["mapbox-token", ["pk.eyj", "sk.eyj", "tk.eyj"], String.raw`[pst]k\.(eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,})` + RB],
  ["nuget-api-key", ["oy2"], String.raw`(oy2[a-z0-9]{43})` + RB],
  ["octopus-deploy-api-key", ["api-"], String.raw`API-([A-Z0-9]{26,32})` + RB, { accept: (v) => /\d/.test(v) && /[A-Z]/.test(v) }],
  ["openshift-token", ["sha256~"], String.raw`sha256~([A-Za-z0-9_-]{43})` + String.raw`(?![A-Za-z0-9_-])`],
  ["plaid-access-token", ["access-sandbox-", "access-development-", "access-production-"], String.raw`access-(?:sandbox|development|production)-([a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12})` + RB],
  ["launchdarkly-key", ["sdk-", "api-", "mob-"], String.raw`(?:sdk|api|mob)-([a-z0-9]{8}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{12})` + RB, { accept: (v) => /[g-z]/.test(v) || /\d/.test(v) }],
  ["scalingo-api-token", ["tk-us-"], String.raw`tk-us-([A-Za-z0-9_-]{48})` + String.raw`(?![A-Za-z0-9_-])`],
  ["sendinblue-api-key", ["xkeysib-", "xsmtpsib-"], String.raw`x(?:keys|smtps)ib-([A-Za-z0-9_-]{64,120})` + String.raw`(?![A-Za-z0-9_-])`],
  ["settlemint-token", ["sm_aat_", "sm_pat_", "sm_sat_"], String.raw`sm_[aps]at_([A-Za-z0-9]{16})` + RB],
  ["shippo-api-token", ["shippo_live_", "shippo_test_"], String.raw`shippo_(?:live|test)_([a-fA-F0-9]{40})` + RB],
  ["sonar-token", ["squ_", "sqp_", "sqa_", "sqco_"], String.raw`sq(?:u|p|a|co)_([A-Za-z0-9]{40,60})` + RB],
  ["sourcegraph-token", ["sgp_"], String.raw`sgp_((?:local_|[a-fA-F0-9]{16}_)?[a-fA-F0-9]{40})` + RB],
  ["sourcegraph-cody-token", ["slk_"], String.raw`slk_([a-f0-9]{64})` + RB],
  ["square-access-token", ["eaaa"], String.raw`EAAA([A-Za-z0-9_=+-]{40,100})` + String.raw`(?![A-Za-z0-9_=+-])`, { priority: 3.1 }],
  ["square-token", ["sq0idp-", "sq0atb-"], String.raw`sq0(?:atb)-([${B64U}]{22,43})`],
  ["typeform-token", ["tfp_"], String.raw`tfp_([A-Za-z0-9_.=-]{40,59})` + String.raw`(?![A-Za-z0-9_.=-])`],
  ["yandex-token", ["aqvn", "t1."], String.raw`(?:AQVN([A-Za-z0-9_-]{35,38})|t1\.([A-Za-z0-9_-]{10,}={0,2}\.[A-Za-z0-9_-]{86}={0,2}))` + RB, { group: 0 }],
  // Docker Swarm's join token (`docker swarm join-token` prints it) and K3s's (`K10<CA hash>::<user>:<password>` or `::<id>.<secret>`).
  ["docker-swarm-token", ["swmtkn-"], String.raw`SWMTKN-1-([a-z0-9]{50}-[a-z0-9]{25})` + RB],
  ["k3s-token", ["k10"], String.raw`K10([0-9a-f]{64}::[A-Za-z0-9_.:-]{6,200})` + String.raw`(?![A-Za-z0-9_.:-])`],
  ["tailscale-key", ["tskey-"], String.raw`tskey-(?:[a-z]{2,12}-)?([A-Za-z0-9_-]{20,120})` + String.raw`(?![A-Za-z0-9_-])`],
  ["teamwork-token", ["tkn.v1_"], String.raw`tkn\.v1_([A-Za-z0-9+/=_-]{40,120})` + String.raw`(?![A-Za-z0-9+/=_-])`],
  ["lob-api-key", ["live_", "test_"], String.raw`(?:live|test)_(?:pub_)?([a-f0-9]{35})` + RB],
  ["apify-token", ["apify_api_"], String.raw`apify_api_([${B62}]{36})` + RB],
  ["pagarme-key", ["ak_live_", "ak_test_"], String.raw`ak_(?:live|test)_([${B62}]{30})` + RB],
  ["bannerbear-key", ["bb_pr_", "bb_ma_"], String.raw`bb_(?:pr|ma)_([a-f0-9]{30})` + RB],
  ["aws-appsync-key", ["da2-"], String.raw`da2-([a-z0-9]{26})` + RB],
  ["aws-bedrock-api-key", ["bedrock-api-key-"], String.raw`bedrock-api-key-([A-Za-z0-9+/=]{20,2000})`],
  ["nightfall-key", ["nf-"], String.raw`NF-([${B62}]{32})` + RB],
  ["ramp-token", ["ramp_id_", "ramp_sec_", "ramp_tok_"], String.raw`ramp_(?:id|sec|tok)_([${B62}]{40,60})` + RB],
  ["rootly-token", ["rootly_"], String.raw`rootly_([a-f0-9]{64})` + RB],
  ["salad-cloud-key", ["salad_cloud_"], String.raw`salad_cloud_(?:org|user)_([${B62}]{40,60})` + RB],
  ["flexport-token", ["shltm_"], String.raw`shltm_([A-Za-z0-9_-]{40})` + String.raw`(?![A-Za-z0-9_-])`],
  ["spectralops-token", ["spu-"], String.raw`spu-([a-f0-9]{32})` + RB],
  ["pubnub-key", ["sub-c-", "pub-c-", "sec-c-"], String.raw`(?:sub|pub|sec)-c-([a-z0-9]{8}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{12}|[A-Za-z0-9]{40,60})` + RB],
  ["fleetbase-key", ["flb_live_", "flb_test_"], String.raw`flb_(?:live|test)_([${B62}]{20})` + RB],
  ["pganalyze-key", ["pgar_"], String.raw`pgar_([a-z0-9]{20,40})` + RB],
  ["besttime-key", ["pri_"], String.raw`pri_([a-f0-9]{32})` + RB],
  ["ubidots-token", ["bbff-", "bbus-"], String.raw`BB(?:FF|US)-([${B62}]{30})` + RB],
  ["linear-oauth-token", ["lin_oauth_"], String.raw`lin_oauth_([a-f0-9]{64})` + RB],
  ["doppler-token", ["dp.pt.", "dp.st.", "dp.sa.", "dp.ct."], String.raw`dp\.(?:pt|st|sa|ct)\.([A-Za-z0-9._]{40,80})` + RB],
  ["deno-token", ["ddp_", "ddw_"], String.raw`dd[pw]_([${B62}]{36})` + RB],
  ["render-api-key", ["rnd_"], String.raw`rnd_([${B62}]{32})` + RB],
  ["railway-token", ["railway_"], String.raw`railway_([${B62}]{32,64})` + RB],
  ["cohere-api-key", ["co_"], String.raw`co_([${B62}]{40})` + RB],
  ["elevenlabs-api-key", ["sk_"], String.raw`sk_([a-f0-9]{48})` + RB],
  ["convertapi-secret", ["secret_"], String.raw`secret_([${B62}]{16})` + RB, { accept: highEntropy(3.3) }],
  ["generic-sk-key", ["sk_", "rk_"], String.raw`(?:sk|rk)_(?:[a-z]{2,8}_){0,3}([A-Za-z0-9_]{16,200})` + RB, { priority: 2.4, accept: highEntropy(3.4) }],
  // Generic `sk-` (DeepSeek, Moonshot and others): lower priority, entropy floor.
  ["generic-sk-key", ["sk-"], String.raw`sk-([${B64U}]{20,200})`, { priority: 2.5, accept: highEntropy(3.2) }],
  // Package registries
  ["npm-token", ["npm_"], String.raw`npm_([${B62}]{36})` + RB, { checksum: crc }],
  ["pypi-token", ["pypi-age"], String.raw`pypi-(AgE[${B64U}]{50,1000})`],
  ["rubygems-api-key", ["rubygems_"], String.raw`rubygems_([a-z0-9]{48})` + RB],
  ["clojars-token", ["clojars_"], String.raw`CLOJARS_([a-z0-9]{60})` + RB],
  // Structural tokens
  ["jwt", ["eyj", "ewogic", "ewoid"], String.raw`(?:eyJ|ewogIC|ewoid)[${B64U}]{5,2048}\.((?:eyJ|ewo)[${B64U}]{5,8192}\.[${B64U}]{0,2048})` + String.raw`(?![A-Za-z0-9_.-])`, { priority: 2.9 }],
  ["private-key-base64", ["ls0tls1crudjtib"], String.raw`(LS0tLS1CRUdJTi[A-Za-z0-9+/]{40,16384}={0,2})`, { accept: (s) => isBase64PrivateKey(s) }],
];

function isBase64PrivateKey(s: string): boolean {
  const head = Buffer.from(s.slice(0, 64), "base64").toString("latin1");
  return /PRIVATE KEY/.test(head);
}

const specRule = ([kind, kws, src, o]: Spec): Rule => regexRule(kind, kws, o?.noLB ? src : LB + src, o);

/**
 * Every prefix rule as its own Rule object, built on call: for tests that
 * exercise one family at a time. The redactor uses `prefixRule`.
 *
 * @example
 * ```ts
 * for (const rule of prefixRules()) scan(text, [rule]);
 * ```
 */
export function prefixRules(): Rule[] {
  return SPECS.map(specRule);
}

/**
 * The family of `kind` that has a `run` shortcut (RegexRuleOpts.run) as a
 * rule, and the same without the shortcut: what a test holds it to.
 *
 * @example
 * ```ts
 * const { rule, plain } = familyRules("flyio-token")!;
 * ```
 */
export function familyRules(kind: string): { rule: Rule; plain: Rule } | undefined {
  const spec = SPECS.find((x) => x[0] === kind && x[3]?.run !== undefined);
  return spec && { rule: specRule(spec), plain: specRule([spec[0], spec[1], spec[2], { ...spec[3], run: undefined }]) };
}

// Built on the first scan, and then only for the families whose keyword
// occurred: a hook that redacts a clean record builds none of them.
let byKeyword: Map<string, number[]> | undefined;
const built: (Rule | undefined)[] = [];

function specsFor(kw: string): readonly number[] {
  if (!byKeyword) {
    byKeyword = new Map();
    for (let i = 0; i < SPECS.length; i++) {
      for (const k of SPECS[i]![1]) {
        let l = byKeyword.get(k);
        if (!l) byKeyword.set(k, (l = []));
        l.push(i);
      }
    }
  }
  return byKeyword.get(kw) ?? [];
}

let keywordsOf: string[] | undefined;
let kindsOf: string[] | undefined;

/**
 * All prefix families as one rule that dispatches each keyword's hits to the
 * families using that keyword, building a family's rule on its first hit.
 *
 * @example
 * ```ts
 * scan("x ghp_" + "a1B2".repeat(9), [prefixRule]); // one github-pat finding
 * ```
 */
export const prefixRule: Rule = {
  get kinds(): readonly string[] {
    return (kindsOf ??= [...new Set(SPECS.map((x) => x[0]))]);
  },
  get keywords(): readonly string[] {
    return (keywordsOf ??= [...new Set(SPECS.flatMap((x) => x[1]))]);
  },
  patterns: () => prefixRules().flatMap((r) => r.patterns!()),
  scan(ctx, pos, kw) {
    for (const i of specsFor(kw)) (built[i] ??= specRule(SPECS[i]!)).scan(ctx, pos, kw);
  },
  scanHits(ctx, hits) {
    const touched = new Set<number>();
    for (const kw of hits.keys()) for (const i of specsFor(kw)) touched.add(i);
    for (const i of touched) {
      const rule = (built[i] ??= specRule(SPECS[i]!));
      const kws = SPECS[i]![1];
      let only: string | undefined;
      let n = 0;
      for (const kw of kws) if (hits.has(kw)) ((only = kw), n++);
      if (n === 1) {
        for (const p of hits.get(only!)!) rule.scan(ctx, p, only!);
        continue;
      }
      // Several keywords of one family: in position order, so its memo holds.
      const merged: [number, string][] = [];
      for (const kw of kws) for (const p of hits.get(kw) ?? []) merged.push([p, kw]);
      merged.sort((x, y) => x[0] - y[0]);
      for (const [p, kw] of merged) rule.scan(ctx, p, kw);
    }
  },
};
