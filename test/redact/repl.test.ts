/**
 * A REPL that echoed a secret it was asked for (rules/repl.ts): the value on
 * the line after the prompt goes, inside its quotes; the prompt, the read and
 * every other line stay.
 */
import { describe, expect, test } from "bun:test";
import { scan } from "../../lib/redact/engine.ts";
import { createRedactor } from "../../lib/redact/index.ts";
import { readName, replRule } from "../../lib/redact/rules/repl.ts";
import { bestMs } from "../support/timing.ts";
import { restored } from "./shapes.ts";

const r = createRedactor({ fingerprintKey: "k" });
const PW = "Tr0ub4dor&3horse";
const TOKEN = "qA7xK2mP9rT4vW8zLm2P";

describe("the value a REPL echoes for a secret-named read goes, and only it", () => {
  const sessions: [string, string, string][] = [
    ["python", `>>> os.environ["DB_PASSWORD"]\n'${PW}'\n>>> 1 + 1\n2\n`, PW],
    ["python, printed", `>>> print(os.getenv('DB_PASSWORD'))\n${PW}\n`, PW],
    ["python, a bytes value", `>>> os.environb[b"DB_PASSWORD"]\nb'${PW}'\n`, PW],
    ["ipython", `In [3]: settings.SECRET_KEY\nOut[3]: '${TOKEN}'\n\nIn [4]: exit\n`, TOKEN],
    ["django shell, a dict read", `>>> creds["password"]\n'${PW}'\n`, PW],
    ["irb", `irb(main):001:0> ENV["DB_PASSWORD"]\n=> "${PW}"\n`, PW],
    ["irb 3.3", `irb(main):002> ENV.fetch("API_TOKEN")\n=> "${TOKEN}"\n`, TOKEN],
    ["pry and a rails console", `[1] pry(main)> Rails.application.credentials.secret_key_base\n=> "${TOKEN}"\nmyapp(dev)> ENV[:api_token]\n=> "${TOKEN}"\n`, TOKEN],
    ["iex", `iex(1)> System.get_env("DB_PASSWORD")\n"${PW}"\n`, PW],
    ["node", `> process.env.DB_PASSWORD\n'${PW}'\n> `, PW],
    ["deno", `> Deno.env.get("API_TOKEN")\n"${TOKEN}"\n`, TOKEN],
    ["jshell", `jshell> System.getenv("DB_PASSWORD")\n$1 ==> "${PW}"\n`, PW],
    ["scala", `scala> sys.env("DB_PASSWORD")\nval res0: String = ${PW}\n`, PW],
    ["R", `> Sys.getenv("API_TOKEN")\n[1] "${TOKEN}"\n`, TOKEN],
    ["windows line ends", `>>> os.environ["DB_PASSWORD"]\r\n'${PW}'\r\n`, PW],
  ];
  for (const [name, text, secret] of sessions) {
    test(name, () => {
      const out = r.text(text);
      expect(out).not.toContain(secret);
      expect(restored(out, secret)).toBe(text);
    });
  }

  test("the echo's other copies in the record go too, with the same tag", () => {
    const out = r.text(`>>> os.environ["DB_PASSWORD"]\n'${PW}'\n>>> conn = connect("${PW}")\n`);
    const tags = [...out.matchAll(/\[REDACTED:password:([0-9a-f]{4})\]/g)].map((m) => m[1]);
    expect(tags.length).toBe(2);
    expect(tags[0]).toBe(tags[1]);
  });
});

describe("what is no echoed secret stays", () => {
  for (const text of [
    // A name that labels no secret.
    `>>> os.environ["HOME"]\n'/home/bob'\n`,
    // The read inside a call: what prints is the call's result.
    `>>> connect(password=os.environ["DB_PASSWORD"])\n'connected-ok-1'\n`,
    // No value, an error, a placeholder.
    `>>> os.environ.get("DB_PASSWORD")\n>>> os.environ["DB_PASSWORD"]\nTraceback (most recent call last):\nKeyError: 'DB_PASSWORD'\n`,
    `>>> config["password"]\nNone\n`,
    `> process.env.API_TOKEN\nundefined\n`,
    `>>> os.environ["DB_PASSWORD"]\n'changeme'\n`,
    // An echo that is no value: a bare line where the REPL quotes (a banner, the next statement's output).
    `>>> os.environ["DB_PASSWORD"]\nSegmentationFault\n`,
    // Not a prompt: a markdown quote, a doctest's expected output in prose.
    `> process.env.DB_PASSWORD is read at start-up\nSee the docs.\n`,
  ]) {
    test(JSON.stringify(text.slice(0, 48)), () => expect(r.text(text)).toBe(text));
  }
});

test("readName: the name a bare read reads, and whether it was printed", () => {
  expect(readName('os.environ["DB_PASSWORD"]')).toEqual({ name: "DB_PASSWORD", printed: false });
  expect(readName("print(settings.SECRET_KEY)")).toEqual({ name: "SECRET_KEY", printed: true });
  expect(readName("Deno.env.get('API_KEY');")).toEqual({ name: "API_KEY", printed: false });
  expect(readName("ENV.fetch(:secret, nil)")).toEqual({ name: "secret", printed: false });
  expect(readName('getenv("X_TOKEN")')).toEqual({ name: "X_TOKEN", printed: false });
  expect(readName('connect(password=os.environ["X"])')).toBeUndefined();
  expect(readName("token + 1")).toBeUndefined();
});

test("one long line with a prompt every few characters is read once: 1 MB costs about 4x 256 KB, not 16x", () => {
  // Each prompt's line is the same line: its start and end are looked for once, not once per prompt.
  const line = (n: number): string => ">>> x ".repeat(Math.ceil(n / 6));
  const small = line(256 * 1024);
  const big = line(1024 * 1024);
  const cost = (s: string): number => bestMs(() => scan(s, [replRule]), 3);
  cost(small);
  const a = cost(small);
  const b = cost(big);
  // Below 20 ms for a megabyte the ratio is noise (as in linear.test.ts).
  expect({ ok: b <= 20 || b / Math.max(a, 1) < 12, a, b }).toMatchObject({ ok: true });
});
