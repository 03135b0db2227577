/**
 * Weak or no labels (issue 12, item 4), the false-positive classes seen in
 * real traces (item 5), the placeholder policy, and "only the secret goes"
 * (item 6). One test per shape or class.
 */
import { describe, expect, test } from "bun:test";
import { createRedactor } from "../../lib/redact/index.ts";
import { keyBefore, namePieces } from "../../lib/redact/rules/entropy.ts";
import { A, Gen, leak, rng } from "./shapes.ts";

const r = createRedactor({ fingerprintKey: "k" });
const g = new Gen(rng(77));
const tok = (n = 32): string => g.s(A.b62, n - 4) + g.s(A.digits, 4);
const gone = (input: string, secret: string): string => {
  const out = r.text(input);
  expect(leak(out, secret)).toBeUndefined();
  return out;
};
/** Only the word-built password goes: the text comes back whole with its one tag put back. */
const onlyTheWordGoes = (text: string, word = "CorrectHorseBattery"): void => {
  const out = r.text(text);
  expect(out).not.toContain(word);
  expect(out.replace(/\[REDACTED:password:[0-9a-f]{4}\]/, word)).toBe(text);
};

/** Only `value` goes, under whatever kind's tag: the text comes back whole with the tag put back. */
const onlyValueGoes = (text: string, value: string): void => {
  const out = r.text(text);
  expect(leak(out, value)).toBeUndefined();
  expect(out.replace(/\[REDACTED:[a-z-]+:[0-9a-f]{4}\]/, value)).toBe(text);
};
/** Nothing in `text` is taken for a secret. */
const staysWhole = (text: string): void => expect(r.text(text)).toBe(text);

