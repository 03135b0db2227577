/**
 * Output of a command that prints a secret (lib/redact/printed.ts): in a
 * tool call record (`input.command` beside `output`) and in a transcript
 * (`$ printenv X` and the lines after it). Passwords are words, and API keys
 * may be UUIDs or 40 hex digits, which no other rule takes alone on a line.
 */
import { describe, expect, test } from "bun:test";
import { createRedactor } from "../../lib/redact/index.ts";
import { printedBy, printedByCall, printedSecret } from "../../lib/redact/printed.ts";
import { A, Gen, leak, rng } from "./shapes.ts";

const r = createRedactor({ fingerprintKey: "k" });
const g = new Gen(rng(91));
const uuid = (): string => [8, 4, 4, 4, 12].map((n) => g.s(A.hex, n)).join("-");

describe("which commands print a secret", () => {
  test("a secret-named variable or file, printed", () => {
    for (const c of [
      "printenv DB_PASSWORD",
      'echo "$OPENAI_API_KEY"',
      "echo ${GITHUB_TOKEN:0:8}",
      "printf '%s\\n' \"${STRIPE_SECRET_KEY}\"",
      "sudo cat /run/secrets/postgres",
      "cat ~/.config/app/api_token.txt",
      "head -c 64 deploy.key",
      "cat .vault-token",
      "Write-Output $env:AZURE_CLIENT_SECRET",
      "cd app && echo $DB_PASS",
    ]) expect({ c, printed: printedBy(c) !== undefined }).toEqual({ c, printed: true });
    expect(printedBy("printenv DB_PASSWORD")).toEqual({ kind: "password", password: true });
  });

  test("secret stores, token printers and the clipboard", () => {
    for (const c of [
      "gh auth token",
      "gcloud auth print-access-token",
      "aws ecr get-login-password --region eu-west-1",
      "aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text",
      "security find-generic-password -s github -w",
      "op read op://vault/db/password",
      "vault kv get -field=password secret/db",
      "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d",
      "pass show work/vpn",
      "argocd admin initial-password -n argocd",
      "launchctl getenv DB_PASSWORD",
      "pbpaste",
      "xclip -selection clipboard -o",
      "wl-paste",
    ]) expect({ c, printed: printedBy(c) !== undefined }).toEqual({ c, printed: true });
  });

  test("a command run in a container, over ssh or by a secrets runner prints what its inner command prints", () => {
    for (const c of [
      "docker exec db printenv POSTGRES_PASSWORD",
      "docker exec -it -e X=1 --user root db printenv POSTGRES_PASSWORD",
      "docker compose exec -T api printenv DB_PASSWORD",
      "podman exec app cat /run/secrets/db",
      "kubectl exec deploy/api -c app -- printenv DB_PASSWORD",
      "ssh -p 2222 prod 'echo $DB_PASSWORD'",
      "fly ssh console -C 'printenv DB_PASSWORD'",
      "heroku run -a shop printenv DB_PASSWORD",
      "doppler run -- printenv STRIPE_SECRET_KEY",
      "op run --env-file .env -- printenv DB_PASSWORD",
    ]) expect({ c, printed: printedBy(c) }).toEqual({ c, printed: expect.objectContaining({ kind: expect.any(String) }) });
    for (const c of ["docker exec db ls /app", "kubectl exec api -- env | wc -l", "ssh prod uptime", "ssh prod", "docker ps", "doppler run -- npm test", "heroku logs --tail"]) {
      expect({ c, printed: printedBy(c) }).toEqual({ c, printed: undefined });
    }
  });

  test("a tool that prints one named setting: the name says what the value is", () => {
    for (const [c, kind] of [
      ["terraform output -raw db_password", "password"],
      ["terraform output db_password", "password"],
      ["tofu output -raw admin_password", "password"],
      ["pulumi config get dbPassword", "password"],
      ["pulumi stack output dbPassword --show-secrets", "password"],
      ["chamber read app db_password -q", "password"],
      ["heroku config:get DATABASE_PASSWORD", "password"],
      ["netlify env:get API_TOKEN", "generic-secret"],
      ["git config --get github.token", "generic-secret"],
      ["npm config get //registry.npmjs.org/:_authToken", "npm-auth"],
      ["aws configure get aws_secret_access_key", "aws-secret-access-key"],
      ["jq -r .password config.json", "password"],
      ["jq -r '.database.password' config.json", "password"],
      ["yq '.auth[\"token\"]' values.yaml", "generic-secret"],
      ["yq e .db.password values.yaml", "password"],
    ] as const) expect({ c, kind: printedBy(c)?.kind }).toEqual({ c, kind });
    for (const c of ["terraform output", "terraform output -json", "terraform output region", "git config user.password hunter2", "git config --list", "jq '.items[] | .name' x.json", "jq -r .version package.json", "aws configure get region", "pulumi config set dbPassword x", "pulumi stack output", "pulumi stack output bucketName", "chamber read app"]) {
      expect({ c, printed: printedBy(c) }).toEqual({ c, printed: undefined });
    }
  });

  test("an interpreter's one-liner that prints a secret-named environment variable", () => {
    for (const [c, kind] of [
      [`node -e 'console.log(process.env.DB_PASSWORD)'`, "password"],
      [`node -p 'process.env.OPENAI_API_KEY'`, "api-key"],
      [`node --print process.env["GITHUB_TOKEN"]`, "generic-secret"],
      [`bun -e 'console.log(Bun.env.API_KEY)'`, "api-key"],
      [`deno eval 'console.log(Deno.env.get("DB_PASSWORD"))'`, "password"],
      [`python3 -c 'import os; print(os.environ["DB_PASSWORD"])'`, "password"],
      [`python -c "import os; print(os.getenv('DB_PASSWORD'))"`, "password"],
      [`python3 -c 'import os; print(os.environ.get("DB_PASSWORD"))'`, "password"],
      [`ruby -e 'puts ENV.fetch("DB_PASSWORD")'`, "password"],
      [`perl -e 'print $ENV{DB_PASSWORD}'`, "password"],
      [`php -r 'echo getenv("DB_PASSWORD");'`, "password"],
      [`docker exec api node -e 'console.log(process.env.DB_PASSWORD)'`, "password"],
    ] as const) expect({ c, kind: printedBy(c)?.kind }).toEqual({ c, kind });
    // Not a secret's name, a variable only used, or read and not printed.
    for (const c of [
      `node -e 'console.log(process.env.NODE_ENV)'`,
      `node -p 'process.env.PATH'`,
      `python3 -c 'import os, psycopg2; psycopg2.connect(password=os.environ["DB_PASSWORD"]); print("connected")'`,
      `node -e 'fetch(url, { headers: { key: process.env.API_KEY } }).then((r) => console.log(r.status))'`,
      `node -e 'console.log(Object.keys(process.env).length)'`,
    ]) expect({ c, printed: printedBy(c) }).toEqual({ c, printed: undefined });
  });

  test("commands that print no secret", () => {
    for (const c of [
      "ls -la",
      "cat token.ts",
      "cat src/auth/tokenizer.py",
      "cat .env",
      "echo $HOME",
      "echo ${#API_KEY}",
      "echo done",
      "[ -n \"$API_KEY\" ] && echo set",
      "printenv PATH",
      "git rev-parse HEAD",
      "kubectl get secrets",
      "gh auth status",
      "vault kv get secret/db",
      "grep -r token src/",
      "x".repeat(5000),
    ]) expect({ c, printed: printedBy(c) !== undefined }).toEqual({ c, printed: false });
  });

  test("the record shapes of every harness's shell tool", () => {
    expect(printedByCall({ input: { command: "printenv DB_PASSWORD" }, output: "x" })?.kind).toBe("password");
    expect(printedByCall({ tool_input: { command: "echo $API_KEY" } })?.kind).toBe("api-key");
    expect(printedByCall({ toolArgs: { command: "gh auth token" } })).toBeDefined();
    expect(printedByCall({ args: { cmd: ["bash", "-lc", "printenv NPM_TOKEN"] } })).toBeDefined();
    expect(printedByCall({ command: "pbpaste", stdout: "x" })).toBeDefined();
    expect(printedByCall({ input: "printenv DB_PASSWORD" })).toBeUndefined();
    expect(printedByCall({ input: { command: 42 } })).toBeUndefined();
  });
});

