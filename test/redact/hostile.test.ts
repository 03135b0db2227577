/**
 * Texts built to cost the redactor the hook's deadline: an agent writes its
 * own output, so it can print any shape it likes. Each of these once cost
 * hundreds of times what ordinary output of the same size costs (BEGIN lines
 * with no END searched the rest of the text each; keys whose values nest in
 * each other re-read 4,096 characters per hit; one cluster of thousands of
 * overlapping finds was resolved pair by pair). The bound is a generous
 * ratio against a build log of the same size, never a wall-clock limit; and
 * what replaced each slow path is checked against the path it replaced.
 */
import { describe, expect, test } from "bun:test";
import { buildLog } from "../../bench/redact/corpus.ts";
import { resolve, scan } from "../../lib/redact/engine.ts";
import { createRedactor } from "../../lib/redact/index.ts";
import { afterArnColon } from "../../lib/redact/keys.ts";
import { familyRules } from "../../lib/redact/prefix.ts";
import { CLI_RULES, plainCliRules } from "../../lib/redact/rules/cli-flags.ts";
import type { Finding } from "../../lib/redact/types.ts";
import { bestMs } from "../support/timing.ts";
import { Gen, rng } from "./shapes.ts";

const r = createRedactor({ fingerprintKey: "k" });
const SIZE = 256 * 1024;
const fill = (unit: string): string => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);

const cost = (s: string): number => bestMs(() => r.text(s));

/** `text`'s bytes as `xxd` prints them. */
function xxdOf(text: string): string {
  const bytes = Buffer.from(text, "latin1");
  let out = "";
  for (let i = 0; i < bytes.length; i += 16) {
    const line = [...bytes.subarray(i, i + 16)];
    const hex = line.map((b) => b.toString(16).padStart(2, "0")).join("").match(/.{1,4}/g)!.join(" ");
    out += `${i.toString(16).padStart(8, "0")}: ${hex.padEnd(40)} ${line.map((b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : ".")).join("")}\n`;
  }
  return out;
}

