/**
 * A password an agent names in its own words (rules/prose.ts), as its
 * messages report what it set up, and an env line in Markdown's inline code.
 * Each negative is prose about passwords with no password in it, code, or a
 * reference or placeholder where the value would be.
 */
import { describe, expect, test } from "bun:test";
import { createRedactor } from "../../lib/redact/index.ts";
import { leak } from "./shapes.ts";

const r = createRedactor({ fingerprintKey: "k" });
const W = "CorrectHorseBattery";
const TAG = /\[REDACTED:[a-z-]+:[0-9a-f]{4}\]/g;

function onlySecretGoes(input: string, ...secrets: string[]): void {
  const out = r.text(input);
  for (const s of secrets) expect(leak(out, s)).toBeUndefined();
  let back = out;
  for (const s of secrets) back = back.replace(/\[REDACTED:[a-z-]+:[0-9a-f]{4}\]/, s);
  expect(back).toBe(input);
  expect(out.match(TAG)?.length).toBe(secrets.length);
}

describe("a password in an agent's own words", () => {
  for (const input of [
    `I've set the password to \`${W}\`.\n`,
    `The new password is \`${W}\`.\n`,
    `Your new password is: ${W}\n`,
    `The password for the 'elastic' user is ${W}\n`,
    "Use the password Tr0ub4dor&3 to log in.\n",
    "Log in with the password P@ssw0rd!2024\n",
    `The generated password for the elastic built-in superuser is : ${W}\n`,
    `The admin password has been set to: \`${W}\`\n`,
    `I set DB_PASSWORD to ${W} in .env.\n`,
    `I created the admin user with password \`${W}\`.\n`,
    `The database password (\`${W}\`) is stored in .env.\n`,
    `Set \`DB_PASSWORD\` to \`${W}\`.\n`,
    `password set to ${W}\n`,
    `The password for admin is "${W}".\n`,
    `the password '${W}' works\n`,
    `Updated \`.env\`: \`DB_PASSWORD=${W}\`\n`,
    `You can log in with admin / \`${W}\`.\n`,
    // A URL between the verb and the user (its slashes are no pair's).
    `Grafana is ready. Log in at http://localhost:3000 with admin / \`${W}\`.\n`,
    `Credentials: \`admin\` / \`${W}\`\n`,
    `The passphrase is \`correct horse battery staple\`.\n`,
    // The sentence inside a JSON string (an Ansible debug task's msg, a log's message): its quote or escape ends the value.
    `ok: [web1] => {\n    "msg": "password is ${W}"\n}\n`,
    `{"level":"info","msg":"The new password is ${W}\\nnext step"}\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input, input.includes("staple") ? "correct horse battery staple" : input.includes("Tr0ub4dor") ? "Tr0ub4dor&3" : input.includes("P@ss") ? "P@ssw0rd!2024" : W));
  }
  test("from the old one to the new one: both go", () => onlySecretGoes(`Changed the password from \`OldPass123\` to \`${W}\`.\n`, "OldPass123", W));
  for (const input of [
    "The password is incorrect.\n",
    '{"msg": "password is incorrect"}\n',
    'log.info("password was reset")\n',
    "Enter your password to log in.\n",
    "The password is required.\n",
    "Store the password as SHA256 hashes.\n",
    "the password field is `password`\n",
    "Set `DB_PASSWORD` to `your-password-here`.\n",
    "Set the password to `$DB_PASSWORD`.\n",
    "The password is `null`.\n",
    "Log in with GitHub / GitLab.\n",
    "Login with Google / Microsoft365\n",
    "passwordless login is enabled\n",
    "password is 8 characters long\n",
    "The password (optional) for the key.\n",
    "Change the password to something stronger.\n",
    "The password reset link expires in 24 hours.\n",
    "The password for the service account is stored in Vault.\n",
    "The password of the database user is required.\n",
    "if password is None:\n",
    'password = getpass.getpass("Password: ")\n',
    'raise ValueError("password is too short")\n',
    "The password was set to the value of `DB_PASSWORD` from the environment.\n",
    "Passwords must contain at least 1 uppercase letter and 1 digit.\n",
    "the password PasswordHasher uses\n",
    "the password ECDSA256 signature\n",
    "the password sha256-hashed with a salt\n",
    "the password Base64Url-encoded in the header\n",
    "the password passwordV2Hash field\n",
    "pete\t\tHPPA = /usr/bin/passwd ^[a-zA-Z0-9_]+$, !/usr/bin/passwd root\n",
    "# The password is read from PGPASSWORD\n",
    // What machine.ts and golden.ts's real files showed: an owner before a code span, and calls.
    "Get the stored password for the `service` and `account`.\n",
    "Save the `password` for the `service` and `account` to the keychain.\n",
    "const newpassword = await readUserInfo.password('New password: ')\n",
    "\"\"\"splitpasswd('user:passwd') -> 'user', 'passwd'.\"\"\"\n",
    'password = ask_password("Password: ")\n',
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("a login's user and password as an agent lists them", () => {
  for (const [input, secret] of [
    ["Login: admin / Zq7wintersun\n", "Zq7wintersun"],
    ["Default credentials: admin / Tr0ub4dor&3\n", "Tr0ub4dor&3"],
    ["You can log in at http://localhost:3000 with `admin` and `Zq7wintersun`.\n", "Zq7wintersun"],
    ["Set the `POSTGRES_PASSWORD` environment variable to `Zq7wintersun`.\n", "Zq7wintersun"],
  ] as const) {
    test(input.trim(), () => onlySecretGoes(input, secret));
  }
  for (const input of [
    "Login: admin / password\n",
    "log in with `Google` and `GitHub`\n",
    "Sign in with `admin` and `password`\n",
    "Set the `PASSWORD_MIN_LENGTH` environment variable to `12`.\n",
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("after `with` or `using`, the noun hands over a made-up word right after it", () => {
  for (const input of [
    "Login succeeded for admin with password Zq7wintersun\n",
    "Created user admin with password hunter2hunter.\n",
    "logged in using the password wintersun2024\n",
    "Connecting as root with root password Zq7wintersun\n",
    // Markdown bold, as an agent's summary writes it; a strong password needs no `with`.
    "✓ Created user **admin** with password **Zq7wintersun**\n",
    "Log in with the password __hunter2hunter__ for staging\n",
    "The admin password **Tr0ub4dor&3** is in the vault.\n",
  ]) {
    test(input.trim(), () => onlySecretGoes(input, input.match(/(?:Zq7wintersun|hunter2hunter|wintersun2024|Tr0ub4dor&3)/)![0]));
  }
  for (const input of [
    "login with password authentication\n",
    "using password hashing with bcrypt\n",
    "with password userPassword\n",
    "hashed with password SHA256\n",
    "without password Zq7wintersun\n",
    "with DB_PASSWORD Zq7wintersun\n",
    "Sign in with password MFA123\n",
    "with password **authentication** enabled\n",
    "the password **is required**\n",
    "The admin password **wintersun2024** is in the vault.\n", // a made-up word needs `with` or `using`
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});