describe("which printed lines are the secret", () => {
  const pw = { kind: "password", password: true };
  const tok = { kind: "generic-secret", password: false };
  test("a word counts as a password, only a token as a token", () => {
    expect(printedSecret("hunter2-Blue", pw)).toBe(true);
    expect(printedSecret("correcthorse", pw)).toBe(true);
    expect(printedSecret("correcthorse", tok)).toBe(false);
    expect(printedSecret(uuid(), tok)).toBe(true);
  });
  test("what is no secret stays", () => {
    for (const line of ["(none)", "[default]", "data:", "null", "true", "${DB_PASSWORD}", "your-api-key", "41", "error: not set", "********"]) {
      expect({ line, secret: printedSecret(line, pw) }).toEqual({ line, secret: false });
    }
  });
});

describe("a tool call record: what a setting printer printed", () => {
  test("a JSON string printed (terraform output, jq without -r) goes from inside its quotes", () => {
    const v = r.value({ tool_input: { command: "terraform output db_password" }, tool_response: { stdout: '"CorrectHorseBattery"\n', stderr: "" } }) as { tool_response: { stdout: string } };
    expect(v.tool_response.stdout).toMatch(/^"\[REDACTED:password:[0-9a-f]{4}\]"\n$/);
  });
  test("a word printed by a command run in a container goes", () => {
    const v = r.value({ tool_input: { command: "docker compose exec db printenv POSTGRES_PASSWORD" }, tool_response: { stdout: "CorrectHorseBattery\n", stderr: "" } }) as { tool_response: { stdout: string } };
    expect(v.tool_response.stdout).toMatch(/^\[REDACTED:password:[0-9a-f]{4}\]\n$/);
  });
});