describe("a hostile 256 KB costs at most 100x what a 256 KB build log costs", () => {
  const log = buildLog(SIZE);
  for (const [name, text] of [
    ["certificate BEGIN lines with no END", fill("-----BEGIN CERTIFICATE-----\n")],
    ["certificate BEGIN lines and base64, no END", fill(`-----BEGIN CERTIFICATE-----\nMIIB${"A".repeat(60)}\n`)],
    ["private-key BEGIN lines with no END", fill("-----BEGIN RSA PRIVATE KEY-----\n")],
    ["keys whose values nest: token=token=…", fill("token=")],
    ["Wi-Fi keys whose values nest: psk=psk=…", fill("psk=")],
    ["ARN-like colons: :secret::secret:…", fill(":secret:")],
    ["a password label chain", fill("password: ")],
    ["a Kubernetes Secret of thousands of data: lines", fill(`kind: Secret\n${"data:\n".repeat(16_000)}---\n`)],
    ["data: lines before their kind: Secret", fill(`${"data:\n".repeat(3000)}kind: Secret\n`)],
    ["PowerShell prompt heads with no '> '", fill("PS ")],
    ["Authorization headers whose values nest", fill("authorization:")],
    ["Cookie headers whose values nest", fill("cookie: ")],
    ["fly.io token heads in one long run: -fm2_-fm2_…", fill("-fm2_")],
    ["GitHub ghs_ heads in one long run: -ghs_1_-ghs_1_…", fill("-ghs_1_")],
    ["command-line flags with no command: -p -p -p …", fill(" -p ")],
    // Every line one symbol-bearing word the alone-line rule must judge whole.
    ["one-word password-shaped lines: aB3$cD4%eF5^gH6&", fill("aB3$cD4%eF5^gH6&\n")],
    ["one-word lines that fail late: dev@Laptop-7:~/proj$", fill("dev@Laptop-7:~/proj$\n")],
    // Secrets handed on standard input, setters and connection strings (rules/stdin.ts, setter.ts, connection.ts).
    ["here-strings with no reader: <<<<<<…", fill("<<<")],
    ["echoes piped into echoes: echo x | echo x | …", fill("echo x | ")],
    ["process substitutions after a password flag: --password-file=<(echo …", fill("--password-file=<(echo ")],
    ["ODBC pairs whose values nest: Pwd=Pwd=…", fill("Pwd=")],
    ["ODBC braced values never closed: Pwd={Pwd={…", fill("Pwd={")],
    ["setter calls with no value: define('DB_PASSWORD', define(…", fill("define('DB_PASSWORD', ")],
    ["pgpass ports in one long line: :5432::5432:…", fill(":5432:")],
    ["positional-password commands with no password: rabbitmqctl add_user …", fill("rabbitmqctl add_user ")],
    ["redis prompts of AUTH: 6379> AUTH 6379> AUTH …", fill("6379> AUTH ")],
    ["fish set flags with no name: set -x set -x …", fill("set -x ")],
    ["environment pairs, every one a find: DB_PASSWORD=Word DB_PASSWORD=Word …", fill(" DB_PASSWORD=CorrectHorse")],
    // Hex dumps (rules/dump.ts): first lines that each open a dump of one byte, and one dump whose bytes are dense with finds.
    ["xxd first lines, each its own dump: 00000000: 00 …", fill("00000000: 00\n")],
    ["od -c first lines, each its own dump", fill("0000000   a\n")],
    ["hexdump -C first lines, each its own dump", fill("00000000  41 42  |AB|\n")],
    ["an xxd dump of password=… pairs", xxdOf(fill("password=Xy9#kQ2mZ7 token=ab12 ")).slice(0, SIZE)],
    // Lines past offset 0 (any line of every layout now opens a dump): each its own dump of a line of text.
    ["xxd lines past offset 0, each its own dump", fill("00000010: 7061 7373 776f 7264 3d58 7939 236b 5132  password=Xy9#kQ2\n")],
    ["plain hexdump word lines, each its own dump", fill("0000010 6170 7373 6f77 6472 583d 3979 6b23 3251\n")],
    ["od -t x1 lines, each its own dump", fill("0000020 70 61 73 73 77 6f 72 64 3d 58 79 39 23 6b 51 32\n")],
    ["lines that open like a dump and are not: 00000010  zz", fill("00000010  zz 0: 0  0000000 \n")],
    // Byte lists (byteListRule): one long Buffer of password=… pairs, and heads that each open a short one.
    ["a Buffer in JSON of password=… pairs", JSON.stringify(Buffer.from(fill("password=Xy9#kQ2mZ7 ").slice(0, SIZE / 4))).slice(0, SIZE)],
    ["Node Buffer heads, each of 8 bytes", fill("<Buffer 70 61 73 73 3d 58 79 39>\n")],
    ["JSON Buffer heads with no values", fill('{"type":"Buffer","data":[')],
    // JSON escaped twice (rules/nested-json.ts): short lines, each a window's worth of rescans, and one long line.
    ["lines of JSON escaped twice, each an object", fill('{\\\\\\"a\\\\\\":1}\n')],
    ["JSON escaped twice, password pairs on one line", fill('\\\\\\"password\\\\\\":\\\\\\"Xy9#kQ2mZ7\\\\\\",')],
    ["escaped quotes alone, one long line", fill('\\\\\\"')],
    // HTML entities (rules/escaped.ts): quotes alone, and a page of password pairs.
    ["&quot; alone, one long line", fill("&quot;")],
    ["a page of &quot;password&quot; pairs", fill("&quot;password&quot;:&quot;Xy9#kQ2mZ7&quot;,")],
    ["Go byte-array heads, each of 8 literals", fill("[]byte{0x70, 0x61, 0x73, 0x73, 0x3d, 0x58, 0x79, 0x39}\n")],
    ["one xxd -i array of password=… pairs", `unsigned char x[] = {\n${[...Buffer.from(fill("password=Xy9#kQ2mZ7 ").slice(0, SIZE / 6))].map((b) => `0x${b.toString(16)}`).join(", ")}\n};`.slice(0, SIZE)],
    // Hex of text (rules/encoded.ts): lines that join into one decoded block, and one run of hex.
    ["xxd -p lines of password=… pairs", fill(`${Buffer.from("password=Xy9#kQ2mZ7 ").toString("hex")}\n`)],
    ["one hex run of password=password=…", fill("70617373776f72643d")],
    // A bare value under a connection string's key is read to its line's end for its pairs (context.ts barePairList).
    ["connection-string keys on one long line: ConnectionString=A=b;…", fill("ConnectionString=A=b;")],
    // Environment reads' defaults, a template's default filter, Go's DSN (rules/env-default.ts, connection.ts).
    ["secret-named reads with no default: process.env.DB_PASSWORD || process.env.DB_PASSWORD || …", fill("process.env.DB_PASSWORD || ")],
    ["getenv calls nested in their own default: getenv('API_TOKEN', getenv('API_TOKEN', …", fill("getenv('API_TOKEN', ")],
    ["template default filters with no value: {{ db_password | default {{ …", fill("{{ db_password | default ")],
    ["DSN protocols after long userinfo: u:xxxx…@tcp(", fill(`u:${"x".repeat(300)}@tcp(`)],
    ["PowerShell variables with no value: Set-Variable -Name DbPassword …", fill("Set-Variable -Name DbPassword ")],
    ["fetchmail poll lines with no password: poll x user bob password poll …", fill("poll x user bob password ")],
    ["password comments, every line one: # password: Abc1", fill("# password: Abc1\n")],
    // Markdown and XML layouts (rules/markup.ts): each table row is read once, a long line once.
    ["secret words on one long line: password token secret key …", fill("password token secret key ")],
    ["table rows of secret names: | password | password …", fill("| password ")],
    ["lines of bars alone: \\n|\\n|…, every line a row opener", fill("\n|")],
    ["box rows of secret names", fill("│ DB_PASSWORD │ Word1Word │\n")],
    ["a password column of thousands of rows", fill(`| Password |\n|---|\n${"| Word1Word |\n".repeat(20_000)}`)],
    ["bold labels with no value: **a password:** **a password:** …", fill("**a password:** ")],
    ["prose about passwords, every word a noun and a verb: password is password is …", fill("password is ")],
    ["inline env lines: `DB_PASSWORD=Word1` `DB_PASSWORD=Word1` …", fill("`DB_PASSWORD=Word1` ")],
    // Each YAML password line reads the lines above it for a parent.
    ["YAML password lines under long siblings", fill(`  password: CorrectHorseBattery\n  k: ${"x".repeat(240)}\n`)],
    ["YAML password lines, every line", fill("  password: CorrectHorseBattery\n")],
    // The thirteenth session's shapes: pairs on a line, prose labels, a password right after its noun, quoted flags, prompts.
    ["pairs before a password's word: k: v, k: v, … password: Word", fill(`${"k: v, ".repeat(30)}password: CorrectHorse\n`)],
    ["prose words before a password key, every line", fill("Generated generated generated generated password: CorrectHorse\n")],
    ["a password noun before long symbol runs: password Aa1!Aa1!…", fill(`password ${"Aa1!".repeat(70)} `)],
    ["setup-passwords lines: PASSWORD x = …", fill("\nPASSWORD a = b")],
    ["quoted mysql passwords never closed: mysql -p'…", fill("mysql -p'")],
    ["prompt lines over YAML password lines", fill("$ cat x.yml\npassword: CorrectHorse\n")],
    ["hashing calls never closed: bcrypt.hash('bcrypt.hash('…", fill("bcrypt.hash('")],
    ["an Azure server create with -p flags and no value", fill("az sql server create -p ")],
    ["rclone config creates with no pass: rclone config create rclone config create …", fill("rclone config create ")],
    // A YAML password line inside a hunk reads up to the hunk's header (memoised per hunk).
    ["a hunk of YAML password lines, every line", fill(`@@ -1,9 +1,9 @@\n${"-  password: oldSecret42\n+  password: newSecret43\n".repeat(4000)}`)],
    ["context lines of YAML passwords with no hunk header", fill("   password: ctxSecret42\n")],
    // The fourteenth session's other shapes: credential objects, declared types and wrappers before a literal, `with password`, `#` in userinfo.
    ["credential objects never closed: new NetworkCredential(new NetworkCredential(…", fill("new NetworkCredential(")],
    ["declared types with no literal: password: String = password: String = …", fill("password: String = ")],
    ["wrappers with no literal: password = Some(String::from(…", fill("password = Some(String::from(")],
    ["with password, over and over", fill("with password ")],
    ["URL userinfo of hashes with no @: x://:#x://:#…", fill("x://:#")],
    ["password fills never closed: cy.get('#password').type(cy.get(…", fill("cy.get('#password').type(")],
    ["target-first fills of password fields with no literal: page.fill('#password', …", fill("page.fill('#password', ")],
    ["login helpers never closed: login('a', login('a', …", fill("login('a', ")],
    ["INSERT heads with no VALUES: insert into t (password) insert into …", fill("insert into t (password) ")],
    ["INSERT tuples never closed: insert into t (password) values ('x', (…", fill("insert into t (password) values ('x', (")],
    ["terraform plan arrows with no key: \" -> \" -> \" …", fill('" -> "')],
    ["a terraform plan line of long old values: ~ password = \"xxx…\" -> \"", fill(`  ~ password = "${"x".repeat(4000)}" -> "y"\n`)],
    ["param elements never closed: <param name=\"password\"><param …", fill('<param name="password">')],
    ["login slashes with no value: Login: a / Login: a / …", fill("Login: a / ")],
    ["code spans joined by and after a login: log in with `a` and `a` and `…", `log in with ${fill("`a` and ")}`],
    ["name fields whose value never comes: {\"name\": \"DB_PASSWORD\", \"a\": 1, \"a\": 1, …", fill('{"name": "DB_PASSWORD", "a": 1, "b": true, "c": "x", ')],
    ["SecureString types with no value: \"SecureString\", \"SecureString\", …", fill('"Type": "SecureString", ')],
    ["quoted -p elements after mysql with no value: mysql \"-p \"-p …", `mysql ${fill('"-p ')}`],
    ["Secret ID labels with no value, every line", fill("Secret ID    = \n")],
    ["psql rules under a password header, every other line", fill(" a | password\n---+---\n")],
    ["one psql table of thousands of rows", ` id | password\n----+----------\n${fill("  1 | Zq7wintersun\n")}`],
    ["Key Value headers with no rows", fill("Key   Value\n---   -----\n")],
    ["listing dashes with no header, every line: ---  -----", fill("---  -----\n")],
    ["one Vault listing of thousands of lines", `Key   Value\n---   -----\n${fill("password   Zq7wintersun\n")}`],
    ["psql record heads, every line: -[ RECORD 1 ]-", fill("-[ RECORD 1 ]-\n")],
    ["psql rule joints in one long line: -+--+--+-…", fill("-+-")],
    ["psql record heads in one long line", fill("-[ RECORD 1 ]-")],
    ["redis replies of secret names with no value: 1) \"requirepass\" …", fill('1) "requirepass"\n')],
    ["Key Vault ids with no value: .vault.azure.net/secrets/x\" .vault…", fill('"https://kv.vault.azure.net/secrets/x", ')],
    ["vault logins with no token: vault login vault login …", fill("vault login ")],
    ["unrar -p flags with no value", `unrar ${fill(" -p")}`],
    ["sasl_passwd relays with no credential: [h]:587 [h]:587 …", fill("[h]:587 ")],
    ["SetEnv lines with no value", fill("SetEnv DB_PASSWORD \n")],
    ["msmtp user lines each before a password directive with no value: user a\\npassword user a…", fill("user a\npassword ")],
    ["nmcli commands with no password: nmcli nmcli …", fill("nmcli ")],
    ["wpa_passphrase commands with an SSID only: wpa_passphrase a wpa_passphrase a …", fill("wpa_passphrase a ")],
    ["numbered labels with no value: Unseal Key 1: Unseal Key 1: …", fill("Unseal Key 1: ")],
    ["numbered labels before random tokens, every line", fill("Key 1: 4jYbl2CBIv6SpkKj6Hos9iD32k5RfGkLzlosrrq/JgOm\n")],
    ["bw logins with no password: bw login a bw login a …", fill("bw login a ")],
    ["Poetry http-basic settings with no password", fill("poetry config http-basic.a b ")],
    ["HTTPie -a flags with no command before: -a a: -a a: …", fill(" -a a:")],
    ["one http command and thousands of -a flags", `http ${fill(" -a a:b")}`],
    ["ldappasswd -s flags with no value", `ldappasswd ${fill(" -s ")}`],
    ["K3s heads with no credential: K10<64 hex>:: …", fill(`K10${"a".repeat(64)}:: `)],
    ["Set-Item heads with no value: Set-Item -Path Env:DB_PASSWORD Set-Item …", fill("Set-Item -Path Env:DB_PASSWORD ")],
    ["bold markers after the noun never closed: password **a password **a …", fill("with password **a ")],
    ["one bold value run long after the noun: password **aaaa…", `with password **${"a".repeat(SIZE)}`],
    ["R arrows with no literal: password <- password <- …", fill("password <- ")],
    ["qualified pw keys with no value: db_pw= db_pw= …", fill("db_pw= ")],
    ["a password noun in another script, back to back: 密码密码密码…", fill("密码")],
    ["German labels with no value: Passwort: Passwort: …", fill("Passwort: ")],
    ["Cyrillic prose about passwords (every trigram of the shared code's letters a candidate)", fill("Пароль является обязательным полем. Введите пароль ещё раз. ")],
    ["YAML block headers under password keys with no block: password: | password: | …", fill("password: |\n")],
    ["builder calls with no literal: .withPassword(.withPassword(…", fill(".withPassword(")],
    ["FactoryBot blocks never closed: password { \"a\" password { …", fill('password { "a" ')],
    ["MySQL tables of one password row each: +---+ | password | a | +---+ …", fill("+----+----+\n| password | a |\n+----+----+\n")],
    ["mysqld's temporary password lines with no value", fill("A temporary password is generated for root@localhost: \n")],
    ["login prose with URL slashes and no pair: Log in at http://x/ with a / Log in …", fill("Log in at http://x/ with a / ")],
    ["quoted pwd keys, each with a password: \"pwd\":\"Xk9mQ2vL7pR4\", …", fill('"pwd":"Xk9mQ2vL7pR4",')],
    ["one INSERT of thousands of tuples", `insert into t (email, password) values ${fill("('a@b.c', 'Zq7wintersun'), ")}`],
    ["YAML password lines far apart in one long hunk", fill(`@@ -1 +1 @@\n${" k\n".repeat(600)}+  password: newSecret43\n`)],
    // Thousands of secrets sharing their first eight and last four characters, each echoed: every copy
    // was compared with the whole family (budget-bound, and the copies past the budget stayed in clear).
    ["sequential passwords sharing head and tail, each echoed", (() => {
      let t = "";
      for (let i = 0; t.length < SIZE; i++) t += `password=CorrectHorse${String(i).padStart(5, "0")}Staple then echo CorrectHorse${String(i).padStart(5, "0")}Staple\n`;
      return t.slice(0, SIZE);
    })()],
  ] as const) {
    test(name, () => {
      cost(log);
      cost(text); // warm the JIT and the lazily compiled regexes
      const ratio = cost(text) / Math.max(1, cost(log));
      expect(ratio).toBeLessThan(100);
    }, 60_000);
  }
});

