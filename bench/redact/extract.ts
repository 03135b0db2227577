/**
 * Extracts a held-out corpus from public secret scanners' own test fixtures,
 * read from local git mirrors (the `fetch` tool's /work/.mirror, or any clone):
 *
 * - gitleaks (MIT) `cmd/generate/config/rules/*.go`: literal true and false
 *   positives, and `secrets.NewSecret(<regex>)` samples generated here from
 *   the rule's own regex with a seeded generator;
 * - detect-secrets (Apache-2.0) `tests/plugins/*_test.py`: parametrized
 *   `(line, True/False)` cases;
 * - trufflehog (AGPL-3.0) `pkg/detectors/*\/*_test.go`: each pattern test's
 *   `input` and `want`. Its fixtures are AGPL, so they are extracted at bench
 *   time into a git-ignored file and never committed.
 *
 *   bun bench/redact/extract.ts [--gitleaks DIR] [--detect-secrets DIR] [--trufflehog DIR]
 *
 * Writes bench/redact/external/fixtures.json (gitleaks + detect-secrets,
 * committed) and bench/redact/external/trufflehog.json (git-ignored).
 * Secrets in these fixtures are the projects' own fake ones.
 */
import { prng } from "../../test/support/prng.ts";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

/** One positive: a fixture's own text (`context`) and the secrets in it. */
export interface Positive {
  readonly src: "gitleaks" | "detect-secrets" | "trufflehog";
  /** Rule or detector the fixture belongs to (the "kind"). */
  readonly kind: string;
  readonly context: string;
  readonly secrets: readonly string[];
}

/** A fixture its scanner says holds no secret ("almost secret" negatives). */
export interface Negative {
  readonly src: Positive["src"];
  readonly kind: string;
  readonly text: string;
}

export interface Extracted {
  readonly positives: Positive[];
  readonly negatives: Negative[];
}

const MIRROR = "/work/.mirror";
const OUT = join(import.meta.dir, "external");

// ------------------------------------------------------------------ git I/O

function gitFiles(repo: string, prefix: string, re: RegExp): string[] {
  const out = execFileSync("git", ["-C", repo, "ls-tree", "-r", "--name-only", "HEAD", prefix], { encoding: "utf8", maxBuffer: 64 << 20 });
  return out.split("\n").filter((p) => re.test(p));
}

/** Reads many blobs at once (`git cat-file --batch`). */
function gitRead(repo: string, paths: readonly string[]): Map<string, string> {
  const res = new Map<string, string>();
  if (paths.length === 0) return res;
  const buf = execFileSync("git", ["-C", repo, "cat-file", "--batch"], { input: paths.map((p) => `HEAD:${p}`).join("\n") + "\n", maxBuffer: 1 << 30 });
  let at = 0;
  for (const p of paths) {
    const nl = buf.indexOf(10, at);
    const header = buf.subarray(at, nl).toString();
    at = nl + 1;
    const m = /^\S+ blob (\d+)$/.exec(header);
    if (!m) continue;
    const n = Number(m[1]);
    res.set(p, buf.subarray(at, at + n).toString("utf8"));
    at += n + 1;
  }
  return res;
}

// ------------------------------------------------- a tiny Go expression reader


/**
 * A random string matching a simple regex (literals, escapes, classes,
 * groups with `|`, `{n}`, `{m,n}`, `?`, `+`, `*`), as gitleaks' NewSecret does.
 */