describe("a tool call record", () => {
  test("the output of printenv, echo and a secret store goes, in every field", () => {
    const pass = "Blue-" + g.s("abcdefghijkmnopqrstuvwxyz", 7);
    const key = g.s(A.hex, 40);
    const id = uuid();
    const rec = {
      type: "tool_call",
      tool_use_id: uuid(),
      input: { command: "printenv DB_PASSWORD; echo $STRIPE_KEY; gcloud auth print-access-token" },
      output: { stdout: `${pass}\n${key}\n${id}\n`, stderr: "" },
      error: `exit 1 after printing ${pass}`,
    };
    const out = r.value(rec) as typeof rec;
    const text = JSON.stringify(out);
    for (const s of [pass, key, id]) expect(leak(text, s)).toBeUndefined();
    expect(out.output.stdout).toMatch(/^\[REDACTED:generic-secret:[0-9a-f]{4}\]\n\[REDACTED:generic-secret:[0-9a-f]{4}\]\n\[REDACTED:generic-secret:[0-9a-f]{4}\]\n$/);
    // The copy in another field goes too, and the record's own ids and the command stay.
    expect(out.error).toMatch(/^exit 1 after printing \[REDACTED:generic-secret:[0-9a-f]{4}\]$/);
    expect(out.tool_use_id).toBe(rec.tool_use_id);
    expect(out.input.command).toBe(rec.input.command);
  });

  test("a command that prints no secret keeps its output", () => {
    const key = g.s(A.hex, 40);
    const rec = { type: "tool_call", input: { command: "git rev-parse HEAD" }, output: `${key}\n` };
    expect(r.value(rec)).toEqual(rec);
  });

  test("prose and several words on a line stay, and a prefixed token keeps its kind and prefix", () => {
    const gho = "gho_" + g.s(A.b62, 36);
    const rec = { input: { command: "gh auth token || echo 'not logged in'" }, output: `${gho}\nnot logged in\n` };
    const out = (r.value(rec) as { output: string }).output;
    expect(out).toMatch(/^gho_\[REDACTED:github-oauth-token:[0-9a-f]{4}\]\nnot logged in\n$/);
  });
});