test("reading a record's argument lists joined costs at most 3x reading the same strings one by one", () => {
  // Each list read joined (index.ts argvFinds) gives its command's flags their meaning; none holds a
  // secret. The same strings with no flag among them are read element by element only: what a record
  // of thousands of short strings costs anyway (about 55x a build log of its size, before this reading).
  const lists: string[][] = [];
  for (let n = 0; n < SIZE; n += 30) lists.push(["mysql", "-p", "x", "--password-file", "/run/pw", "-h", "db"]);
  const plain = lists.map((l) => l.map((x) => x.replace(/^-+/, "")));
  const valueCost = (v: unknown): number => bestMs(() => r.value(v));
  valueCost({ calls: lists });
  valueCost({ calls: plain });
  expect(valueCost({ calls: lists }) / Math.max(1, valueCost({ calls: plain }))).toBeLessThan(3);
}, 60_000);

describe("a hostile 1 MB costs about four times its 256 KB", () => {
  // Linear in the text, not in the hits times the text behind them (a line read back to its start
  // at every key on it; each prompt head searching the rest of the text for its '> ').
  const sized = (unit: string, size: number): string => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  for (const [name, unit] of [
    ["keys on one long line: token=ab,cd", "token=ab,cd "],
    ["PowerShell prompt heads with no '> '", "PS "],
  ] as const) {
    test(name, () => {
      const small = sized(unit, SIZE);
      const big = sized(unit, 4 * SIZE);
      cost(small);
      const ratio = cost(big) / Math.max(1, cost(small));
      // Quadratic would be ~16x.
      expect(ratio).toBeLessThan(8);
    }, 60_000);
  }
});