export function generate(pattern: string, rand: () => number): string | undefined {
  let i = 0;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const classOf = (): string[] => {
    // at '[' already consumed
    const chars: string[] = [];
    let neg = false;
    if (pattern[i] === "^") {
      neg = true;
      i++;
    }
    while (i < pattern.length && pattern[i] !== "]") {
      let c = pattern[i++]!;
      if (c === "\\") {
        const e = pattern[i++]!;
        if (e === "d") {
          for (let k = 48; k < 58; k++) chars.push(String.fromCharCode(k));
          continue;
        }
        if (e === "w") {
          chars.push(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
          continue;
        }
        c = e;
      }
      if (pattern[i] === "-" && pattern[i + 1] !== "]" && i + 1 < pattern.length) {
        const hi = pattern[i + 1] === "\\" ? pattern[i + 2]! : pattern[i + 1]!;
        i += pattern[i + 1] === "\\" ? 3 : 2;
        for (let k = c.charCodeAt(0); k <= hi.charCodeAt(0); k++) chars.push(String.fromCharCode(k));
      } else chars.push(c);
    }
    i++;
    if (neg) return [..."abcdefghijklmnopqrstuvwxyz0123456789"].filter((c) => !chars.includes(c));
    return chars;
  };
  const atom = (): (() => string) | undefined => {
    const c = pattern[i++];
    if (c === undefined) return undefined;
    if (c === "(") {
      if (pattern.startsWith("?:", i)) i += 2;
      else if (pattern.startsWith("?i)", i)) {
        i += 3;
        return () => "";
      } else if (pattern[i] === "?") return undefined;
      const alts = alternation();
      if (pattern[i] !== ")") return undefined;
      i++;
      if (!alts) return undefined;
      return () => pick(alts)();
    }
    if (c === "[") {
      const cls = classOf();
      if (cls.length === 0) return undefined;
      return () => pick(cls);
    }
    if (c === "\\") {
      const e = pattern[i++]!;
      if (e === "d") return () => String(Math.floor(rand() * 10));
      if (e === "w") return () => pick([..."abcdefghijklmnopqrstuvwxyz0123456789"]);
      if (e === "s") return () => " ";
      if (e === "b") return () => "";
      return () => e;
    }
    if (c === "." ) return () => pick([..."abcdefghijklmnopqrstuvwxyz0123456789"]);
    if (c === "^" || c === "$") return () => "";
    return () => c;
  };
  const sequence = (): (() => string) | undefined => {
    const parts: (() => string)[] = [];
    while (i < pattern.length && pattern[i] !== "|" && pattern[i] !== ")") {
      const a = atom();
      if (!a) return undefined;
      let lo = 1;
      let hi = 1;
      const q = pattern[i];
      if (q === "{") {
        const m = /^\{(\d+)(?:,(\d*))?\}/.exec(pattern.slice(i));
        if (!m) return undefined;
        lo = Number(m[1]);
        hi = m[2] === undefined ? lo : m[2] === "" ? lo + 8 : Number(m[2]);
        i += m[0].length;
      } else if (q === "?") ((lo = 0), (hi = 1), i++);
      else if (q === "+") ((lo = 1), (hi = 4), i++);
      else if (q === "*") ((lo = 0), (hi = 4), i++);
      if (pattern[i] === "?") i++;
      const [l, h] = [lo, hi];
      parts.push(() => {
        const n = l + Math.floor(rand() * (h - l + 1));
        let s = "";
        for (let k = 0; k < n; k++) s += a();
        return s;
      });
    }
    return () => parts.map((p) => p()).join("");
  };
  const alternation = (): (() => string)[] | undefined => {
    const alts: (() => string)[] = [];
    for (;;) {
      const s = sequence();
      if (!s) return undefined;
      alts.push(s);
      if (pattern[i] !== "|") return alts;
      i++;
    }
  };
  const alts = alternation();
  if (!alts || i !== pattern.length) return undefined;
  return pick(alts)();
}

type Env = Map<string, string[]>;

/** Reads Go expressions that build strings: literals, names, `+`, fmt.Sprintf, and the gitleaks helpers. */
class GoReader {
  i = 0;
  constructor(readonly src: string, readonly env: Env, readonly rand: () => number) {}

  ws(): void {
    for (;;) {
      while (this.i < this.src.length && /\s/.test(this.src[this.i]!)) this.i++;
      if (this.src.startsWith("//", this.i)) {
        const nl = this.src.indexOf("\n", this.i);
        this.i = nl < 0 ? this.src.length : nl;
        continue;
      }
      return;
    }
  }

  /** One string-valued expression (possibly several values, for a []string name); undefined if unknown. */
  expr(): string[] | undefined {
    let acc = this.term();
    for (;;) {
      const save = this.i;
      this.ws();
      if (this.src[this.i] !== "+") {
        this.i = save;
        return acc;
      }
      this.i++;
      this.ws();
      const rhs = this.term();
      if (!acc || !rhs || acc.length !== 1 || rhs.length !== 1) return undefined;
      acc = [acc[0]! + rhs[0]!];
    }
  }

  args(): (string[] | undefined)[] | undefined {
    this.ws();
    if (this.src[this.i] !== "(") return undefined;
    this.i++;
    const out: (string[] | undefined)[] = [];
    for (;;) {
      this.ws();
      if (this.src[this.i] === ")") {
        this.i++;
        return out;
      }
      out.push(this.expr());
      this.ws();
      if (this.src[this.i] === ",") this.i++;
      else if (this.src[this.i] !== ")") return undefined;
    }
  }

  term(): string[] | undefined {
    this.ws();
    const s = this.src;
    const c = s[this.i];
    if (c === "`") {
      const end = s.indexOf("`", this.i + 1);
      const v = s.slice(this.i + 1, end);
      this.i = end + 1;
      return [v];
    }
    if (c === '"') {
      let j = this.i + 1;
      while (j < s.length && s[j] !== '"') j += s[j] === "\\" ? 2 : 1;
      const lit = s.slice(this.i, j + 1);
      this.i = j + 1;
      try {
        return [JSON.parse(lit.replace(/\\x([0-9a-fA-F]{2})/g, "\\u00$1").replace(/\\'/g, "'"))];
      } catch {
        return undefined;
      }
    }
    const m = /^[A-Za-z_][\w.]*/.exec(s.slice(this.i, this.i + 200));
    if (!m) return undefined;
    const name = m[0];
    this.i += name.length;
    if (name === "fmt.Sprintf") {
      const a = this.args();
      if (!a || !a[0] || a.some((x) => !x || x.length !== 1)) return undefined;
      let k = 1;
      const v = a[0][0]!.replace(/%[sqvd]/g, (f) => {
        const x = a[k++]?.[0] ?? "";
        return f === "%q" ? JSON.stringify(x) : x;
      });
      return [v];
    }
    if (name === "strings.Repeat") {
      const a = this.args();
      const n = Number(/^\s*(\d+)/.exec(s.slice(this.i - 8, this.i))?.[1] ?? "0");
      return a?.[0] ? [a[0][0]!.repeat(n || 1)] : undefined;
    }
    const helper = /^utils\.(Numeric|Hex|AlphaNumeric|AlphaNumericExtendedShort|AlphaNumericExtended|AlphaNumericExtendedLong|Hex8_4_4_4_12)$/.exec(name);
    if (helper) {
      const a = this.args();
      const n = a?.[0]?.[0] ?? "";
      const cls: Record<string, string> = {
        Numeric: `[0-9]{${n}}`, Hex: `[a-f0-9]{${n}}`, AlphaNumeric: `[a-z0-9]{${n}}`, AlphaNumericExtendedShort: `[a-z0-9_-]{${n}}`,
        AlphaNumericExtended: `[a-z0-9=_\\-]{${n}}`, AlphaNumericExtendedLong: `[a-z0-9\\/=_\\+\\-]{${n}}`,
        Hex8_4_4_4_12: `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`,
      };
      return [cls[helper[1]!]!];
    }
    if (name === "secrets.NewSecret") {
      const a = this.args();
      const p = a?.[0]?.[0];
      const v = p === undefined ? undefined : generate(p, this.rand);
      return v === undefined ? undefined : [v];
    }
    if (name === "utils.GenerateSampleSecret" || name === "utils.GenerateSampleSecrets") {
      const a = this.args();
      const id = a?.[0]?.[0];
      const secret = a?.[1]?.[0];
      if (id === undefined || secret === undefined) return undefined;
      // Marked so the caller knows which part is the secret.
      return [`\u0001${id}\u0002${secret}`];
    }
    // A call we do not model.
    this.ws();
    if (s[this.i] === "(") {
      this.args();
      return undefined;
    }
    return this.env.get(name);
  }
}

/** `name = expr` and `name := expr` bindings of string expressions, in order. */
function bindings(src: string, rand: () => number): Env {
  const env: Env = new Map();
  const re = /(?:^|\n)\s*(?:const\s+|var\s+)?([A-Za-z_]\w*)\s*(?::=|=)\s*/g;
  for (const m of src.matchAll(re)) {
    const r = new GoReader(src, env, rand);
    r.i = m.index + m[0].length;
    if (src.startsWith("[]string{", r.i)) {
      r.i += 9;
      const list = stringList(r);
      if (list) env.set(m[1]!, list);
      continue;
    }
    const v = r.expr();
    if (v) env.set(m[1]!, v);
  }
  return env;
}

/** The items of a `{…}` string list, reader positioned after `{`. */
function stringList(r: GoReader): string[] | undefined {
  const out: string[] = [];
  for (;;) {
    r.ws();
    if (r.src[r.i] === "}") {
      r.i++;
      return out;
    }
    const v = r.expr();
    if (v) out.push(...v);
    else {
      // skip to the next item
      while (r.i < r.src.length && r.src[r.i] !== "," && r.src[r.i] !== "}") r.i++;
    }
    r.ws();
    if (r.src[r.i] === ",") r.i++;
    else if (r.src[r.i] !== "}") return undefined;
  }
}

// ---------------------------------------------------------------- gitleaks

/** The forms gitleaks' GenerateSampleSecrets puts a secret in, reduced to a few contexts. */
function gitleaksSample(id: string, secret: string): string {
  return `${id}_api_token = "${secret}"`;
}

function extractGitleaks(repo: string, rand: () => number): Extracted {
  const files = gitFiles(repo, "cmd/generate/config/rules", /\.go$/);
  const texts = gitRead(repo, files);
  const positives: Positive[] = [];
  const negatives: Negative[] = [];
  for (const [path, src] of texts) {
    // Each rule function: its RuleID, then tps/fps.
    const funcs = src.split(/\nfunc /).slice(1);
    for (const f of funcs) {
      const id = /RuleID:\s*"([^"]+)"/.exec(f)?.[1];
      if (!id) continue;
      const env = bindings(f, rand);
      for (const [name, values] of env) {
        if (!/^(tps|fps|truePositives|falsePositives|tp|fp)\w*$/i.test(name)) continue;
        const positive = /^(tps|truePositives|tp)/i.test(name);
        for (const v of values) {
          if (v.startsWith("\u0001")) {
            const [sid, secret] = v.slice(1).split("\u0002") as [string, string];
            if (positive) positives.push({ src: "gitleaks", kind: id, context: gitleaksSample(sid, secret), secrets: [secret] });
            continue;
          }
          if (positive) {
            const secret = secretIn(v);
            if (secret) positives.push({ src: "gitleaks", kind: id, context: v, secrets: [secret] });
          } else negatives.push({ src: "gitleaks", kind: id, text: v });
        }
      }
      // `tps = append(tps, utils.GenerateSampleSecrets(...)...)` and literal appends.
      for (const m of f.matchAll(/tps\s*=\s*append\(tps,\s*/g)) {
        const r = new GoReader(f, env, rand);
        r.i = m.index + m[0].length;
        const v = r.expr();
        for (const x of v ?? []) {
          if (x.startsWith("\u0001")) {
            const [sid, secret] = x.slice(1).split("\u0002") as [string, string];
            positives.push({ src: "gitleaks", kind: id, context: gitleaksSample(sid, secret), secrets: [secret] });
          } else {
            const secret = secretIn(x);
            if (secret) positives.push({ src: "gitleaks", kind: id, context: x, secrets: [secret] });
          }
        }
      }
    }
    void path;
  }
  return { positives, negatives };
}

/**
 * The secret inside a literal true-positive line when the fixture does not
 * mark it: the value after the last `=`/`:` (quotes stripped), else the
 * longest token.
 */
function secretIn(line: string): string | undefined {
  const userinfo = /:\/\/[^:/@\s"']+:([^@\s"']+)@/.exec(line);
  if (userinfo) return userinfo[1];
  const user = /(?:-u|--user)\s+["']?[^:\s"']*:["']?([^\s"']+)/.exec(line);
  if (user) return user[1];
  const authz = /Authorization:\s*(?:[A-Za-z-]+\s+)?([^\s"'\\]{8,})/i.exec(line);
  if (authz) return authz[1];
  const assigned = /[:=]\s*["'`]?([^"'`\s,;]{8,})["'`]?\s*[,;]?\s*$/.exec(line.trim());
  if (assigned && !/^https?:/.test(assigned[1]!)) return assigned[1];
  const toks = line.match(/[A-Za-z0-9+/=_.~:@-]{12,}/g) ?? [];
  return toks.sort((a, b) => b.length - a.length)[0];
}

// ----------------------------------------------------------- detect-secrets

function pyString(lit: string): string | undefined {
  const q = lit[0];
  const body = lit.slice(1, -1);
  if (q !== "'" && q !== '"') return undefined;
  try {
    return JSON.parse('"' + body.replace(/\\'/g, "'").replace(/"/g, '\\"').replace(/\\\\"/g, '\\"') + '"');
  } catch {
    return body;
  }
}

function extractDetectSecrets(repo: string): Extracted {
  const files = gitFiles(repo, "tests/plugins", /_test\.py$/);
  const texts = gitRead(repo, files);
  const positives: Positive[] = [];
  const negatives: Negative[] = [];
  for (const [path, src] of texts) {
    const kind = path.replace(/^.*\//, "").replace(/_test\.py$/, "");
    // (payload, True|False) tuples in parametrize lists; adjacent literals are concatenated.
    const re = /\(\s*((?:(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")\s*)+),\s*(True|False)\s*,?\s*\)/g;
    for (const m of src.matchAll(re)) {
      const parts = m[1]!.match(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g) ?? [];
      const text = parts.map((p) => pyString(p) ?? "").join("");
      if (text.length < 8) continue;
      if (m[2] === "True") {
        const secret = secretIn(text);
        if (secret) positives.push({ src: "detect-secrets", kind, context: text, secrets: [secret] });
      } else negatives.push({ src: "detect-secrets", kind, text });
    }
  }
  return { positives, negatives };
}

// --------------------------------------------------------------- trufflehog

function extractTrufflehog(repo: string, rand: () => number): Extracted {
  const files = gitFiles(repo, "pkg/detectors", /^pkg\/detectors\/[^/]+\/(?:[^/]+\/)?[^/]+_test\.go$/).filter((p) => !/integration/.test(p));
  const texts = gitRead(repo, files);
  const positives: Positive[] = [];
  const negatives: Negative[] = [];
  for (const [path, src] of texts) {
    if (!/input:/.test(src)) continue;
    const kind = path.split("/")[2]!;
    const env = bindings(src, rand);
    for (const m of src.matchAll(/\binput:\s*/g)) {
      const r = new GoReader(src, env, rand);
      r.i = m.index + m[0].length;
      const input = r.expr();
      if (!input || input.length !== 1) continue;
      r.ws();
      if (r.src[r.i] === ",") r.i++;
      r.ws();
      if (!r.src.startsWith("want:", r.i)) continue;
      r.i += 5;
      r.ws();
      if (!r.src.startsWith("[]string{", r.i)) continue;
      r.i += 9;
      const want = stringList(r);
      if (!want) continue;
      const text = input[0]!;
      if (want.length === 0) {
        negatives.push({ src: "trufflehog", kind, text });
        continue;
      }
      // Wanted values are often composites (`id:secret`, id+secret): keep the parts present verbatim.
      const secrets = new Set<string>();
      for (const w of want) {
        if (text.includes(w)) secrets.add(w);
        else for (const p of w.split(/[:;|,\s]+/)) if (p.length >= 8 && text.includes(p)) secrets.add(p);
      }
      // Parts of a composite `want` that are not secrets: emails, host names, JSON key names, PEM markers.
      for (const x of [...secrets]) if (/^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i.test(x) || /^(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?$/i.test(x) || /["]|-----/.test(x)) secrets.delete(x);
      if (secrets.size > 0) positives.push({ src: "trufflehog", kind, context: text, secrets: [...secrets] });
    }
  }
  return { positives, negatives };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      gitleaks: { type: "string", default: join(MIRROR, "gitleaks+gitleaks/repo") },
      "detect-secrets": { type: "string", default: join(MIRROR, "Yelp+detect-secrets/repo") },
      trufflehog: { type: "string", default: join(MIRROR, "trufflesecurity+trufflehog/repo") },
    },
  });
  mkdirSync(OUT, { recursive: true });
  const rand = prng(20261130);
  const open: Extracted = { positives: [], negatives: [] };
  let read = 0;
  for (const [name, dir, fn] of [
    ["gitleaks", values.gitleaks!, (d: string) => extractGitleaks(d, rand)],
    ["detect-secrets", values["detect-secrets"]!, extractDetectSecrets],
  ] as const) {
    if (!existsSync(dir)) {
      console.warn(`${name}: no mirror at ${dir}; skipped`);
      continue;
    }
    const x = fn(dir);
    console.log(`${name}: ${x.positives.length} positives (${new Set(x.positives.map((p) => p.kind)).size} kinds), ${x.negatives.length} negatives`);
    open.positives.push(...x.positives);
    open.negatives.push(...x.negatives);
    read++;
  }
  // Only both sources replace the committed set: one missing mirror must not shrink it to the other.
  if (read === 2) writeFileSync(join(OUT, "fixtures.json"), JSON.stringify(open, null, 1) + "\n");
  else console.warn("fixtures.json kept as committed: it is written only when both gitleaks and detect-secrets are read");
  if (existsSync(values.trufflehog!)) {
    // A generator of its own: the set does not depend on whether the other mirrors were there.
    const t = extractTrufflehog(values.trufflehog!, prng(20261203));
    console.log(`trufflehog: ${t.positives.length} positives (${new Set(t.positives.map((p) => p.kind)).size} kinds), ${t.negatives.length} negatives (git-ignored: AGPL fixtures)`);
    writeFileSync(join(OUT, "trufflehog.json"), JSON.stringify(t) + "\n");
  } else console.warn(`trufflehog: no mirror at ${values.trufflehog}; skipped`);
}