describe("a one-liner that prints an environment variable", () => {
  test("its output goes, in a tool call record and after a transcript's prompt", () => {
    const rec = r.value({ tool_name: "Bash", tool_input: { command: `python3 -c 'import os; print(os.environ["DB_PASSWORD"])'` }, tool_response: { stdout: "wintersun2024\n" } }) as { tool_response: { stdout: string } };
    expect(rec.tool_response.stdout).toMatch(/^\[REDACTED:password:[0-9a-f]{4}\]\n$/);
    const out = r.text(`$ node -e 'console.log(process.env.DB_PASSWORD)'\nZq7wintersun\n$ node -e 'console.log(process.env.NODE_ENV)'\nproduction\n`);
    expect(out).not.toContain("Zq7wintersun");
    expect(out).toContain("\nproduction\n");
  });
});

describe("a transcript", () => {
  test("the lines after a prompt that prints a secret, to the next prompt", () => {
    const pass = "Blue-" + g.s("abcdefghijkmnopqrstuvwxyz", 7);
    const id = uuid();
    const input = `dev@box:~/app$ printenv DB_PASSWORD\n${pass}\n$ pbpaste\n${id}\n$ echo ok\nok\n$ cat build-id\n${id.replace(/-/g, "")}x\n`;
    const out = r.text(input);
    expect(leak(out, pass)).toBeUndefined();
    expect(leak(out, id)).toBeUndefined();
    expect(out).toContain("$ echo ok\nok\n");
    expect(out.startsWith("dev@box:~/app$ printenv DB_PASSWORD\n[REDACTED:password:")).toBe(true);
  });

  test("PowerShell's prompt, and a prompt with a virtualenv", () => {
    const pass = "Blue-" + g.s("abcdefghijkmnopqrstuvwxyz", 7);
    expect(leak(r.text(`PS C:\\Users\\me> Write-Output $env:DB_PASSWORD\n${pass}\n`), pass)).toBeUndefined();
    expect(leak(r.text(`(venv) app$ cat /run/secrets/db\n${pass}\n`), pass)).toBeUndefined();
  });

  test("a command in prose, a comment or a markdown heading prints nothing", () => {
    const pass = "Blue-" + g.s("abcdefghijkmnopqrstuvwxyz", 7);
    for (const input of [
      `Run printenv DB_PASSWORD to see it.\n${pass}\n`,
      `# Setup\n${pass}\n`,
      `costs $ printenv DB_PASSWORD\n${pass}\n`,
      `> quoted printenv DB_PASSWORD\n${pass}\n`,
    ]) expect(r.text(input)).toBe(input);
  });

  test("the output read after one prompt is bounded", () => {
    const pass = "Blue-" + g.s("abcdefghijkmnopqrstuvwxyz", 7);
    const filler = "ok\n".repeat(70);
    const input = `$ printenv DB_PASSWORD\n${filler}${pass}\n`;
    expect(r.text(input)).toBe(input);
  });
});

test("several secrets printed by one command: a word counts if any may be one, the kind only when they agree", () => {
  expect(printedBy("echo $API_KEY; printenv DB_PASSWORD")).toEqual({ kind: "generic-secret", password: true });
  expect(printedBy("printenv DB_PASSWORD PGPASSWORD")).toEqual({ kind: "password", password: true });
  expect(printedBy("echo $DB_PASSWORD; echo $PGPASSWORD")).toEqual({ kind: "password", password: true });
});