test("past its reading budget the key/value rule masks what it no longer weighs", () => {
  // Values nesting in each other spend the budget; a secret after them still goes.
  const secret = "Zq8xW2mK9pL4vN7bT3";
  const out = r.text(`${fill("token=").slice(0, 64 * 1024)}\napi_token=${secret}\n`);
  expect(out).not.toContain(secret);
  // The same for Authorization and Cookie headers, each rule with a budget of its own.
  const headers = r.text(`${fill("authorization:").slice(0, 64 * 1024)}\nAuthorization: Bearer ${secret}\n${fill("cookie: ").slice(0, 64 * 1024)}\nCookie: sid=${secret}x\n`);
  expect(headers).not.toContain(secret);
});

describe("what replaced a slow path says what the old one said", () => {
  test("the command-line rules' look-behind precheck finds what their regexes alone find (mysql -p, redis-cli -a, docker login -p)", () => {
    const g3 = new Gen(rng(11));
    const commands = ["mysql", "mysqladmin", "mariadb", "redis-cli", "valkey-cli", "docker  login", "docker", "login", "\n", " "];
    const flags = [" -p", " -pZq8xW2mK9", " -p Zq8xW2mK9 ", " -a Zq8xW2mK9 ", " --pass Zq8xW2mK9"];
    // A space first: the look-behinds want a word boundary after the command's name.
    const filler = (n: number) => (n === 0 ? "" : ` ${"x".repeat(n - 1)}`);
    let found = 0;
    for (let k = 0; k < 600; k++) {
      let s = "";
      // A command, then a flag some distance after it, around the look-behind's 200 characters.
      for (let p = 0, parts = g3.int(1, 6); p < parts; p++) {
        s += commands[g3.int(0, commands.length - 1)]! + filler([0, 1, 50, 180, 189, 190, 195, 196, 200, 205, 260][g3.int(0, 10)]!);
        s += flags[g3.int(0, flags.length - 1)]!;
      }
      // The rule's name for --explain comes from the built-in list, which the plain copies are not in.
      const finds = (rules: Parameters<typeof scan>[1]) => JSON.stringify(scan(s, rules).map(({ rule: _, ...f }) => f));
      const a = finds(CLI_RULES);
      expect(a).toBe(finds(plainCliRules()));
      if (a !== "[]") found++;
    }
    expect(found).toBeGreaterThan(100);
  });

  test("a prefix family's long-run shortcut finds what its regex alone finds (flyio fm…_, GitHub ghs_)", () => {
    const g2 = new Gen(rng(7));
    for (const [kind, body] of [["flyio-token", "ABCxyz019+/=_-"], ["github-app-token", "ABCxyz019_.-"]] as const) {
      const { rule, plain } = familyRules(kind)!;
      const run = (n: number) => Array.from({ length: n }, () => body[g2.int(0, body.length - 1)]).join("");
      const heads = ["fm2_", "fm1a_", "FM2_", "FlyV1 fm2_", "ghs_", "ghs_123_"];
      // A space or `!` ends a run; `-` (in both classes) and nothing run it on into the next part.
      const seps = [" ", "!", "\n", "-", ""];
      let found = 0;
      for (let k = 0; k < 300; k++) {
        let s = "";
        const parts = g2.int(1, 8);
        for (let p = 0; p < parts; p++) {
          s += seps[g2.int(0, seps.length - 1)]! + heads[g2.int(0, heads.length - 1)]!;
          s += run([0, 5, 49, 50, 300, 1999, 2020, 2021, 2022, 2999, 3000, 3001][g2.int(0, 11)]!);
        }
        s += seps[g2.int(0, 2)]!;
        const a = JSON.stringify(scan(s, [rule]));
        expect(a).toBe(JSON.stringify(scan(s, [plain])));
        if (a !== "[]") found++;
      }
      expect(found).toBeGreaterThan(20);
    }
  });

  const g = new Gen(rng(20261204));
  test("afterArnColon is /(?:arn|urn):[^\\s\"']*:$/i on the slice before it", () => {
    const parts = ["arn:", "urn:", "ARN", "Urn", "arn", ":", ":", ":", "a", "r", "n", "u", "x", " ", '"', "'", "\t", "\n", "\u00a0", "\u2028", "/", "secret", "aws"];
    const old = (s: string, at: number, max: number): boolean => at > 0 && s[at - 1] === ":" && /(?:arn|urn):[^\s"']*:$/i.test(s.slice(Math.max(0, at - max), at));
    let agreed = 0;
    for (let k = 0; k < 20_000; k++) {
      let s = "";
      const n = g.int(0, 40);
      for (let i = 0; i < n; i++) s += parts[g.int(0, parts.length - 1)];
      // Half the time right after one of its colons, where the question is asked.
      const colons = [...s.matchAll(/:/g)].map((m) => m.index + 1);
      const at = k % 2 && colons.length > 0 ? colons[g.int(0, colons.length - 1)]! : g.int(0, s.length);
      const max = [8, 16, 200][k % 3]!;
      expect(afterArnColon(s, at, max)).toBe(old(s, at, max));
      if (old(s, at, max)) agreed++;
    }
    expect(agreed).toBeGreaterThan(100);
  });

  test("resolve drops a find held whole by a stronger one, in a cluster of thousands as in one of three", () => {
    // resolve as it was, each find of a cluster against every other.
    const pairwise = (findings: readonly Finding[]) => {
      const sorted = [...findings].sort((a, b) => a.from - b.from || b.end - a.end);
      const out: { start: number; end: number; kind: string }[] = [];
      let i = 0;
      while (i < sorted.length) {
        let j = i + 1;
        let hi = sorted[i]!.end;
        while (j < sorted.length && sorted[j]!.from < hi) hi = Math.max(hi, sorted[j++]!.end);
        const cluster = sorted.slice(i, j);
        i = j;
        const kept = cluster.filter((f) => !cluster.some((g2) => g2 !== f && g2.priority > f.priority && g2.from <= f.start && f.end <= g2.end));
        kept.sort((a, b) => a.start - b.start || b.priority - a.priority);
        let cur: { start: number; end: number; best: Finding } | undefined;
        for (const f of kept) {
          if (cur && f.start < cur.end) {
            cur.end = Math.max(cur.end, f.end);
            if (f.priority > cur.best.priority) cur.best = f;
            continue;
          }
          if (cur) out.push({ start: cur.start, end: cur.end, kind: cur.best.kind });
          cur = { start: f.start, end: f.end, best: f };
        }
        if (cur) out.push({ start: cur.start, end: cur.end, kind: cur.best.kind });
      }
      return out;
    };
    for (let trial = 0; trial < 40; trial++) {
      const fs: Finding[] = [];
      let at = 0;
      // Dense enough that most finds chain into clusters of dozens to hundreds.
      for (let k = 0; k < 600; k++) {
        at += g.int(0, trial % 2 ? 3 : 8);
        const start = at + g.int(0, 2);
        fs.push({ from: at, start, end: start + g.int(1, 12), kind: `k${k}`, priority: [0.5, 1, 1.5, 2, 2.8][g.int(0, 4)]! });
      }
      expect(resolve(fs).map((x) => ({ start: x.start, end: x.end, kind: x.kind }))).toEqual(pairwise(fs));
    }
  });
});
