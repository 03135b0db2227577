/**
 * Secrets laid out for a reader (rules/markup.ts): what an agent writes when
 * it reports the credentials it set up (Markdown bold labels and tables),
 * what Windows prints with padded labels, and XML that names a setting in one
 * element and holds it in the next. Each negative is the same layout with
 * documentation, a type, a placeholder or a note where the value would be.
 */
import { describe, expect, test } from "bun:test";
import { createRedactor } from "../../lib/redact/index.ts";
import { leak } from "./shapes.ts";

const r = createRedactor({ fingerprintKey: "k" });
const W = "CorrectHorseBattery";
// Random enough for a token's bar under a key or token label.
const T = "Xk9mQ2vL7pR4tW8zB3nC";
const TAG = /\[REDACTED:[a-z-]+:[0-9a-f]{4}\]/g;

/** Every copy of `secret` goes, and the text comes back whole with it put back. */
function onlySecretGoes(input: string, secret: string): void {
  const out = r.text(input);
  expect(leak(out, secret)).toBeUndefined();
  expect(out.replace(TAG, secret)).toBe(input);
}

describe("Markdown's bold labels", () => {
  for (const [input, secret] of [
    [`- **Password:** ${W}\n`, W],
    [`**Password**: \`${W}\`\n`, W],
    [`* **DB password:** \`${W}\`\n`, W],
    [`**Admin password:** ${W}\n`, W],
    [`**Password:** Hunter2Hunter2 (change it after the first login)\n`, "Hunter2Hunter2"],
    [`**API key:** \`${T}\`\n`, T],
    [`__Token__: ${T}\n`, T],
  ] as const) {
    test(input.trim(), () => onlySecretGoes(input, secret));
  }
  for (const input of [
    "**Password:** required\n",
    "**Password:** must be at least 12 characters\n",
    "**Password:** encrypted at rest\n",
    "**Token:** see below\n",
    "**API Key**: Your API key from the dashboard\n",
    `**API key:** \`${W}\`\n`,
    "- **password** (string): the password\n",
    "**Note:** the password is in the vault\n",
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("tables: a row's name cell, a column's header", () => {
  for (const [input, secret] of [
    [`| Variable | Value |\n|---|---|\n| DB_PASSWORD | ${W} |\n| DB_HOST | db.internal |\n`, W],
    [`| Service | User | Password |\n|---------|------|----------|\n| Postgres | admin | ${W} |\n| Redis | default | \`${W}\` |\n`, W],
    [`│ DB_PASSWORD │ ${W} │\n`, W],
    [`┌─────────────┬──────────┐\n│ NAME        │ VALUE    │\n├─────────────┼──────────┤\n│ API_TOKEN   │ ${T} │\n└─────────────┴──────────┘\n`, T],
    [`| Key | Value |\n|---|---|\n| api_key | ${T} |\n`, T],
    [`| App | Secret key |\n| :-- | :-- |\n| web | ${T} |\n`, T],
    // A CLI's Field/Value table (OpenStack's), the secret its last row: the rule under it is the table's bottom, no header's.
    [`+----------+------------------+\n| Field    | Value            |\n+----------+------------------+\n| password | ${W}  |\n+----------+------------------+\n`, W],
  ] as const) {
    test(input.split("\n").filter(Boolean).pop()!.trim(), () => onlySecretGoes(input, secret));
  }
  for (const input of [
    "| Option | Description |\n|---|---|\n| `--password` | The password to use |\n",
    "| Name | Type | Description |\n|------|------|-------------|\n| password | string | User's password |\n",
    "| password | string | User's password |\n",
    "| Field | Required |\n|---|---|\n| password | yes |\n| token | no |\n",
    "| Secret name | Description |\n|---|---|\n| DB_PASSWORD | Password for the database |\n",
    "| Service | Password |\n|---|---|\n| db | ******** |\n| cache | (see vault) |\n| api | — |\n| web | `$WEB_PASSWORD` |\n",
    "| Key | Value |\n|---|---|\n| api_key_header | X-Api-Key |\n",
    "| token | Type | Default |\n|---|---|---|\n| `token` | `str` | `None` |\n",
    "| Parameter | Type |\n| --- | --- |\n| password | str |\n| secret_key | bytes |\n",
    "| pass | fail |\n|---|---|\n| 12 | 3 |\n",
    "| ENABLE_PASSWORD_RESET | true |\n",
    "| `SECRET_KEY` | Django secret key | Yes |\n",
    `| Key | Value |\n|---|---|\n| api_key | ${W} |\n`,
    // A diagram's row of labels (Node's url.md): no name/value pairs from the left.
    "│ protocol │  │ username │ password │          host          │          │\n",
    // A shell pipeline is no table.
    `echo DB_PASSWORD | ${W} | tee out\n`,
  ]) {
    test(`stays: ${JSON.stringify(input)}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("padded labels and XML settings", () => {
  for (const [input, secret] of [
    [`Profile information\n-------------------\n    Key Content            : ${W}\n`, W],
    [`    Password               : ${W}\n`, W],
    [`Password : ${W}\n`, W],
    [`<property>\n  <name>javax.jdo.option.ConnectionPassword</name>\n  <value>${W}</value>\n</property>\n`, W],
    [`<property>\n  <name>fs.s3a.secret.key</name>\n  <value>${W}</value>\n</property>\n`, W],
    [`<entry key="db.password">${W}</entry>\n`, W],
  ] as const) {
    test(input.trim().split("\n").pop()!, () => onlySecretGoes(input, secret));
  }
  for (const input of [
    "    Password               : ********\n",
    "Password : (none)\n",
    "Password : required for the first login\n",
    "    Security key           : Present\n",
    "<property><name>dfs.replication</name><value>3</value></property>\n",
    "<property><name>hadoop.security.credential.provider.path</name><value>jceks://hdfs/creds.jceks</value></property>\n",
    '<entry key="password">${db.password}</entry>\n',
    '<entry key="comment">CorrectHorseBattery</entry>\n',
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});