test("beside a command that prints other things, only a token counts: the other output's words stay", () => {
  expect(printedBy("printenv DB_PASSWORD && make")).toEqual({ kind: "password", password: false });
  expect(printedBy("cd app && export X=1; printenv DB_PASSWORD")).toEqual({ kind: "password", password: true });
  expect(printedBy("kubectl get secret db -o jsonpath='{.data.password}' | base64 -d | head -c 8")).toEqual({ kind: "generic-secret", password: true });
  const rec = { input: { command: "echo $DB_PASSWORD; npm test" }, output: "Tests\nPASSED\ndone\nZq8vR1xK4mW2pL9s\n" };
  expect((r.value(rec) as { output: string }).output).toMatch(/^Tests\nPASSED\ndone\n\[REDACTED:password:[0-9a-f]{4}\]\n$/);
});

test("Gemini CLI's llmContent (`Output: ` on the first line, inside <untrusted_context>) with no copy elsewhere", () => {
  const pass = "Blue-" + g.s("abcdefghijkmnopqrstuvwxyz", 9);
  const rec = { input: { command: "printenv DB_PASSWORD" }, output: { llmContent: `<untrusted_context>\nOutput: ${pass}\nProcess Group PGID: 28656\n</untrusted_context>`, returnDisplay: "" } };
  const out = (r.value(rec) as { output: { llmContent: string } }).output.llmContent;
  expect(out).toMatch(/^<untrusted_context>\nOutput: \[REDACTED:password:[0-9a-f]{4}\]\nProcess Group PGID: 28656\n<\/untrusted_context>$/);
});

test("commands that make a secret print it: openssl rand, pwgen, /dev/urandom, a language's secrets module", () => {
  for (const c of [
    "openssl rand -hex 32",
    "openssl rand -base64 24",
    "head -c 32 /dev/urandom | base64",
    "tr -dc A-Za-z0-9 < /dev/urandom | head -c 24",
    "python3 -c 'import secrets; print(secrets.token_hex(32))'",
    "node -e \"console.log(require('crypto').randomBytes(32).toString('hex'))\"",
    "pwgen -s 20 1",
    "bin/rails secret",
    "wg genkey",
  ]) expect({ c, printed: printedBy(c) }).toEqual({ c, printed: { kind: "generic-secret", password: false } });
  for (const c of ["openssl version", "openssl x509 -in cert.pem -noout -text", "python3 -c 'print(1); import os'", "echo \"unclosed $HOME"]) {
    expect({ c, printed: printedBy(c) }).toEqual({ c, printed: undefined });
  }
  // Quotes hold separators: the `;` inside the script does not end the command.
  expect(printedBy("echo 'a;b' && printenv DB_PASSWORD")).toEqual({ kind: "password", password: false });
  expect(printedBy('echo "$DB_PASSWORD')).toEqual({ kind: "password", password: true });
  const hex = g.s(A.hex, 64);
  const rec = { input: { command: "openssl rand -hex 32" }, output: `${hex}\n` };
  expect(leak(JSON.stringify(r.value(rec)), hex)).toBeUndefined();
});

describe("a printed URL with its credentials keeps all but the secret", () => {
  test("cat ~/.git-credentials: only the password or token in each URL goes", () => {
    const word = "CorrectHorseBattery";
    const token = g.s(A.b62, 24);
    const lines = `https://bob:${word}@github.com\nhttps://x-access-token:${token}@gitlab.com\n`;
    for (const out of [
      r.text(`$ cat ~/.git-credentials\n${lines}`),
      (r.value({ input: { command: "cat ~/.git-credentials" }, output: lines }) as { output: string }).output,
    ]) {
      expect(leak(out, word)).toBeUndefined();
      expect(leak(out, token)).toBeUndefined();
      expect(out).toMatch(/https:\/\/bob:\[REDACTED:url-userinfo:[0-9a-f]{4}\]@github\.com\nhttps:\/\/x-access-token:\[REDACTED:url-userinfo:[0-9a-f]{4}\]@gitlab\.com\n$/);
    }
  });
});