describe("weak or no labels", () => {
  test("a label on a line of its own, the value alone on the next (rules/label-line.ts)", () => {
    const word = "correct-horse-battery";
    const sym = "Xy7!kL9#mQ2v";
    expect(gone(`Generated password:\n    ${word}\n`, word)).toMatch(/^Generated password:\n    \[REDACTED:password:[0-9a-f]{4}\]\n$/);
    gone(`Initial admin password:\n\n${sym}\n\nDone.\n`, sym);
    gone(`Your password is:\n${sym}\n`, sym);
    const t = tok(24);
    gone(`Your new API key:\n  ${t}\n`, t);
    // A YAML key alone on its line whose plain scalar continues on the deeper next line.
    expect(gone(`db:\n  password:\n    ${word}\n`, word)).toMatch(/^db:\n  password:\n    \[REDACTED:password:[0-9a-f]{4}\]\n$/);
    expect(r.text(`db:\n  password:\n  ${word}: x\n`)).toBe(`db:\n  password:\n  ${word}: x\n`);
    // A key or token label takes a token only, code never capitalises its conditions, and a
    // value line with words or structure is no value.
    for (const input of [`Token:\n  ${word}\n`, "if password:\n    pass\n", "elif token:\n    return token\n", "Token:\n  - name: x\n", "Args:\n    password: the password\n", "Secret:\n  (none)\n", "Password:\n"]) {
      expect(r.text(input)).toBe(input);
    }
  });
  test("Elasticsearch's setup-passwords: PASSWORD <user> = <value> on its own line (rules/label-line.ts)", () => {
    const out = "Changed password for user elastic\nPASSWORD elastic = qMHrhGyuMRSHDpiB4ZaN\n\nChanged password for user kibana_system\nPASSWORD kibana_system = CorrectHorseBattery\n";
    const red = r.text(out);
    expect(red).toMatch(/^Changed password for user elastic\nPASSWORD elastic = \[REDACTED:password:[0-9a-f]{4}\]\n\nChanged password for user kibana_system\nPASSWORD kibana_system = \[REDACTED:password:[0-9a-f]{4}\]\n$/);
    // Lower case, not at a line's start, and a placeholder are no such line.
    for (const input of ["password elastic = CorrectHorseBattery\n", "echo PASSWORD elastic = CorrectHorseBattery\n", "PASSWORD elastic = changeme\n"]) expect(r.text(input)).toBe(input);
  });
  test("Key= and key = …", () => {
    const t = tok();
    expect(gone(`[DEBUG] Using Key=${t}\n`, t)).toMatch(/^\[DEBUG\] Using Key=\[REDACTED:labelled-token:[0-9a-f]{4}\]\n$/);
    gone(`key = ${t}\n`, t);
  });
  test("Your API key is …", () => {
    const t = tok(40);
    const out = gone(`Success! Your API key is ${t}. Keep it safe.\n`, t);
    expect(out).toMatch(/^Success! Your API key is \[REDACTED:[a-z-]+:[0-9a-f]{4}\]\. Keep it safe\.\n$/);
  });
  test("authenticated with <token>", () => {
    const t = tok(36);
    expect(gone(`INFO authenticated with ${t} as deploy-bot\n`, t)).toContain(" as deploy-bot\n");
  });
  test("<provider> token - '<value>' and pass '<value>'", () => {
    const a = g.s(A.lownum, 32);
    const b = g.s(A.hex, 32);
    gone(`siteleaf token - '${a}'\n`, a);
    gone(`mailgun pass '${b}'\n`, b);
    // Symbols break the value into pieces no entropy test scores: the quotes bound it.
    for (const v of ["ai$oy@v8w9-$rcawnt^87rv3-9k0t&srbc8v", "JFdESNcC4meVkWFygHV5O5FmhycSCsQnlmmXWwTKSQOJG3ERd?stTjE8m98hJU"]) {
      expect(gone(`nethunt token - '${v}'\n`, v)).toMatch(/^nethunt token - '\[REDACTED:[a-z-]+:[0-9a-f]{4}\]'\n$/);
    }
    // A bare value after a dash is arithmetic or prose.
    expect(r.text("remaining = token - offset\nthe key - see below")).toBe("remaining = token - offset\nthe key - see below");
  });
  test("quoted values with spaces or symbols after a password-like key", () => {
    gone(`DB_PASSWORD="p@ss w0rd! 42"\n`, "p@ss w0rd! 42");
    gone(`password: 'Tr0ub4dor&3 horse'\n`, "Tr0ub4dor&3 horse");
  });
  test("a value that opens its line keeps its brackets and symbols (env files, export, INI)", () => {
    for (const v of ["4nXYKv]mHDeom5esert30Ea7]4QEfMg6", "usrpS@d>p", "u@D7GXt)t>8d(LtH^(lvZ<g=", "9q81,xW3}pL9"]) {
      expect(gone(`export COUCH_API_KEY=${v}\n`, v)).toMatch(/^export COUCH_API_KEY=\[REDACTED:api-key:[0-9a-f]{4}\]\n$/);
      expect(gone(`  db_password = ${v} # rotated\n`, v)).toMatch(/^  db_password = \[REDACTED:password:[0-9a-f]{4}\] # rotated\n$/);
    }
    // Not at a line's start, a bare value still ends at brackets: `f(token=abc)` keeps its `)`.
    expect(r.text(`call(api_token=Zq81xW3pL9Tr0b, retry=3)`)).toMatch(/^call\(api_token=\[REDACTED:[a-z-]+:[0-9a-f]{4}\], retry=3\)$/);
  });
  test("15+ digits under a key that names a secret go; timestamps, counts and ports stay", () => {
    expect(gone("export DISCORD_API_TOKEN=391680139031094019\n", "391680139031094019")).toMatch(/^export DISCORD_API_TOKEN=\[REDACTED:[a-z-]+:[0-9a-f]{4}\]\n$/);
    gone("CLOUDINARY_API_KEY=218873249723411\n", "218873249723411");
    const keep = "api_key_created: 1699999999999\ntoken_count=1234567\nsecret_port: 8443\n";
    expect(r.text(keep)).toBe(keep);
  });
  test(".npmrc _auth/_password and .netrc password", () => {
    const b64 = Buffer.from(`me:${tok(16)}`).toString("base64");
    gone(`//registry.example.com/:_auth=${b64}\n`, b64);
    const pw = Buffer.from(tok(14)).toString("base64");
    gone(`//registry.example.com/:_password=${pw}\n`, pw);
    const np = tok(16);
    gone(`machine api.example.com\n  login deploy\n  password ${np}\n`, np);
  });
  test("connection strings: Password=…; and AccountKey=…", () => {
    const pw = tok(18);
    const out = gone(`Server=db.internal,1433;Database=orders;User Id=app;Password=${pw};Encrypt=true`, pw);
    expect(out).toContain("Server=db.internal,1433;Database=orders;User Id=app;Password=");
    expect(out).toContain(";Encrypt=true");
    const key = g.s(A.b64, 86) + "==";
    gone(`DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${key};EndpointSuffix=core.windows.net`, key);
    // Under a connection string's key, the pairs are read as pairs: only the password goes, and a string with none stays.
    const inCode = r.text(`ConnectionString = "Server=db;Database=app;User Id=sa;Password=${pw};"\n`);
    expect(inCode).toContain('ConnectionString = "Server=db;Database=app;User Id=sa;Password=[REDACTED:password:');
    expect(inCode).not.toContain(pw);
    const trusted = 'var ConnectionString = @"Server=.\\SQLEXPRESS;Database=app;Trusted_Connection=True;";\n';
    expect(r.text(trusted)).toBe(trusted);
    // An Azure Storage string under such a key, its key base64-padded: only the key goes, quoted, bare, and as a JSON value.
    const azure = `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${key};EndpointSuffix=core.windows.net`;
    const kept = /^DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=\[REDACTED:azure-storage-account-key:[0-9a-f]{4}\];EndpointSuffix=core\.windows\.net$/;
    expect(r.text(`AZURE_STORAGE_CONNECTION_STRING="${azure}"`).slice(33, -1)).toMatch(kept);
    expect(r.text(`connectionString: ${azure}`).slice(18)).toMatch(kept);
    const walked = r.value({ connectionString: azure, AzureWebJobsStorage: azure }) as Record<string, string>;
    expect(walked.connectionString).toMatch(kept);
    expect(walked.AzureWebJobsStorage).toMatch(kept);
    // A pair list in which no rule finds a secret is still masked whole under such a key; one in which the
    // entropy rule finds a token keeps the rest.
    const opaque = r.value({ connectionString: "Server=db;Database=app;Blob=CorrectHorseBattery" }) as Record<string, string>;
    expect(opaque.connectionString).toMatch(/^\[REDACTED:connection-string:[0-9a-f]{4}\]$/);
    const random = tok(24);
    const found = r.value({ connectionString: `Server=db;Database=app;Blob=${random}` }) as Record<string, string>;
    expect(found.connectionString).toMatch(/^Server=db;Database=app;Blob=\[REDACTED:[a-z-]+:[0-9a-f]{4}\]$/);
  });
  test("CLI flags: -p, --password, redis-cli -a", () => {
    const pw = tok(14);
    gone(`mysql -u root -p${pw} orders`, pw);
    gone(`pg_dump --password ${pw} orders`, pw);
    gone(`psql --password=${pw}`, pw);
    gone(`redis-cli -h cache -a ${pw} ping`, pw);
  });
  test("an unlabelled random token alone on a line, and in a log line", () => {
    const t = tok(40);
    gone(`$ cat token.txt\n${t}\n`, t);
    gone(`2026-11-30T09:14:07Z DEBUG http: GET https://api.example.com/v1 using ${t} -> 200\n`, t);
  });
});

describe("unlabelled tokens the word test tells from identifiers", () => {
  test("lowercase base36 tokens (letter runs that are not words)", () => {
    for (const t of ["qftuyvc2wsml9mvyb057okrtydb88vzr", "grevetn5owrs1ybhxtcen0ibvg2mi85x", "mgepiy2lx8tttu5h45efviri2ngz83y0"]) gone(`$ pbpaste\n${t}\n`, t);
  });
  test("mixed-case tokens with no digit, 20+ characters bare and 16+ after a label", () => {
    gone(`$ pbpaste\nSSVmFDNCFfOHKXQAEckx\n`, "SSVmFDNCFfOHKXQAEckx");
    gone(`GET /v1/items using wjXKCFzOWEPRqhTmmbWtVQ -> 200\n`, "wjXKCFzOWEPRqhTmmbWtVQ");
  });
  test("32 hex digits alone on a line (cat config/master.key), but not in code or beside a file name", () => {
    const k = g.s(A.hex, 32);
    gone(`$ cat config/master.key\n${k}\n`, k);
    expect(r.text(`${k}  dist/app.js\n`)).toBe(`${k}  dist/app.js\n`);
    expect(r.text(`gist("nat", "${k}")\n`)).toBe(`gist("nat", "${k}")\n`);
    const git = g.s(A.hex, 40);
    expect(r.text(`$ git rev-parse HEAD\n${git}\n`)).toBe(`$ git rev-parse HEAD\n${git}\n`);
  });
  test("curl -u with an empty user or a quoted password", () => {
    gone(`curl -u ":d2LkV78zLx!t" https://localhost:9200\n`, "d2LkV78zLx!t");
    gone(`curl --user kevin:'pRf7vG2h1L8nQkW9' -iX PATCH\n`, "pRf7vG2h1L8nQkW9");
  });
  test("short hex after a token label, and a key in a table row", () => {
    gone(`ipinfo token = '3ff77bb6fe6885'\n`, "3ff77bb6fe6885");
    const h = g.s(A.hex, 40);
    gone(`Variable name | Initial Value\napiKey |${h}\n`, h);
  });
  test("a typed password after with/using (the entropy rule splits it at its symbols)", () => {
    gone("Authenticated with P@ssw0rd$1, continuing\n", "P@ssw0rd$1");
    gone("GET /v1/items using dB2yF6@qL9vZm1P#4J -> 200\n", "dB2yF6@qL9vZm1P#4J");
    const code = "build with node@20.1.0 using user@example.com\nmove word left or right with Ctrl+Left/Right\ninstallable with #pull/123/merge\n";
    expect(r.text(code)).toBe(code);
    // Documentation (Node's own docs, Python's distutils, as printed by `cat`): markup after with/using.
    const docs = [
      "* [Option 2: Automated install with Boxstarter](#option-2-automated-install-with-boxstarter)",
      "| linux-ppc64le           | RHEL 8 with gcc-toolset-10[^6]     |",
      "Example of a custom reporter using {stream.Transform}:",
      "With TLSv1.3, be aware that multiple tickets may be sent by the server,",
      "Refer to [C/C++ addons with Node-API](n-api.md) for more",
      "* crypto: look up SSL errors with ERR\\_print\\_errors() (Ben Noordhuis)",
      "you can try compiling with MingW32, by passing",
      "* macros defined with -Dname[=value]",
      "reverted using `--security-revert=CVE-2016-2216`",
      'onclick="with (this.firstChild.style)',
    ].join("\n");
    expect(r.text(docs)).toBe(docs);
  });
  test("the second half of an id:secret pair after a label", () => {
    gone("GET /v1 using KUoABcy4vAON5IDR1AskOXAjwrlcoz2IiNYKj8:ocjGep7tW9WMHS7 -> 200\n", "ocjGep7tW9WMHS7");
  });
  test("a 12-character mixed-case token with no digit after a label", () => {
    gone("GET /v1 using vZrEclFwOqeA -> 200\n", "vZrEclFwOqeA");
  });
  test("a numbered label's key is its word (vault operator init's Unseal Key 1: …); a numbered id stays", () => {
    const keys = ["4jYbl2CBIv6SpkKj6Hos9iD32k5RfGkLzlosrrq/JgOm", "B05G1DRtfYckFV5BbdBvXq0wkK5HFqB9g2jcDmNfTQiS"];
    const text = `Unseal Key 1: ${keys[0]}\nUnseal Key 2: ${keys[1]}\n\nVault initialized with 5 key shares and a key threshold of 3.\n`;
    const out = r.text(text);
    for (const k of keys) expect(leak(out, k)).toBeUndefined();
    expect(out).toContain("Unseal Key 2: [REDACTED:");
    expect(out).toContain("Vault initialized with 5 key shares");
    // An id's number, and a minified bundle's `var 06=` (a name, and code's `=`): no label's word.
    for (const kept of ["request id 2: 5e2b1c7Fa9dQ0xLp3VmZrT8yWn4Hs6Kj\n", 'function(e,t,n){"use strict";var 06="rsgC1s0ClBTkFNFklApFMiLd"}\n']) {
      expect(r.text(kept)).toBe(kept);
    }
  });
  test("a Vault AppRole secret_id (a UUID) goes; its role_id stays", () => {
    const id = "1f3b2c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d";
    const out = gone(`role_id = 'a52a85d1-33c4-4808-8fa0-c375f3c6013a'\nsecret_id = '${id}'\n`, id);
    expect(out).toContain("role_id = 'a52a85d1-33c4-4808-8fa0-c375f3c6013a'");
  });
  test("dash-joined capitals that are not words are a token, not a constant's name", () => {
    gone("requestfinance token = 'IZAT6SA-AJUQES1-BZWZYWJ-VDIXPVG'\n", "IZAT6SA-AJUQES1-BZWZYWJ-VDIXPVG");
    const names = "HTTP2_HEADER_AUTHORITY PKIX_RSA_PKCS1V15_2048_SHA256 GEMMA_4_26B_A4B_IT_MODEL\n";
    expect(r.text(names)).toBe(names);
  });
  test("Jenkins credentials.xml: <secret>{AQAAABAAA <token>} and <session>{…}", () => {
    const h = g.s(A.hex, 32);
    gone(`<secret>{AQAAABAAA ${h}}</secret>\n`, h);
    const sts = g.s(A.b64, 780) + "=";
    gone(`  <session>{AQAAABAAA ${sts}}</session>\n`, sts);
    gone(`session: ${sts}\n`, sts);
  });
  test("mixed-case hex is no digest: alone or after a provider's name it goes; 0x addresses, ETags and single-case hex stay", () => {
    const mixed = "6d2FabeB6ADd229Bc199FabA28fD3efb57dF0bD3";
    expect(gone(`sourcegraph: ${mixed}\n`, mixed)).toMatch(/^sourcegraph: \[REDACTED:high-entropy-token:[0-9a-f]{4}\]\n$/);
    gone(`${mixed}\n`, mixed);
    const keep = "to: 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed\netag 3ea4572956e2b381923ed34c31db76aa-2\ncommit 6d2fabeb6add229bc199faba28fd3efb57df0bd3\n";
    expect(r.text(keep)).toBe(keep);
  });
  test("a 12-19 character token of letters and digits alone on a line; a JSON value that is one token is its key's to judge", () => {
    gone("$ cat ~/.config/geoip/license\nLAwdpRpHOnYE0Wyc\n$ echo done\n", "LAwdpRpHOnYE0Wyc");
    for (const t of ["JJ4ZIC9EJNWVIS86", "jhu8d2zu0ar6fnkx", "xM98lZh20vZs"]) gone(`$ pbpaste\n${t}\n`, t);
    // What prints alone on a line and is not a secret: container ids, versions, dates, words with digits.
    const keep = "$ docker ps -q\n3f9a2b1c4d5e\n$ node --version\nv20.20.2\n2026-12-02T08:00:00Z\nBase64Encoder2\n";
    expect(r.text(keep)).toBe(keep);
    expect(JSON.stringify(r.value({ id: "aB3dE5fG7hJ9kL1m", note: "x" }))).toBe('{"id":"aB3dE5fG7hJ9kL1m","note":"x"}');
    const h = g.s(A.hex, 32);
    expect(JSON.stringify(r.value({ request: h }))).toBe(`{"request":"${h}"}`);
  });
  test("identifiers with words that are not English stay", () => {
    const code = "return verifyHashedrekord001TLogBody(tlog);\nconst createElementNS2 = documentFragment;";
    expect(r.text(code)).toBe(code);
  });
});

describe("entropy guards: what is not a secret", () => {
  const same = (s: string): void => expect(r.text(s)).toBe(s);
  test("git object ids", () => same(`commit ${g.s(A.hex, 40)}\nMerge: ${g.s(A.hex, 7)} ${g.s(A.hex, 7)}\n${g.s(A.hex, 40)} refs/heads/main`));
  test("UUIDs", () => same(`request 0b5e6f2a-9c4d-4e8f-a1b2-3c4d5e6f7a8b done`));
  test("sha256: and integrity digests", () => {
    same(`image: nginx@sha256:${g.s(A.hex, 64)}`);
    same(`"integrity": "sha512-${g.s(A.b64, 86)}=="`);
    same(`golang.org/x/sys v0.20.0 h1:${g.s(A.b64, 43)}=`);
  });
  test("base64 of a PEM certificate (kubeconfig certificate-authority-data), but not of a private key", () => {
    const cert = Buffer.from(`-----BEGIN CERTIFICATE-----\n${g.s(A.b64, 64 * 12)}\n-----END CERTIFICATE-----\n`).toString("base64");
    same(`    certificate-authority-data: ${cert}\n`);
    const key = Buffer.from(`-----BEGIN PRIVATE KEY-----\n${g.s(A.b64, 64 * 12)}\n-----END PRIVATE KEY-----\n`).toString("base64");
    expect(r.text(`    data: ${key}\n`)).toContain("[REDACTED:");
  });
  test("base64 image data", () => same(`<img src="data:image/png;base64,${g.s(A.b64, 600)}">`));
  test("lockfile hashes and resolved URLs", () => {
    same(`  resolved "https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#${g.s(A.hex, 40)}"\n  integrity sha1-${g.s(A.b64, 27)}=`);
    same(`--hash=sha256:${g.s(A.hex, 64)}`);
  });
  test("public keys and certificates", () => {
    same(`-----BEGIN CERTIFICATE-----\n${g.s(A.b64, 64)}\n${g.s(A.b64, 64)}\n-----END CERTIFICATE-----\n`);
    same(`ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${g.s(A.b64, 43)} me@host`);
  });
  test("identifiers, paths, hosts and versions", () => {
    same("import { getUserAccessTokenForTenant } from './auth/tokenProviders/azureActiveDirectory';");
    same("release-2024-01-05 my-test-org-123.my.salesforce.com v1.2.3-beta.4+build.5678");
    same("/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30");
  });
  test("file names, media types and paths from a root directory (/etc/ca-certificates.conf, /etc/mime.types, cron lines)", () => {
    same("mozilla/HiPKI_Root_CA_-_G1.crt\nmozilla/D-TRUST_Root_Class_3_CA_2_2009.crt\napplication/vnd.3gpp-prose-pc3ach+xml\n30 3 * * 0 root test -e /run/systemd/system || SERVICE_MODE=1 /usr/lib/x86_64-linux-gnu/e2fsprogs/e2scrub_all_cron\n");
    // A random token is still one after a path or a media type's slash.
    const t = tok(28);
    expect(gone(`upload to /srv/share then ${t}\n`, t)).toMatch(/^upload to \/srv\/share then \[REDACTED:/);
  });
  test("constants of acronyms and words (Python's ssl and urllib3, Node's errors), but not random key groups", () => {
    same("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 = 0xC030\nSecurityConst.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,\nfrom .url import BRACELESS_IPV6_ADDRZ_RE\n`NGHTTP2_ENHANCE_YOUR_CALM` and `ERR_HTTP2_GOAWAY_SESSION`");
    gone("licence VK7JG-NPHTM-C97JM-9MPGT-3V66T\n", "VK7JG-NPHTM-C97JM-9MPGT-3V66T");
    gone("requestfinance token = 'IZAT6SA-AJUQES1-BZWZYWJ-VDIXPVG'\n", "IZAT6SA-AJUQES1-BZWZYWJ-VDIXPVG");
  });
});

describe("false-positive classes seen in traces", () => {
  test("optional chains and negated member paths are code (npm's error-message.js, http-cache-semantics)", () => {
    for (const input of [
      "        const authUrl = er.body?.authUrl\n",
      "        const auth = !er.headers || !er.headers['www-authenticate']\n",
      "    this._noAuthorization = !req.headers.authorization;\n",
      "const token = !!opts.tokenValue\n",
    ]) expect(r.text(input)).toBe(input);
    // A quoted password that opens with `!` is still a literal.
    gone("const auth = '!Xy7kL9mQ2v'\n", "!Xy7kL9mQ2v");
  });
  test("a character class listing letters in order is no token (gitleaks' printf-verb regex)", () => {
    const input = "var re = regexp.MustCompile(`^%[+\\-# 0]?[bcdeEfFgGoOpqstTUvxX]`)\n";
    expect(r.text(input)).toBe(input);
    // Random letters of both cases at the same length still go.
    const t = "qWzRtYbNmKpLxVcJhGfD";
    gone(`${t}\n`, t);
  });
  const same = (s: string): void => expect(r.text(s)).toBe(s);
  test("code expressions", () => {
    same("password := match[1]");
    same("password=request.form['password']\ntoken=get_token(user)\nAPI_KEY=config[:api_key]\nsecret=<your-secret>");
    // Python keyword arguments and tuples (seen in urllib3, requests, oauthlib): indented `key=value` lines.
    same("conn = Pool(\n    host,\n    port=None,\n    password=None,\n    retries=None,\n)\nbody=None, headers=None\nself.__proxy = (None, None, None)");
    same("    password=password,\n    auth=self.auth,\n    cookies=self.cookies,\n(cookies, auth, proxies).\nmerge_cookies,");
    // A Capitalized word under a token or cookie key is a name (pygments, requests' docstrings).
    same("token = Punctuation\n            token = Whitespace\n:param cookies: Dictionary or CookieJar object to be added.");
    // Python string annotations (cryptography's backends): a name's case, not random letters'.
    same('backend: "Backend", private_key: "_EllipticCurvePrivateKey", data: bytes\n    private_key: "_RSAPrivateKey",');
    same("        client_secret=self.consumer.secret,\n        request_token=request.resource_owner_key):\n        token = (String.Double if terminator else\n        auth = (unquote(parsed.username), unquote(parsed.password))");
    same('url := "access_token=" + value');
    same("const token = getToken(req.headers);\nsecret: PotentialSecret,\nauth: v4auth_header,");
    same("exports.TOKEN = exports.STRICT_TOKEN.concat([' ']);");
  });
  test("references stay, random look-alikes go: %VAR% names a variable has, prose with a capital only at a word's start", () => {
    same("Password=%DB_PASS%;\npassword: %UserProfile%\\secret.txt\npw=%LocalAppData%;\npassword = %APPDATA%/db.pw\n");
    same('"confirmPassword": "Confirm Password!"\n"password": "Passwort bestätigen!"');
    gone("Server=db;User ID=sa;Password=%k3iYxBbFB3wq%;Encrypt=true", "%k3iYxBbFB3wq%");
    gone("<password>eaBzjPadcaCZK!</password>", "eaBzjPadcaCZK!");
  });
  test("placeholders in auth syntax", () => {
    same("curl -u <user:password> https://api.example.com");
    // A URL after -u is no user:password (Azure's service principal names are URLs); its copies elsewhere stay too.
    same("az login --service-principal -u http://deploy-app --tenant t\nmongosh mongodb://deploy-app.internal/test");
    same("--password [PASSWORD]");
    same("Authorization: Bearer <Openverse API token>");
    same("https://user:<password>@db.example.com/app");
  });
  test("AWS ARNs that name a secret", () => {
    same("SecretId: arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/api-AbC123");
    same('"secretArn": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:db-creds-9xYz1Q"');
  });
  test("UI strings for password fields in translation files", () => {
    same('{"confirmPassword": "Passwort bestätigen", "password": "Mot de passe", "passwordHint": "Au moins 8 caractères"}');
    expect(JSON.stringify(r.value({ confirmPassword: "Passwort bestätigen", resetPassword: "Réinitialiser le mot de passe" }))).not.toContain("REDACTED");
  });
  test("the word token in minified JavaScript", () => {
    same('function(e){var t=e.token,n=e.password;return{token:t,password:n,tokenType:"Bearer"}}');
    same('a.token=b.token||c;if(!o.password)throw new Error("password required")');
  });
  // Each seen in real code of the external bench's "real code" set (bench/redact/external.ts).
  test("identifiers built of an acronym and words", () => {
    same('throw new RE2JSSyntaxException("bad");\nvar RE2JSCompileException = class extends RE2JSException {};');
    same("return ext ? new ext_1.X509AuthorityKeyIDExtension(ext) : undefined;");
    same("return Utils.utf8ByteArrayToString(this.matcherInput);");
  });
  test("constant names with sizes in them", () => same("  GEMMA_4_26B_A4B_IT_MODEL,\n  value: GEMMA_4_31B_IT_MODEL,"));
  test("\\u escapes glued to a word", () => same('"in the section entitled \\u201CPartner-Specific Terms\\u201D, all"'));
  test("charset tables", () => same('const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";'));
  test("a version under a package name that ends in …password", () => {
    same('{\n  "version": "13.1.0",\n  "dependencies": {\n    "@secretlint/secretlint-rule-1password": "13.1.0",\n    "x": "^4.2.0"\n  }\n}');
  });
  test("key names as values and class expressions", () => {
    same('var tokenKey = ":_authToken";\nvar passwordKey = ":_password";\nvar QueueOnePass = class {};');
    same("headers = {'x-amz-date': timestamp, 'Authorization': v4auth_header}");
  });
  test("usage and token-count fields (what peer redactors over-redact)", () => {
    const usage = { usage: { input_tokens: 1234, output_tokens: 56, cache_creation_input_tokens: "88" }, max_tokens: "4096", token_count: "123", tokenizer: "cl100k_base", token_type: "Bearer", expires_in: 3600 };
    expect(r.value(usage)).toEqual(usage);
    same('{"usage":{"input_tokens":1234,"output_tokens":56},"max_tokens":"4096","stop_reason":"end_turn","model":"claude-sonnet-4-5-20250929"}');
    same("input_tokens=1234 output_tokens=56 total_tokens: 1290 tokens_per_second=41.7");
  });
  test("session and request ids in HTTP headers", () => {
    same("x-request-id: req_9f8e7d6c5b4a39281706\nx-amzn-trace-id: Root=1-6568a1b2-0f1e2d3c4b5a69788796a5b4\nX-Session-Id: 3f1c2b7e-5d4a-4c3b-9a8f-7e6d5c4b3a21\nx-correlation-id: cid-71a2b3c4d5e6f708");
  });
});

describe("placeholder policy (every context kind)", () => {
  // xxxx, EXAMPLE, <...>, ${VAR} and their kin are never redacted by a context or
  // entropy rule; prefixed tokens are redacted whatever their body (a test key is a key).
  const same = (s: string): void => expect(r.text(s)).toBe(s);
  test("placeholders stay under every label", () => {
    for (const v of ["xxxxxxxxxxxxxxxx", "YOUR_API_KEY_EXAMPLE", "<your-token>", "${API_TOKEN}", "{{ .Values.token }}", "changeme", "********"]) {
      same(`API_TOKEN=${v}`);
      same(`password: "${v}"`);
      same(`Authorization: Bearer ${v}`);
    }
  });
});

describe("only the secret goes", () => {
  test("key names, user, host, port, database and every other word stay", () => {
    const pw = tok(20);
    const out = gone(`DATABASE_URL=postgres://orders_app:${pw}@db-7.internal:6432/orders?sslmode=require\n`, pw);
    expect(out).toMatch(/^DATABASE_URL=postgres:\/\/orders_app:\[REDACTED:postgres-url:[0-9a-f]{4}\]@db-7\.internal:6432\/orders\?sslmode=require\n$/);
  });
  // A `#` is a fragment's mark to a URL parser, but `.env` files hold such passwords as typed.
  for (const url of ["redis://:Kx9#mP2$vL@localhost:6379/0", "postgres://app:Kx9#mP2$vL@localhost/app"]) {
    test(`a password with a # in userinfo: ${url}`, () => {
      const out = gone(`REDIS_URL=${url}\n`, "Kx9#mP2$vL");
      expect(out.replace(/\[REDACTED:[a-z-]+:[0-9a-f]{4}\]/, "Kx9#mP2$vL")).toBe(`REDIS_URL=${url}\n`);
    });
  }
  // And in a query parameter that names a secret: the parameter ends at `&`, not at the `#`.
  for (const [text, secret] of [
    ['curl "https://api.example.com/login?user=admin&password=Zq7#wKx9mP2vLq8"\n', "Zq7#wKx9mP2vLq8"],
    ["DATABASE_URL=mysql://db.internal:3306/app?user=app&password=Tr0ub4dor#3xyz&ssl=true\n", "Tr0ub4dor#3xyz"],
    ["jdbc:postgresql://db:5432/app?user=app&password=Zq7#wKx9mP2&sslmode=require\n", "Zq7#wKx9mP2"],
  ] as const) {
    test(`a password with a # in a query parameter: ${text.trim()}`, () => {
      const out = gone(text, secret);
      expect(out.replace(/\[REDACTED:[a-z-]+:[0-9a-f]{4}\]/, secret)).toBe(text);
    });
  }
  // JSON that escapes its slashes (PHP's json_encode): the userinfo is read as in any URL.
  test("a URL with its slashes escaped keeps all but the password", () => {
    const text = '{"url":"https:\\/\\/app:Zq7wintersun@db.acme.io\\/prod","db":"postgres:\\/\\/app:Tr0ub4dor&3@db:5432\\/x","home":"https:\\/\\/acme.io\\/"}\n';
    const out = gone(gone(text, "Zq7wintersun"), "Tr0ub4dor&3");
    expect(out).toMatch(/^\{"url":"https:\\\/\\\/app:\[REDACTED:url-userinfo:[0-9a-f]{4}\]@db\.acme\.io\\\/prod","db":"postgres:\\\/\\\/app:\[REDACTED:postgres-url:[0-9a-f]{4}\]@db:5432\\\/x","home":"https:\\\/\\\/acme\.io\\\/"\}\n$/);
  });
  for (const text of ["see https://example.com:8080#section for more, mail me@x.com\n", "https://example.com:8080#a@b\n", "https://host:8080/#/a:b@c\n"]) {
    test(`a fragment after a host stays: ${text.trim()}`, () => staysWhole(text));
  }
  test("TOML and settings files keep their other words", () => {
    const pw = tok(20);
    const input = `[database]\nhost = "db.internal"\nport = 5432\nname = "orders"\nuser = "app"\npassword = "${pw}"\npool_size = 10\n`;
    const out = gone(input, pw);
    expect(out.replace(/\[REDACTED:password:[0-9a-f]{4}\]/, "X")).toBe(input.replace(pw, "X"));
  });
});

describe("values public by design survive the value walk", () => {
  test("a verdict's signature, digests and ids", () => {
    const v = {
      signed: { verdict: "PASS", signature: Buffer.from(g.s(A.b62, 64)).toString("base64"), key_id: g.s(A.hex, 16), diff_sha256: g.s(A.hex, 64) },
      request_id: "req_" + g.s(A.b62, 24),
      message: { id: "msg_01" + g.s(A.b62, 22) },
    };
    expect(r.value(v)).toEqual(v);
  });
  test("a bare random token under a plain key still goes in text and in stdout", () => {
    const t = tok(40);
    expect(JSON.stringify(r.value({ stdout: `$ cat token.txt\n${t}\n` }))).not.toContain(t.slice(0, 12));
  });
});

describe("key words that name Object.prototype members", () => {
  // A fixture with `constructor api = …` once threw inside the key classifier
  // (a plain-object table found Object.prototype.constructor): a redactor that
  // throws loses the record, so every table lookup must be an own-key lookup.
  test.each(["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"])("%s as a key word, a key and a URL scheme", (w) => {
    const t = tok();
    expect(() => r.text(`${w} = ${t}\n${w}_api_key=${t}\n${w}://user:${t}@db.local/x\n`)).not.toThrow();
    // "has…" opens a boolean flag's name (`has_api_key=true`), so that key is not a label.
    if (!/^has/i.test(w)) gone(`${w}_api_key=${t}\n`, t);
    const scheme = w.replace(/_/g, ""); // a URL scheme has no "_"
    expect(leak(r.text(`${scheme}://user:${t}@db.local/x\n`), t)).toBeUndefined();
    const v = r.value({ [w]: { password: t }, [`${w} key`]: t }) as Record<string, unknown>;
    expect(leak(JSON.stringify(v), t)).toBeUndefined();
  });
});

describe("the key before an unlabelled token", () => {
  // keyBefore replaced a regex tried at every start of the line head; it must read the same key.
  const KEY_BEFORE = /([\w$][\w$.-]{0,63})(?:\\?["'])?[ \t]{0,4}(?::=|=>|[:=|])[ \t]{0,4}(?:\\?["'`])?$/;
  test("is the key the regex reads, on random line heads", () => {
    const pick = rng(12);
    const alphabet = ["a", "Z", "0", "_", "$", ".", "-", '"', "'", "`", "\\", " ", "\t", ":", "=", ">", "|", "é", "x"];
    const ends = [": ", "=", ' = "', '\\":\\"', " := ", "=>", "|", ": '", "'", ""];
    let matched = 0;
    for (let n = 0; n < 20_000; n++) {
      let h = "";
      for (let i = Math.floor(pick() * 24); i > 0; i--) h += alphabet[Math.floor(pick() * alphabet.length)];
      h += "k".repeat(Math.floor(pick() * 70)) + ends[Math.floor(pick() * ends.length)];
      const want = KEY_BEFORE.exec(h)?.[1];
      if (want !== undefined) matched++;
      expect([h, keyBefore(h)]).toEqual([h, want]);
    }
    expect(matched).toBeGreaterThan(5_000);
  });

  test("names the value: an id's stays, a password's goes", () => {
    const t = tok(40);
    expect(r.text(`  "client_id": "${t}"\n`)).toContain(t);
    gone(`  db.pwd := '${t}'\n`, t);
  });
});

describe("names built of pieces (release_2024_01_05, GEMMA_4_26B_A4B_IT_MODEL)", () => {
  // namePieces replaced this regex on every candidate token; it must accept exactly what the regex did.
  const P = String.raw`(?:(?:[a-z]{1,14}|[A-Z][a-z]{1,13}|[A-Z]{1,14}|[A-Za-z][a-z]+(?:[A-Z][a-z]+)+)(?:\d{1,7}|\d{1,4}[A-Za-z]{1,3}\d{0,3})?|\d{1,8}|\d{1,4}[A-Za-z]{1,3})`;
  const PIECES = new RegExp(String.raw`^[-_/]*${P}(?:[-_/]+${P})+[-_/]*$`);
  const units = (t: string) => Uint16Array.from(t, (c) => c.charCodeAt(0));
  test("are what the regex accepts, on tokens of random character runs", () => {
    const pick = rng(34);
    const classes = ["abcxyz", "ABCXYZ", "0123456789", "-_/", ".+=~"];
    let names = 0;
    for (let n = 0; n < 40_000; n++) {
      let t = "";
      for (let p = 1 + Math.floor(pick() * 8); p > 0; p--) {
        const cl = classes[pick() < 0.03 ? 4 : Math.floor(pick() * 4)]!;
        for (let k = 1 + Math.floor(pick() * (pick() < 0.2 ? 18 : 5)); k > 0; k--) t += cl[Math.floor(pick() * cl.length)];
      }
      const want = PIECES.test(t);
      if (want) names++;
      expect([t, namePieces(units(t), 0, t.length)]).toEqual([t, want]);
    }
    expect(names).toBeGreaterThan(2_000);
  });

  test("stay; a random token with dashes goes", () => {
    for (const name of ["release_2024_01_05", "HTTP2_HEADER_AUTHORITY", "PKIX_RSA_PKCS1V15_2048_SHA256", "getUser2FAToken-handler-v2"]) {
      expect(r.text(`value ${name}\n`)).toContain(name);
    }
    const t = `${g.s(A.b62, 12)}-${g.s(A.b62, 11)}9-${g.s(A.b62, 10)}`;
    gone(`secret token ${t}\n`, t);
  });
});

describe("YAML: a bare word under a password key is the value", () => {
  // In code `password: hashedPassword` names a variable or a type; in a YAML block mapping the
  // word is the string itself. What decides is the lines above: a parent `key:` or YAML siblings.
  for (const [name, text] of [
    ["docker compose", "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: CorrectHorseBattery\n"],
    ["spring", "spring:\n  datasource:\n    url: jdbc:postgresql://db/app\n    username: app\n    password: CorrectHorseBattery\n"],
    ["a list item's mapping", "users:\n  - name: admin\n    password: CorrectHorseBattery\n  - name: ci\n"],
    ["a compact list", "users:\n- name: admin\n  password: CorrectHorseBattery\n"],
    ["after a comment and a blank line", "database:\n  # production\n\n  host: db\n  password: CorrectHorseBattery # rotate monthly\n"],
    ["top level", "host: db\nadmin_password: CorrectHorseBattery\n"],
    // A shell prompt's line above is where a command's output starts (sops -d, ansible-vault view, cat).
    ["a command's output after its prompt line", "$ sops -d secrets.enc.yaml\ndb_password: CorrectHorseBattery\n"],
    ["after a user@host prompt", "bob@box:~/app$ ansible-vault view vars.yml\nvault_db_password: CorrectHorseBattery\n"],
  ] as const) {
    test(name, () => onlyTheWordGoes(text));
  }
  for (const [name, text] of [
    ["a Python class body", "@dataclass\nclass User:\n    name: str\n    password: HashedPassword\n"],
    ["a GraphQL type", "type User {\n  id: ID!\n  password: HashedPassword\n  name: String\n}\n"],
    ["a TypeScript interface without semicolons", "interface User {\n  name: string\n  password: HashedPassword\n}\n"],
    ["an object literal's last property", "const cfg = {\n  user: 'a',\n  password: userPassword\n}\n"],
    ["a parameter list", "def login(\n    user: str,\n    password: SecretValue\n):\n"],
    ["a YAML alias", "defaults:\n  password: *sharedPassword\n"],
    ["a member path", "props:\n  password: PropTypes.string\n"],
    ["code printed after a prompt", "$ cat app.py\nclass Config:\n    password: HashedPassword\n"],
    ["a line of code between the prompt and the key", "$ cat app.ts\nlogin()\npassword: HashedPassword\n"],
    ["a key that is not a password's", "steps:\n  - uses: actions/checkout@v4\n    with:\n      token: GitHubToken\n"],
  ] as const) {
    test(`stays: ${name}`, () => {
      expect(r.text(text)).toBe(text);
    });
  }
});

describe("properties files: a bare word after a dotted key is the value", () => {
  for (const line of ["spring.datasource.password=CorrectHorseBattery", "db.password=correct_horse_battery", "mail.smtp.password=CorrectHorseBattery  "]) {
    test(line, () => {
      const out = r.text(`app.name=shop\n${line}\nserver.port=8080\n`);
      expect(out).not.toMatch(/CorrectHorseBattery|correct_horse_battery/);
      expect(out).toMatch(/password=\[REDACTED:password:[0-9a-f]{4}\] *\nserver\.port=8080\n$/);
    });
  }
  // Code assigns a member from a variable: indented, spaced, `;`, a receiver, or camelCase.
  for (const line of ["self.password=password", "this.password=hashedPassword;", "e.password=t", "config.password=userPassword", "  obj.password = NewPassword", "user.password = Password", "app.password=${DB_PASSWORD}", "db.password=changeme"]) {
    test(`stays: ${line}`, () => {
      const text = `${line}\n`;
      expect(r.text(text)).toBe(text);
    });
  }
});

describe("gradle.properties: a camelCase key's bare word in a block of properties lines", () => {
  const file = "org.gradle.jvmargs=-Xmx2g\nossrhUsername=alice\nossrhPassword=CorrectHorseBattery\n\n# Maven Central\nsonatypePassword=BatteryStapleHorse\nsigning.keyId=ABCD1234\n";
  test("each password goes, every other line stays", () => {
    const out = r.text(file);
    expect(out).not.toMatch(/CorrectHorseBattery|BatteryStapleHorse/);
    expect(out).toMatch(/^org\.gradle\.jvmargs=-Xmx2g\nossrhUsername=alice\nossrhPassword=\[REDACTED:password:[0-9a-f]{4}\]\n\n# Maven Central\nsonatypePassword=\[REDACTED:password:[0-9a-f]{4}\]\nsigning\.keyId=ABCD1234\n$/);
  });
  test("the same file as `cat -n` prints it", () => {
    const numbered = file.split("\n").slice(0, -1).map((l, i) => `${String(i + 1).padStart(6)}\t${l}`).join("\n") + "\n";
    expect(r.text(numbered)).not.toMatch(/CorrectHorseBattery|BatteryStapleHorse/);
  });
  // Alone, or among lines of code, `camelCase=Word` is an assignment of a name.
  for (const text of ["ossrhPassword=CorrectHorseBattery\n", "const form = new Form()\nuserPassword=PasswordField\nrender(form)\n", "userPassword=newPassword\nadminPassword=otherPassword\n"]) {
    test(`stays: ${JSON.stringify(text)}`, () => {
      expect(r.text(text)).toBe(text);
    });
  }
});

describe("an environment pair anywhere on its line: NAME=word is the value", () => {
  for (const text of [
    "docker run -e POSTGRES_PASSWORD=CorrectHorseBattery postgres:16\n",
    "kubectl set env deploy/api DB_PASSWORD=CorrectHorseBattery\n",
    "heroku config:set DB_PASSWORD=CorrectHorseBattery -a shop\n",
    "PWD=/app POSTGRES_PASSWORD=CorrectHorseBattery HOME=/root\n",
    'Environment="DB_PASSWORD=CorrectHorseBattery"\n',
    "Environment=DB_PASSWORD=CorrectHorseBattery\n",
    '"Env": [\n    "POSTGRES_PASSWORD=CorrectHorseBattery",\n    "PATH=/usr/bin"\n]\n',
    "ARG DB_PASSWORD=CorrectHorseBattery\n",
  ]) {
    test(text.trim().split("\n")[0]!, () => {
      onlyTheWordGoes(text);
    });
  }
  test("and in a docker inspect value", () => {
    const out = JSON.stringify(r.value({ Config: { Env: ["POSTGRES_PASSWORD=CorrectHorseBattery", "PATH=/usr/bin"] } }));
    expect(out).not.toContain("CorrectHorseBattery");
  });
  test("a Kubernetes env entry's value: line", () => {
    const text = "env:\n- name: DB_PASSWORD\n  value: CorrectHorseBattery\n- name: LOG_LEVEL\n  value: debug\n";
    expect(r.text(text)).toBe(text.replace("CorrectHorseBattery", r.text(text).match(/\[REDACTED:password:[0-9a-f]{4}\]/)?.[0] ?? "(kept)"));
  });
  for (const text of [
    "if (DB_PASSWORD==Password) {}\n",
    "config.DB_PASSWORD=defaultPassword\n",
    "DB_PASSWORD = CorrectHorseBattery\n",
    "DB_PASSWORD=$(cat /run/secrets/db)\n",
    "x = f(DB_PASSWORD=HashedPassword.value)\n",
    "const o = {\n  name: 'DB_PASSWORD',\n  value: dbPassword,\n}\n",
  ]) {
    test(`stays: ${JSON.stringify(text)}`, () => staysWhole(text));
  }
});

describe("a file as a reader numbers it (cat -n, the Read tool): the line is the file's", () => {
  const numbered = (text: string, gutter: "\t" | "→"): string =>
    text.replace(/\n$/, "").split("\n").map((l, i) => `${String(i + 1).padStart(6)}${gutter}${l}`).join("\n") + "\n";
  for (const text of [
    "database:\n  user: app\n  password: CorrectHorseBattery\n",
    "DB_PASSWORD=CorrectHorseBattery\nLOG_LEVEL=debug\n",
    "[client]\nuser = root\npassword = CorrectHorseBattery\n",
    "spring.datasource.password=CorrectHorseBattery\n",
    "env:\n- name: DB_PASSWORD\n  value: CorrectHorseBattery\n",
  ]) {
    for (const gutter of ["\t", "→"] as const) {
      test(`${JSON.stringify(text.split("\n")[0])} numbered with ${JSON.stringify(gutter)}`, () => onlyTheWordGoes(numbered(text, gutter)));
    }
  }
  test("stays: code numbered the same way", () => {
    const input = numbered("@dataclass\nclass User:\n    name: str\n    password: HashedPassword\n", "→");
    expect(r.text(input)).toBe(input);
  });
});

describe("grep output from a settings file: the file's name says what the line is", () => {
  for (const text of [
    "config/database.yml:12:  password: CorrectHorseBattery\n",
    "config/database.yml:  password: CorrectHorseBattery\n",
    "deploy/values.yaml-7-    rootPassword: CorrectHorseBattery\n",
    "/etc/mysql/my.cnf:3:password = CorrectHorseBattery\n",
    "src/main/resources/app.properties:2:db.password=CorrectHorseBattery\n",
  ]) {
    test(text.trim(), () => onlyTheWordGoes(text));
  }
  for (const text of ["src/models/user.ts:5:  password: HashedPassword\n", "src/app.py:3:password = HashedPassword\n", "config/x.yml:3:  password: hashedPassword,\n", "README.md:10:password: Required\n"]) {
    test(`stays: ${text.trim()}`, () => expect(r.text(text)).toBe(text));
  }
});

describe("INI files: a bare word under a [section] is the value", () => {
  for (const text of [
    "[client]\nuser = root\npassword = CorrectHorseBattery\n",
    "[client]\npassword=CorrectHorseBattery\n",
    "[pypi]\n; upload token below\nusername = __token__\n\npassword = CorrectHorseBattery\n",
  ]) {
    test(text.split("\n")[0]!, () => {
      onlyTheWordGoes(text);
    });
  }
  for (const text of ["def f():\n    pass\npassword = CorrectHorseBattery\n", "x = [1]\npassword = HashedPassword\n", "[client]\n  password = HashedPassword\n"]) {
    test(`stays: ${JSON.stringify(text)}`, () => staysWhole(text));
  }
});

describe("a password key is a password's whatever it opens", () => {
  // `DATABASE_PASSWORD` was a connection string's key, whose value must look like a token: a word stayed.
  for (const line of ["DATABASE_PASSWORD=hunter2hunter", "DB_CONNECTION_PASSWORD=correct-horse", "PRIVATE_KEY_PASSPHRASE=correct-horse", "WEBHOOK_PASS=hunter2hunter"]) {
    test(line, () => expect(r.text(`${line}\n`)).toMatch(/^[A-Z_]+=\[REDACTED:password:[0-9a-f]{4}\]\n$/));
  }
  test("a key naming a connection and no password keeps its kind", () => {
    expect(r.text(`DATABASE_URL=postgres://app:${"Xk9mQ2vL7pR4tW8z"}@db/app\n`)).not.toContain("Xk9mQ2vL7pR4tW8z");
  });
});

describe("env files: a bare word after an environment name is the value", () => {
  // In code a bare word is a reference (`password = userPassword`); in an env file, `export` or a
  // Dockerfile `ENV` line, `NAME=word` sets the variable to that word.
  for (const line of [
    "DB_PASSWORD=CorrectHorseBattery",
    "export DB_PASSWORD=CorrectHorseBattery",
    "ENV DB_PASSWORD=CorrectHorseBattery",
    "  DB_PASSWORD=correct_horse_battery",
    "ADMIN_PASS=StaplesAndHorses",
    "  - DB_PASSWORD=CorrectHorseBattery", // a compose environment: list
  ]) {
    test(line, () => {
      const out = r.text(`${line}\nLOG_LEVEL=debug\n`);
      expect(out).not.toMatch(/CorrectHorseBattery|correct_horse_battery|StaplesAndHorses/);
      expect(out).toMatch(/=\[REDACTED:password:[0-9a-f]{4}\]\nLOG_LEVEL=debug\n$/);
    });
  }
  for (const line of [
    "password = CorrectHorseBattery", // code: an assignment from a name
    "PASSWORD = Config.password", // code, spaced
    "db_password=userPassword", // not an environment name
    "DB_PASSWORD=${SECRET_FROM_VAULT}",
    "DB_PASSWORD=changeme",
    "DB_PASSWORD=",
    "  password: hashedPassword,",
  ]) {
    test(`stays: ${line}`, () => {
      const text = `${line}\nLOG_LEVEL=debug\n`;
      expect(r.text(text)).toBe(text);
    });
  }
});

describe("env files: any secret-naming name's value is a secret, a word or not", () => {
  // `cat .env` in a transcript: the values under JWT_SECRET, SESSION_SECRET, CLIENT_SECRET were kept
  // because only a password key's value could be a word; every other key's had to look like a token.
  for (const [line, value] of [
    ["JWT_SECRET=supersecretjwtkey", "supersecretjwtkey"],
    ["SESSION_SECRET=keyboardcatsecret", "keyboardcatsecret"],
    ["CLIENT_SECRET=clientsecretvalue", "clientsecretvalue"],
    ["AUTH_TOKEN=letmeinplease", "letmeinplease"],
    ["ENCRYPTION_KEY=encryptionkeyvalue", "encryptionkeyvalue"],
    ["SECRET_KEY_BASE=developmentsecretkeybase", "developmentsecretkeybase"],
    ['JWT_SECRET="supersecretjwtkey"', "supersecretjwtkey"],
    ["JWT_SECRET='supersecretjwtkey'", "supersecretjwtkey"],
    ["export NEXTAUTH_SECRET=randomstringhere", "randomstringhere"],
    ["ENV SIGNING_KEY=signing-key-dev", "signing-key-dev"],
    ["  - APP_SECRET=mysupersecretvalue", "mysupersecretvalue"],
  ] as const) {
    // Only the value goes: the name, the quotes and the next line stay.
    test(line, () => onlyValueGoes(`${line}\nLOG_LEVEL=debug\n`, value));
  }
  for (const line of [
    "TOKEN_VAR=GITHUB_TOKEN", // names another variable
    "API_SECRET=apisecret", // names its own key
    "JWT_SECRET=jwt-secret",
    "JWT_SECRET=your_jwt_secret_here", // a placeholder
    "API_KEY=<your-api-key>",
    "NPM_TOKEN=${NPM_TOKEN}",
    "FLASK_SECRET_KEY=dev", // too short to be anything
    'ACCESS_TOKEN = "access_token"', // code: a constant naming a field, spaced
    "const API_KEY='apikeyname'", // code: not an environment line
    "TOKEN_EXPIRY=3600",
    "JWT_ALGORITHM=HS256",
    "SESSION_DRIVER=redis",
    "SECRETS_DIR=/run/secrets",
  ]) {
    test(`stays: ${line}`, () => staysWhole(`${line}\nLOG_LEVEL=debug\n`));
  }
});

describe("an environment name's bare word in a YAML mapping or an env pair is the value", () => {
  for (const [text, value] of [
    ["services:\n  api:\n    environment:\n      JWT_SECRET: supersecretjwtkey\n      LOG_LEVEL: debug\n", "supersecretjwtkey"],
    ["env:\n  SESSION_SECRET: keyboardcatsecret\n  NODE_ENV: production\n", "keyboardcatsecret"],
    ["data:\n  SIGNING_KEY: signing-key-dev\n", "signing-key-dev"],
    ["$ docker run -e JWT_SECRET=supersecretjwtkey -e PORT=80 api\n", "supersecretjwtkey"],
  ] as const) {
    test(JSON.stringify(text.split("\n").find((l) => l.includes(value))), () => onlyValueGoes(text, value));
  }
  for (const text of [
    "const ERRORS = {\n  INVALID_TOKEN: invalidToken,\n  TOKEN_EXPIRED: tokenExpired,\n};\n", // an object literal: names
    "env:\n  TOKEN_VAR: GITHUB_TOKEN\n  API_SECRET: apisecret\n",
    "class Config:\n  SECRET_KEY: str\n",
    "env:\n  API_TOKEN: ${{ secrets.API_TOKEN }}\n",
    "spec:\n  secret: mysql-credentials\n", // a lower-case key: a Secret object's name
  ]) {
    test(`stays: ${JSON.stringify(text)}`, () => staysWhole(text));
  }
});

describe("Makefiles, Terraform variables, query pairs and editor gutters", () => {
  for (const [text, value] of [
    ["DB_PASSWORD ?= CorrectHorseBattery\nall: build\n", "CorrectHorseBattery"],
    ["DB_PASSWORD := CorrectHorseBattery\n", "CorrectHorseBattery"],
    ["export API_TOKEN ?= Xk9mQ2vL7pR4tW8z\n", "Xk9mQ2vL7pR4tW8z"],
    ['variable "db_password" {\n  default = "CorrectHorseBattery"\n}\n', "CorrectHorseBattery"],
    ['variable "api_token" {\n  type      = string\n  sensitive = true\n  default   = "Xk9mQ2vL7pR4tW8z"\n}\n', "Xk9mQ2vL7pR4tW8z"],
    ["GET https://sms.example.com/send?user=admin&pwd=CorrectHorseBattery&to=123\n", "CorrectHorseBattery"],
    ["   12 |   password: CorrectHorseBattery\n   13 |   user: app\n", "CorrectHorseBattery"],
    ["  3 │ DB_PASSWORD=CorrectHorseBattery\n", "CorrectHorseBattery"],
    // `pwd` as a key with a quoted value that names no directory: a password (a login form's JSON, a config).
    ['{"user":"bob","pwd":"CorrectHorseBattery"}\n', "CorrectHorseBattery"],
    ["pwd = 'CorrectHorseBattery'\n", "CorrectHorseBattery"],
    ['  pwd: "Tr0ub4dor&3"\n', "Tr0ub4dor&3"],
    // `pw` qualified (`db_pw`, `ROOT_PW`, `admin-pw`): a password's key.
    ["DB_PW=CorrectHorseBattery\n", "CorrectHorseBattery"],
    ['root_pw: "CorrectHorseBattery"\n', "CorrectHorseBattery"],
    // A value alone after the label, or an assignment's word with more after it, is still the value.
    ["Password: Wintersunrise\n", "Wintersunrise"],
    ["DB_PASSWORD=Wintersunrise be\n", "Wintersunrise"],
    ["--admin-pw CorrectHorseBattery\n", "CorrectHorseBattery"],
    // A YAML block scalar of one line under a password key, and C#'s verbatim string.
    ["env:\n  DB_PASSWORD: >-\n    CorrectHorseBattery\n  LOG_LEVEL: debug\n", "CorrectHorseBattery"],
    ["tls:\n  password: |\n    CorrectHorseBattery\nnext: 1\n", "CorrectHorseBattery"],
    ['options.Password = @"CorrectHorseBattery";\n', "CorrectHorseBattery"],
    // R's assignment arrow before a literal.
    ['db_password <- "CorrectHorseBattery"\n', "CorrectHorseBattery"],
  ] as const) {
    test(JSON.stringify(text.split("\n").find((l) => l.includes(value))), () => onlyValueGoes(text, value));
  }
  for (const text of [
    "PWD=/home/me/project\n", // the working directory
    "cd ~/src && echo $PWD\n",
    "OUT_DIR ?= build\n",
    "DB_PASSWORD ?= $(shell cat .secret)\n",
    'variable "db_password" {\n  type      = string\n  sensitive = true\n}\n',
    'variable "region" {\n  default = "eu-west-1"\n}\n',
    "GET https://example.com/files?pwd=%2Fhome%2Fme\n".replace("%2Fhome%2Fme", "/home/me"),
    "   12 |   password: hashedPassword,\n",
    // `pwd` unquoted, or naming a directory: the working directory.
    '{"pwd": "/home/me/project", "user": "me"}\n',
    'pwd: "~/src"\n',
    '"pwd": "."\n',
    '"pwd": "C:\\\\Users\\\\me"\n',
    "bash: pwd: command not found\n",
    // A form's text after the label: a capitalised word opening a sentence.
    "Password: Enter your password\nPassword: Must be at least 8 characters\nPassword: Choose a strong one\n",
    // A block of two lines is a key's or a cert's (their rules'), and `>` after a colon on a command line is a redirection.
    "password: |\n  line one\n  line two\n",
    "cmd: echo a | tee\npassword: >file.txt\n",
    // `pw` alone is a name (Playwright's), and R's arrow binds a call, Go's sends on a channel.
    'const pw = require("playwright")\npw: 3\n',
    'db_password <- Sys.getenv("DB_PASSWORD")\ntoken <- ch\n',
    "DB_PW=${DB_PW}\nmy_pwm: 4\n",
    "pwd: ${{ github.workspace }}\n",
  ]) {
    test(`stays: ${JSON.stringify(text)}`, () => staysWhole(text));
  }
});

describe("an environment value that names a secret object stays", () => {
  for (const line of ["K8S_SECRET=db-credentials", "TLS_SECRET=prod-tls", "APP_SECRET=my-app-secret", "JWT_SECRET_NAME=jwt-signing-key", "  SESSION_SECRET: redis-session-secrets"]) {
    test(line, () => staysWhole(`${line}\nLOG_LEVEL=debug\n`));
  }
});

describe("a passphrase under a password key: four to eight lower-case words", () => {
  const phrase = "correct horse battery staple";
  for (const text of [`passphrase: "${phrase}"\n`, `PASSPHRASE="${phrase}"\n`, `{"password": "${phrase}"}\n`, `ssh_passphrase = "tulip brave orbit candle sunset"\n`, `"password": "correct-horse-battery-staple"\n`]) {
    test(text.trim(), () => onlyValueGoes(text, (/"([^"]+)"\n?\}?\n$/.exec(text) ?? [])[1]!));
  }
  for (const text of [
    '"password": "Enter your password here"\n', // a label: a capital, and prose words
    '"confirmPassword": "confirm your new password"\n', // lower-case UI text
    '"password": "forgot your password again"\n',
    '"passwordHint": "use at least eight characters"\n',
    'passphrase: "keyboard cat"\n', // two words: too few to tell from a label
    '"password": "Passwort bestätigen"\n',
  ]) {
    test(`stays: ${text.trim()}`, () => staysWhole(text));
  }
});

describe("a password term glued to a short qualifier (wp-cli's --dbpass)", () => {
  for (const text of [
    "wp config create --dbname=wp --dbuser=root --dbpass=CorrectHorseBattery\n",
    "DBPASS=CorrectHorseBattery\n",
    "ROOTPWD=CorrectHorseBattery\n",
    "  smtppass: CorrectHorseBattery\n",
  ]) {
    test(text.trim(), () => onlyTheWordGoes(text));
  }
  for (const text of ["bypass=true\n", "--bypass-cache CorrectHorseBattery\n", "compass: CorrectHorseBattery\n", "surpass = CorrectHorseBattery\n", "mypass=CorrectHorseBattery\n"]) {
    test(`stays: ${text.trim()}`, () => staysWhole(text));
  }
});

describe("settings files, query pairs and header names", () => {
  test("an INI or TOML section's secret-named key takes a word, quoted or bare", () => {
    onlyValueGoes("[server]\njwt_secret = correcthorsebattery\nport = 8080\n", "correcthorsebattery");
    onlyValueGoes('[auth]\napi_key = "swordfishocean"\n', "swordfishocean");
    onlyValueGoes("[session]\n; signing\nsession_secret = 'blue-monkey-dance'\n", "blue-monkey-dance");
    // Names and references stay, and so does code with no section above it.
    staysWhole("[server]\ntoken_name = deploy\nsecret_key_ref = my_secret_name\n");
    staysWhole("jwt_secret = correcthorsebattery\n");
    staysWhole("def f():\n    jwt_secret = correcthorsebattery\n");
  });
  test("a query or form pair's pw", () => {
    onlyValueGoes("curl 'https://legacy.example.com/login?user=bob&pw=Sup3rSecretPw'\n", "Sup3rSecretPw");
    onlyValueGoes("GET /auth?username=alice&pw=zebra-Falcon-42 HTTP/1.1\n", "zebra-Falcon-42");
    staysWhole("PW=/home/me\nexport PW=abc\nnpw=3\n");
  });
  test("a header's name under a key that says it holds one", () => {
    staysWhole("API_KEY_HEADER=X-Api-Key\nTOKEN_HEADER_NAME=X-Auth-Token\n");
    staysWhole("auth_header = 'Proxy-Authorization'\n");
    onlyValueGoes("SECRET_HEADER=Xk9mLq2Vn8pT\n", "Xk9mLq2Vn8pT");
  });
  test("an HTTP header's word value is what the client sends: a header line, curl's -H and --header", () => {
    onlyValueGoes("X-Auth-Token: hunter2hunter\n", "hunter2hunter");
    onlyValueGoes('curl -s -H "X-Api-Key: correcthorsebattery" https://api.acme.io/v1/items\n', "correcthorsebattery");
    onlyValueGoes("curl --header 'Private-Token: swordfishocean' https://gitlab.acme.io/api/v4/projects\n", "swordfishocean");
    onlyValueGoes("GET /v1/items HTTP/1.1\nHost: api.acme.io\nX-Api-Key: blue-monkey-dance\nAccept: */*\n", "blue-monkey-dance");
    // Types, references, placeholders, headers that name no secret, and prose stay.
    staysWhole("X-Api-Key: required\nX-Auth-Token: string\nX-Api-Key: YOUR_API_KEY\nX-Auth-Token: $TOKEN\nX-Api-Key: <key>\n");
    staysWhole("Content-Type: application/json\nX-Request-Id: correcthorsebattery\n");
    staysWhole("Send the X-Api-Key: the key from your dashboard.\n");
  });
  test("kinds: AUTH_TOKEN is anyone's token, .npmrc's _authToken npm's; a webhook's secret is no URL", () => {
    const t = tok();
    expect(r.text(`AUTH_TOKEN=${t}\n`)).toMatch(/^AUTH_TOKEN=\[REDACTED:generic-secret:/);
    expect(r.text(`//registry.npmjs.org/:_authToken=${t}\n`)).toMatch(/:_authToken=\[REDACTED:npm-auth:/);
    expect(r.text(`WEBHOOK_SECRET=${t}\n`)).toMatch(/^WEBHOOK_SECRET=\[REDACTED:generic-secret:/);
    expect(r.text(`SLACK_WEBHOOK_URL=https://hooks.acme-corp.io/hook/${t}\n`)).toMatch(/webhook-url/);
  });
});

describe("YAML tags where a value would be", () => {
  test("an Ansible vault block and CloudFormation's intrinsic functions are no password", () => {
    staysWhole("db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  62383031623736363235356436346161316131373863373639343537313535313631393936613961\n");
    staysWhole("Resources:\n  DB:\n    Properties:\n      MasterUserPassword: !Ref DBPassword\n      Password: !GetAtt Secret.Value\n");
  });
  test("a core type tag's value is the literal after it", () => {
    onlyValueGoes("password: !!str CorrectHorseBattery\n", "CorrectHorseBattery");
    onlyValueGoes('password: !!str "CorrectHorseBattery"\n', "CorrectHorseBattery");
    const t = tok(24);
    onlyValueGoes(`api_token: !!str ${t}\n`, t);
    // A quoted value that opens with `!` is a value.
    onlyValueGoes('password: "!notatag-Xk9mQ2"\n', "!notatag-Xk9mQ2");
  });
});

test("a value that opens with `!` after `=` or `:` with no space is a value, not a YAML tag", () => {
  onlyValueGoes("DB_PASSWORD=!qaGRHLUCddGqw\n", "!qaGRHLUCddGqw");
  onlyValueGoes("password:!qaGRHLUCddGqw\n", "!qaGRHLUCddGqw");
});

test("a password that opens with `!` after `: ` is no YAML tag unless the tag is a known one", () => {
  onlyValueGoes("Password: !Xk9mQ2vL7pR4tW8z\n", "!Xk9mQ2vL7pR4tW8z");
  onlyValueGoes("db_password: !CorrectHorseBattery\n", "!CorrectHorseBattery");
});

describe("an indexer's key being assigned: the value after `] =` is the key's", () => {
  for (const text of [
    'os.environ["DB_PASSWORD"] = "CorrectHorseBattery"\n',
    "$db['default']['password'] = 'CorrectHorseBattery';\n",
    'ENV["DB_PASSWORD"] = "CorrectHorseBattery"\n',
    'settings["api_token"] = "Xk9mQ2vL7pR4tW8zYb3N"\n',
  ]) {
    test(text.trim(), () => {
      const out = r.text(text);
      expect(out).not.toMatch(/CorrectHorseBattery|Xk9mQ2vL7pR4tW8zYb3N/);
      expect(out.replace(/\[REDACTED:[a-z-]+:[0-9a-f]{4}\]/, "X")).toBe(text.replace(/CorrectHorseBattery|Xk9mQ2vL7pR4tW8zYb3N/, "X"));
    });
  }
  // Reading the variable, a value that is code, and a value that is the key's own name.
  for (const text of ['x = os.environ["DB_PASSWORD"]\n', 'if os.environ["DB_PASSWORD"]:\n', 'params["password"] = password\n', 'data["token"] = resp.json()["token"]\n', "dict_spec['api_password'] = 'api_password'\n", "def f(_core_token=_core_token):\n"]) {
    test(`stays: ${text.trim()}`, () => {
      expect(r.text(text)).toBe(text);
    });
  }
});

describe("git diff of a settings file: the +/- marker is not part of the line", () => {
  const diff = "diff --git a/.env b/.env\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,3 @@\n-DB_PASSWORD=OldHorseBattery\n+DB_PASSWORD=CorrectHorseBattery\n DB_USER=app\n-spring.datasource.password=StaleHorseBattery\n+spring.datasource.password=NewHorseBattery\n";
  test("both sides of each changed password go; the headers and names stay", () => {
    const out = r.text(diff);
    expect(out).not.toMatch(/OldHorseBattery|CorrectHorseBattery|StaleHorseBattery|NewHorseBattery/);
    expect(out.replace(/\[REDACTED:password:[0-9a-f]{4}\]/g, "X")).toBe(diff.replace(/[A-Z][a-z]+HorseBattery/g, "X"));
  });
  // A YAML list item and a flag are read as they were: `- ` and `--` are no diff markers.
  test("a YAML list item's password still goes as a YAML value", () => {
    expect(r.text("users:\n- name: app\n  password: CorrectHorseBattery\n")).toMatch(/^users:\n- name: app\n  password: \[REDACTED:password:[0-9a-f]{4}\]\n$/);
  });
  for (const text of ["--password=$DB_PASSWORD\n", "-Dlog.level=debug\n"]) {
    test(`stays: ${JSON.stringify(text)}`, () => expect(r.text(text)).toBe(text));
  }
});

describe("git diff of a YAML file: inside a hunk every line's first character is its marker", () => {
  // Each value reads as a variable's name in code (camelCase and a digit): only the YAML around it makes it a literal.
  const values = /(?:old|new|ctx)Secret4\d/g;
  const only = (text: string): void => {
    const out = r.text(text);
    expect(out).not.toMatch(values);
    expect(out.replace(/\[REDACTED:password:[0-9a-f]{4}\]/g, "X")).toBe(text.replace(values, "X"));
  };
  test("a removed line's indentation after its `-`, and the added line under it", () =>
    only("diff --git a/config/database.yml b/config/database.yml\n--- a/config/database.yml\n+++ b/config/database.yml\n@@ -1,5 +1,5 @@\n production:\n   adapter: postgresql\n   username: app\n-  password: oldSecret42\n+  password: newSecret43\n   host: db.internal\n"));
  test("a context line's password (its marker is a space)", () => only("@@ -4,5 +4,5 @@ production:\n   adapter: postgresql\n-  username: old\n+  username: app\n   password: ctxSecret42\n"));
  test("top-level keys under a hunk header with no section", () => only("@@ -1,3 +1,3 @@\n user: app\n-password: oldSecret42\n+password: newSecret43\n"));
  test("a hunk read with line numbers (`cat -n` of a .patch)", () => only("     1\t@@ -1,3 +1,3 @@\n     2\t db:\n     3\t-  password: oldSecret42\n     4\t+  password: newSecret43\n"));
  test("one removed line alone (an Edit tool's structuredPatch line)", () => only("-  password: oldSecret42\n"));
  // A hunk of code: git's section heading says so (an object literal, a class, a function).
  for (const text of [
    "@@ -10,3 +10,3 @@ const config = {\n-  password: oldValue\n+  password: hashedPassword\n }\n",
    "@@ -10,3 +10,3 @@ const config = {\n   user: name,\n+  password: hashedPassword\n }\n",
    "@@ -10,7 +10,7 @@ export function login(user) {\n   return client.auth({\n     username: user.name,\n-    password: user.pass,\n+    password: hashedPassword,\n   });\n",
    "@@ -1,4 +1,4 @@\n interface Creds {\n   user: string;\n-  password: string;\n+  password: Secret;\n }\n",
  ]) {
    test(`stays: ${JSON.stringify(text.split("\n")[0])}`, () => staysWhole(text));
  }
});

describe("a literal behind a declared type, a wrapper, a string prefix or a default's operator", () => {
  for (const text of [
    'var password: String = "Zq7wintersun"\n',
    'const password: string = "Zq7wintersun";\n',
    'static PASSWORD: &str = "Zq7wintersun";\n',
    "static PASSWORD: &'static str = \"Zq7wintersun\";\n",
    'let password = String::from("Zq7wintersun");\n',
    '    password: String::from("Zq7wintersun"),\n',
    'let password: Option<String> = Some(String::from("Zq7wintersun"));\n',
    'password: SecretStr = SecretStr("Zq7wintersun")\n',
    'password := []byte("Zq7wintersun")\n',
    'password = Buffer.from("Zq7wintersun")\n',
    'password = b"Zq7wintersun"\n',
    'password = f"Zq7wintersun"\n',
    "PASSWORD = '''Zq7wintersun'''\n",
    'DB_PASSWORD ||= "Zq7wintersun"\n',
    'config.password ??= "Zq7wintersun";\n',
    // A hashing call under a password key: the literal is the plaintext.
    "  data: { email: 'a@b.c', password: await hash('Zq7wintersun', 10) },\n",
    "  password: bcrypt.hashSync('Zq7wintersun', 8),\n",
    "password = make_password('Zq7wintersun')\n",
  ]) {
    test(text.trim(), () => onlyValueGoes(text, "Zq7wintersun"));
  }
  // An f-string with a field, a raw string (a regex's), a call, a type with no literal, a wrapper around a name.
  for (const text of [
    'password = f"{user}-{pw}"\n',
    "key_or_pass = r'(?:key|pwd|password|pass|token)'\n",
    'password: String = getPassword()\n',
    'password: str = Field(default=None)\n',
    'let password: Option<String> = None;\n',
    'password = Buffer.from(data, "base64")\n',
    "password: Some(x)\n",
    "password: hash(user.password)\n",
    "password: await hash(password, 10)\n",
    "password: someFn('Zq7wintersun')\n",
  ]) {
    test(`stays: ${text.trim()}`, () => staysWhole(text));
  }
});

describe("what tools print of a structure: terraform plan's changes, PHP's var_dump, XML elements named by an attribute", () => {
  for (const text of [
    '  ~ password = "Tr0ub4dor3x" -> "Zq7wintersun"\n',
    '      ~ master_password = "Tr0ub4dor3x" -> "Zq7wintersun"\n',
    '      ~ "password" = "Tr0ub4dor3x" -> "Zq7wintersun"\n',
    'array(2) {\n  ["user"]=>\n  string(3) "app"\n  ["password"]=>\n  string(12) "Zq7wintersun"\n}\n',
    '<param name="password">Zq7wintersun</param>\n',
    '<property name="db.password">Zq7wintersun</property>\n',
  ]) {
    test(text.trim().split("\n").pop()!, () => {
      const out = r.text(text);
      expect(out).not.toMatch(/Zq7wintersun|Tr0ub4dor3x/);
      expect(out.replace(/\[REDACTED:[a-z-]+:[0-9a-f]{4}\]/g, "X")).toBe(text.replace(/Zq7wintersun|Tr0ub4dor3x/g, "X"));
    });
  }
  for (const text of ['  ~ name = "web-1" -> "Zq7wintersun"\n', '  ~ tags = { "a" = "b" -> "c" }\n', 'array(1) {\n  ["name"]=>\n  string(12) "Zq7wintersun"\n}\n', '<param name="title">Zq7wintersun</param>\n', '<param name="password">${db.password}</param>\n']) {
    test(`stays: ${text.trim().split("\n")[0]}`, () => staysWhole(text));
  }
});

describe("an ACL token's secret in Consul's and Nomad's listings", () => {
  for (const text of [
    "AccessorID:       6a1253d2-1785-282d-8f9f-5c0a1c8d2b4e\nSecretID:         3f2e1d4c-5b6a-7980-1a2b-3c4d5e6f7a8b\nDescription:      ci\n",
    "Accessor ID  = 6a1253d2-1785-282d-8f9f-5c0a1c8d2b4e\nSecret ID    = 3f2e1d4c-5b6a-7980-1a2b-3c4d5e6f7a8b\nName         = ci\n",
  ]) {
    test(text.split("\n")[1]!, () => {
      const out = r.text(text);
      expect(out).not.toContain("3f2e1d4c-5b6a-7980-1a2b-3c4d5e6f7a8b");
      expect(out).toContain("6a1253d2-1785-282d-8f9f-5c0a1c8d2b4e");
      expect(out.replace(/\[REDACTED:[a-z-]+:[0-9a-f]{4}\]/, "3f2e1d4c-5b6a-7980-1a2b-3c4d5e6f7a8b")).toBe(text);
    });
  }
  // nsswitch.conf's aligned `passwd:` names a database, whatever lies past the key/value rule's eight spaces.
  test("stays: passwd:         files systemd", () => staysWhole("passwd:         files systemd\ngroup:          files systemd\n"));
  // Go's struct literal sets the field from another (the scanners' own code, external.ts's real files).
  test("stays: SecretID:   target.SecretID,", () => staysWhole("\t\tSecretID:   target.SecretID,\n"));
});

describe("query output: a secret-named column's cells, a settings table's values, Vault's and redis-cli's listings", () => {
  const W = "Zq7wintersun";
  for (const [name, text] of [
    ["psql", ` id |    email    |   password\n----+-------------+--------------\n  1 | a@b.c       | ${W}\n(1 row)\n`],
    ["MySQL", `+----+-------+--------------+\n| id | email | password     |\n+----+-------+--------------+\n|  1 | a@b.c | ${W} |\n+----+-------+--------------+\n`],
    ["psql's \\x record", `-[ RECORD 1 ]----------\nid       | 1\npassword | ${W}\nemail    | a@b.c\n`],
    ["a settings table's name and value", `    name     |    value\n-------------+--------------\n db_password | ${W}\n db_host     | db\n`],
    ["vault kv get", `====== Data ======\nKey         Value\n---         -----\npassword    ${W}\nusername    admin\n`],
    ["PowerShell's Get-ChildItem env:", `\nName                           Value\n----                           -----\nProgramFiles(x86)              C:\\Program Files (x86)\nDB_PASSWORD                    ${W}\nTEMP                           C:\\Temp\n`],
    ["redis-cli CONFIG GET", `127.0.0.1:6379> CONFIG GET requirepass\n1) "requirepass"\n2) "${W}"\n`],
  ] as const) {
    test(name, () => onlyValueGoes(text, W));
  }
  for (const text of [
    " id | name  | password_hash\n----+-------+--------------------------------------------------------------\n  1 | admin | $2b$12$vOOMCJsx23nb1rG51jCP8mnHsZRDbOoHxcK3RwR1Ksn45oRvZWG6t\n(1 row)\n",
    " id | email | password\n----+-------+----------\n  1 | a@b.c | pbkdf2_sha256$600000$abc$def=\n(1 row)\n",
    " id | token_count\n----+-------------\n  1 | 12345\n",
    "Key                 Value\n---                 -----\nrefresh_interval    768h\nusername            admin\n",
    '127.0.0.1:6379> CONFIG GET maxmemory\n1) "maxmemory"\n2) "0"\n',
  ]) {
    test(`stays: ${text.split("\n")[0]}`, () => staysWhole(text));
  }
});

describe("a name field labels the value field of its element, read as printed text", () => {
  for (const text of [
    '{"key":"DB_PASSWORD","value":"Zq7wintersun","type":"encrypted","target":["production"]}\n',
    '[{"name": "DB_PASSWORD", "slotSetting": false, "value": "Zq7wintersun"}]\n',
    '    {\n      "Name": "DB_PASSWORD",\n      "Value": "Zq7wintersun"\n    }\n',
    '{"ParameterKey": "DBPassword", "ParameterValue": "Zq7wintersun"}\n',
    "aws cloudformation deploy --parameter-overrides ParameterKey=DBPassword,ParameterValue=Zq7wintersun\n",
    // A SecureString parameter's value, whatever its name (`aws ssm get-parameter`).
    '{"Parameter": {"Name": "/prod/db/password", "Type": "SecureString", "Value": "Zq7wintersun", "Version": 3}}\n',
    // A Key Vault secret's value, whatever its name (`az keyvault secret show`), and an empty object between.
    '{\n  "id": "https://kv.vault.azure.net/secrets/db-conn/0a1b2c3d",\n  "name": "db-conn",\n  "tags": {},\n  "value": "Zq7wintersun"\n}\n',
    '{"name": "DB_PASSWORD", "tags": {}, "value": "Zq7wintersun"}\n',
  ]) {
    test(text.trim().split("\n")[0]!, () => onlyValueGoes(text, "Zq7wintersun"));
  }
  for (const text of [
    '{"name": "DB_HOST", "slotSetting": false, "value": "db.example.com"}\n',
    '{"Parameter": {"Name": "/prod/db/host", "Type": "String", "Value": "Zq7wintersun"}}\n',
    '{"name": "DB_PASSWORD", "a": 1, "b": 2, "c": 3, "d": 4, "value": "Zq7wintersun"}\n',
  ]) {
    test(`stays: ${text.trim()}`, () => staysWhole(text));
  }
});

describe("a reference's default is a literal: ${NAME:default}, ${NAME:-default}", () => {
  for (const text of [
    "spring:\n  datasource:\n    password: ${DB_PASSWORD:CorrectHorseBattery}\n",
    "DB_PASSWORD=${DB_PASSWORD:-CorrectHorseBattery}\n",
    'password: "${DB_PASSWORD:CorrectHorseBattery}"\n',
  ]) {
    test(text.trim().split("\n").pop()!, () => {
      const out = r.text(text);
      expect(out).not.toMatch(/CorrectHorseBattery/);
      expect(out.replace(/\[REDACTED:password:[0-9a-f]{4}\]/, "CorrectHorseBattery")).toBe(text);
    });
  }
  for (const text of ["password: ${DB_PASSWORD}\n", "password: ${DB_PASSWORD:}\n", "password: ${DB_PASSWORD:${FALLBACK}}\n", "password: ${DB_PASSWORD:changeme}\n"]) {
    test(`stays: ${text.trim()}`, () => expect(r.text(text)).toBe(text));
  }
});

describe("hostapd.conf and NetworkManager: a snake_case key's bare word in a block of settings lines; a Wi-Fi psk", () => {
  test("hostapd.conf's wpa_passphrase goes, the rest stays", () => onlyTheWordGoes("interface=wlan0\nssid=home\nwpa=2\nwpa_passphrase=CorrectHorseBattery\n"));
  test("a NetworkManager keyfile's psk goes", () => onlyTheWordGoes("[wifi-security]\nkey-mgmt=wpa-psk\npsk=CorrectHorseBattery\n"));
  test("wpa_supplicant.conf's quoted psk goes", () => onlyTheWordGoes('network={\n    ssid="home"\n    psk="CorrectHorseBattery"\n}\n'));
  for (const text of ["db_password=CorrectHorseBattery\n", "x = compute()\ndb_password=user_password\nprint(x)\n", "psk_identity=device42\nuse_psk=1\n"]) {
    test(`stays: ${JSON.stringify(text)}`, () => staysWhole(text));
  }
});

describe("a password key in a comment: the word ending the line or the comment", () => {
  for (const text of [
    "# admin password: CorrectHorseBattery\n",
    "ssh-copy-id bob@host  # password: CorrectHorseBattery\n",
    "<!-- password: CorrectHorseBattery -->\n",
    "// db password = CorrectHorseBattery\n",
    "-- password: Hunter2Hunter2\n",
  ]) {
    test(text.trim(), () => onlyValueGoes(text, text.includes("Hunter2") ? "Hunter2Hunter2" : "CorrectHorseBattery"));
  }
  for (const text of [
    "# password: required for login\n",
    "# password: encrypted\n".replace("encrypted", "optional"),
    "// password: string\n",
    "  * @param password: Password to use\n",
    "# Set password: yourPassword\n",
    "# password: ${DB_PASSWORD}\n",
    "let password: Password = p // typed\n",
  ]) {
    test(`stays: ${text.trim()}`, () => staysWhole(text));
  }
});

describe("a password key's pair after another pair on its line, outside any bracket: the made-up word goes", () => {
  for (const text of [
    "login: admin, password: CorrectHorseBattery\n",
    "Created user. Username: admin, Password: CorrectHorseBattery\n",
    "level=info msg=\"user created\" user=admin password=CorrectHorseBattery\n",
    "user=admin password=CorrectHorseBattery ./bin/seed\n",
    "host: db; user: app; password: CorrectHorseBattery; port: 5432\n",
    "account | user: admin | password: CorrectHorseBattery\n",
  ]) {
    test(text.trim(), () => onlyValueGoes(text, "CorrectHorseBattery"));
  }
  for (const text of [
    // An object literal's line without its braces: a camelCase name.
    "  login: admin, password: userPassword,\n",
    // Inside braces or parentheses: code.
    "const opts = { login: admin, password: CorrectHorseBattery };\n",
    "connect(user=admin, password=CorrectHorseBattery)\n",
    "User{Login: admin, Password: CorrectHorseBattery}\n",
    // Words that are no password: a placeholder's name, a description, a type, a constant's name.
    "login: admin, password: Password\n",
    "login: admin, password: required\n",
    "fields: name, email, password: String\n",
  ]) {
    test(`stays: ${text.trim()}`, () => staysWhole(text));
  }
});

describe("a password key a few words of prose label, its value ending the line: the made-up word goes", () => {
  for (const text of [
    "Generated password: CorrectHorseBattery\n",
    "Your password: CorrectHorseBattery\n",
    "Temporary password: CorrectHorseBattery\n",
    "\u2713 Initial admin password: CorrectHorseBattery (change it after first login)\n",
    "  - Root password: CorrectHorseBattery\n",
    "INFO: connecting with password=CorrectHorseBattery\n",
  ]) {
    test(text.trim(), () => onlyValueGoes(text, "CorrectHorseBattery"));
  }
  for (const text of [
    // Declarations: a field's or parameter's type.
    "  private readonly password: SecretString\n",
    "  let password: SecureString\n",
    "  required string password: PasswordFormat\n",
    "  let password=SecretValue\n",
    "  return password=SecretValue\n",
    // Words that describe, and placeholders.
    "Default password: None\n",
    "Enter password: ********\n",
    "Your password: ${PASSWORD}\n",
    // The value does not end the line.
    "Your password: CorrectHorseBattery is weak, change it\n",
  ]) {
    test(`stays: ${text.trim()}`, () => staysWhole(text));
  }
});
