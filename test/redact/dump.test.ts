/**
 * A file shown as bytes (rules/dump.ts): `xxd`, `hexdump -C` and `od -c` of a
 * `.env`, as the real tools print it (GNU coreutils 9, util-linux, vim's xxd),
 * with every secret masked where the dump shows it, hex and characters, and
 * nothing else changed.
 */
import { describe, expect, test } from "bun:test";
import { createRedactor } from "../../lib/redact/index.ts";
import { readByteList, readDump } from "../../lib/redact/rules/dump.ts";

const r = createRedactor({ fingerprintKey: "k" });

// printf 'NODE_ENV=production\nDB_USER=app\nDB_PASSWORD=Zq7winter#sun42\nJWT_SECRET=s3cr3tjwtsigningkey2024\n' > .env
const ENV = "NODE_ENV=production\nDB_USER=app\nDB_PASSWORD=Zq7winter#sun42\nJWT_SECRET=s3cr3tjwtsigningkey2024\n";
const SECRETS = ["Zq7winter#sun42", "s3cr3tjwtsigningkey2024"];

const XXD = String.raw`00000000: 4e4f 4445 5f45 4e56 3d70 726f 6475 6374  NODE_ENV=product
00000010: 696f 6e0a 4442 5f55 5345 523d 6170 700a  ion.DB_USER=app.
00000020: 4442 5f50 4153 5357 4f52 443d 5a71 3777  DB_PASSWORD=Zq7w
00000030: 696e 7465 7223 7375 6e34 320a 4a57 545f  inter#sun42.JWT_
00000040: 5345 4352 4554 3d73 3363 7233 746a 7774  SECRET=s3cr3tjwt
00000050: 7369 676e 696e 676b 6579 3230 3234 0a    signingkey2024.
`;
const HEXDUMP = String.raw`00000000  4e 4f 44 45 5f 45 4e 56  3d 70 72 6f 64 75 63 74  |NODE_ENV=product|
00000010  69 6f 6e 0a 44 42 5f 55  53 45 52 3d 61 70 70 0a  |ion.DB_USER=app.|
00000020  44 42 5f 50 41 53 53 57  4f 52 44 3d 5a 71 37 77  |DB_PASSWORD=Zq7w|
00000030  69 6e 74 65 72 23 73 75  6e 34 32 0a 4a 57 54 5f  |inter#sun42.JWT_|
00000040  53 45 43 52 45 54 3d 73  33 63 72 33 74 6a 77 74  |SECRET=s3cr3tjwt|
00000050  73 69 67 6e 69 6e 67 6b  65 79 32 30 32 34 0a     |signingkey2024.|
0000005f
`;
const OD = String.raw`0000000   N   O   D   E   _   E   N   V   =   p   r   o   d   u   c   t
0000020   i   o   n  \n   D   B   _   U   S   E   R   =   a   p   p  \n
0000040   D   B   _   P   A   S   S   W   O   R   D   =   Z   q   7   w
0000060   i   n   t   e   r   #   s   u   n   4   2  \n   J   W   T   _
0000100   S   E   C   R   E   T   =   s   3   c   r   3   t   j   w   t
0000120   s   i   g   n   i   n   g   k   e   y   2   0   2   4  \n
0000137
`;
// 32 zero bytes before the same file: both tools squeeze the repeated line into `*`.
const HEXDUMP_SQUEEZED = String.raw`00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|
*
00000020  4e 4f 44 45 5f 45 4e 56  3d 70 72 6f 64 75 63 74  |NODE_ENV=product|
00000030  69 6f 6e 0a 44 42 5f 55  53 45 52 3d 61 70 70 0a  |ion.DB_USER=app.|
00000040  44 42 5f 50 41 53 53 57  4f 52 44 3d 5a 71 37 77  |DB_PASSWORD=Zq7w|
00000050  69 6e 74 65 72 23 73 75  6e 34 32 0a 4a 57 54 5f  |inter#sun42.JWT_|
00000060  53 45 43 52 45 54 3d 73  33 63 72 33 74 6a 77 74  |SECRET=s3cr3tjwt|
00000070  73 69 67 6e 69 6e 67 6b  65 79 32 30 32 34 0a     |signingkey2024.|
0000007f
`;
const OD_SQUEEZED = String.raw`0000000  \0  \0  \0  \0  \0  \0  \0  \0  \0  \0  \0  \0  \0  \0  \0  \0
*
0000040   N   O   D   E   _   E   N   V   =   p   r   o   d   u   c   t
0000060   i   o   n  \n   D   B   _   U   S   E   R   =   a   p   p  \n
0000100   D   B   _   P   A   S   S   W   O   R   D   =   Z   q   7   w
0000120   i   n   t   e   r   #   s   u   n   4   2  \n   J   W   T   _
0000140   S   E   C   R   E   T   =   s   3   c   r   3   t   j   w   t
0000160   s   i   g   n   i   n   g   k   e   y   2   0   2   4  \n
0000177
`;
// printf 'DB_PASSWORD=p\xc3\xa9ssw0rd-L0ng!\n' | od -c: UTF-8 bytes as octal.
const OD_UTF8 = String.raw`0000000   D   B   _   P   A   S   S   W   O   R   D   =   p 303 251   s
0000020   s   w   0   r   d   -   L   0   n   g   !  \n
0000034
`;

// The same .env in the other layouts and slices the tools print (util-linux 2.38 hexdump, coreutils 9.1 od, vim's xxd 2022-01-14).
const HEXDUMP_WORDS = String.raw`0000000 4f4e 4544 455f 564e 703d 6f72 7564 7463
0000010 6f69 0a6e 4244 555f 4553 3d52 7061 0a70
0000020 4244 505f 5341 5753 524f 3d44 715a 7737
0000030 6e69 6574 2372 7573 346e 0a32 574a 5f54
0000040 4553 5243 5445 733d 6333 3372 6a74 7477
0000050 6973 6e67 6e69 6b67 7965 3032 3432 000a
000005f
`;
// od -x prints the same words; only its offsets are octal.
const OD_WORDS = HEXDUMP_WORDS.replace(/^[0-9a-f]{7}/gm, (o) => parseInt(o, 16).toString(8).padStart(7, "0"));
const OD_X1 = String.raw`0000000 4e 4f 44 45 5f 45 4e 56 3d 70 72 6f 64 75 63 74
0000020 69 6f 6e 0a 44 42 5f 55 53 45 52 3d 61 70 70 0a
0000040 44 42 5f 50 41 53 53 57 4f 52 44 3d 5a 71 37 77
0000060 69 6e 74 65 72 23 73 75 6e 34 32 0a 4a 57 54 5f
0000100 53 45 43 52 45 54 3d 73 33 63 72 33 74 6a 77 74
0000120 73 69 67 6e 69 6e 67 6b 65 79 32 30 32 34 0a
0000137
`;
const OD_X1Z = String.raw`0000000 4e 4f 44 45 5f 45 4e 56 3d 70 72 6f 64 75 63 74  >NODE_ENV=product<
0000020 69 6f 6e 0a 44 42 5f 55 53 45 52 3d 61 70 70 0a  >ion.DB_USER=app.<
0000040 44 42 5f 50 41 53 53 57 4f 52 44 3d 5a 71 37 77  >DB_PASSWORD=Zq7w<
0000060 69 6e 74 65 72 23 73 75 6e 34 32 0a 4a 57 54 5f  >inter#sun42.JWT_<
0000100 53 45 43 52 45 54 3d 73 33 63 72 33 74 6a 77 74  >SECRET=s3cr3tjwt<
0000120 73 69 67 6e 69 6e 67 6b 65 79 32 30 32 34 0a     >signingkey2024.<
0000137
`;
const XXD_FROM_16 = String.raw`00000010: 696f 6e0a 4442 5f55 5345 523d 6170 700a  ion.DB_USER=app.
00000020: 4442 5f50 4153 5357 4f52 443d 5a71 3777  DB_PASSWORD=Zq7w
00000030: 696e 7465 7223 7375 6e34 320a 4a57 545f  inter#sun42.JWT_
00000040: 5345 4352 4554 3d73 3363 7233 746a 7774  SECRET=s3cr3tjwt
00000050: 7369 676e 696e 676b 6579 3230 3234 0a    signingkey2024.
`;
const HEXDUMP_FROM_16 = String.raw`00000010  69 6f 6e 0a 44 42 5f 55  53 45 52 3d 61 70 70 0a  |ion.DB_USER=app.|
00000020  44 42 5f 50 41 53 53 57  4f 52 44 3d 5a 71 37 77  |DB_PASSWORD=Zq7w|
00000030  69 6e 74 65 72 23 73 75  6e 34 32 0a 4a 57 54 5f  |inter#sun42.JWT_|
00000040  53 45 43 52 45 54 3d 73  33 63 72 33 74 6a 77 74  |SECRET=s3cr3tjwt|
00000050  73 69 67 6e 69 6e 67 6b  65 79 32 30 32 34 0a     |signingkey2024.|
0000005f
`;
const OD_FROM_16 = String.raw`0000020   i   o   n  \n   D   B   _   U   S   E   R   =   a   p   p  \n
0000040   D   B   _   P   A   S   S   W   O   R   D   =   Z   q   7   w
0000060   i   n   t   e   r   #   s   u   n   4   2  \n   J   W   T   _
0000100   S   E   C   R   E   T   =   s   3   c   r   3   t   j   w   t
0000120   s   i   g   n   i   n   g   k   e   y   2   0   2   4  \n
0000137
`;
const XXD_8_WIDE = String.raw`00000000: 4e4f 4445 5f45 4e56  NODE_ENV
00000008: 3d70 726f 6475 6374  =product
00000010: 696f 6e0a 4442 5f55  ion.DB_U
00000018: 5345 523d 6170 700a  SER=app.
00000020: 4442 5f50 4153 5357  DB_PASSW
00000028: 4f52 443d 5a71 3777  ORD=Zq7w
00000030: 696e 7465 7223 7375  inter#su
00000038: 6e34 320a 4a57 545f  n42.JWT_
00000040: 5345 4352 4554 3d73  SECRET=s
00000048: 3363 7233 746a 7774  3cr3tjwt
00000050: 7369 676e 696e 676b  signingk
00000058: 6579 3230 3234 0a    ey2024.
`;
const XXD_BYTES_UPPER = String.raw`00000000: 4E 4F 44 45 5F 45 4E 56 3D 70 72 6F 64 75 63 74  NODE_ENV=product
00000010: 69 6F 6E 0A 44 42 5F 55 53 45 52 3D 61 70 70 0A  ion.DB_USER=app.
00000020: 44 42 5F 50 41 53 53 57 4F 52 44 3D 5A 71 37 77  DB_PASSWORD=Zq7w
00000030: 69 6E 74 65 72 23 73 75 6E 34 32 0A 4A 57 54 5F  inter#sun42.JWT_
00000040: 53 45 43 52 45 54 3D 73 33 63 72 33 74 6A 77 74  SECRET=s3cr3tjwt
00000050: 73 69 67 6E 69 6E 67 6B 65 79 32 30 32 34 0A     signingkey2024.
`;

const hex = (s: string): string => [...Buffer.from(s, "latin1")].map((b) => b.toString(16).padStart(2, "0")).join("");

/** What of `secret` the output still shows: any 4 characters of it in a row, read as the dump lays them out (spaces dropped: od's cells), or any 3 bytes of its hex. */
function shows(output: string, secret: string): string[] {
  const seen: string[] = [];
  for (const line of output.split("\n")) {
    const joined = line.replaceAll(" ", "");
    for (let i = 0; i + 4 <= secret.length; i++) if (line.includes(secret.slice(i, i + 4)) || joined.includes(secret.slice(i, i + 4))) seen.push(secret.slice(i, i + 4));
    const h = hex(secret);
    for (let i = 0; i + 6 <= h.length; i += 2) if (joined.toLowerCase().includes(h.slice(i, i + 6))) seen.push(h.slice(i, i + 6));
    // Plain hexdump's and od -x's two-byte words, little-endian: `715a` shows `Zq`.
    const words = [...line.slice(8).matchAll(/(?<= )([0-9a-f]{2})([0-9a-f]{2})(?= |$)/g)].map((m) => String.fromCharCode(parseInt(m[2]!, 16), parseInt(m[1]!, 16))).join("");
    for (let i = 0; i + 4 <= secret.length; i++) if (words.includes(secret.slice(i, i + 4))) seen.push(`words ${secret.slice(i, i + 4)}`);
  }
  return seen;
}

describe("a secret in a hex dump is masked where the dump shows it", () => {
  for (const [name, dump] of [
    ["xxd", XXD],
    ["hexdump -C", HEXDUMP],
    ["od -c", OD],
    ["hexdump -C, squeezed", HEXDUMP_SQUEEZED],
    ["od -c, squeezed", OD_SQUEEZED],
    ["hexdump, two-byte words", HEXDUMP_WORDS],
    ["od -x, two-byte words with octal offsets", OD_WORDS],
    ["od -t x1", OD_X1],
    ["od -t x1z, with a character column", OD_X1Z],
    ["xxd -s 0x10, from an offset past 0", XXD_FROM_16],
    ["hexdump -C -s 16, from an offset past 0", HEXDUMP_FROM_16],
    ["od -c -j 16, from an offset past 0", OD_FROM_16],
    ["xxd -c 8, eight bytes a line", XXD_8_WIDE],
    ["xxd -g 1 -u, bytes apart in capitals", XXD_BYTES_UPPER],
  ] as const) {
    test(name, () => {
      // Before the rule, the bytes after the key's line were in clear (the password's `inter#sun42`, the JWT secret's `signingkey2024`, all the hex).
      const out = r.text(`$ ${name.split(",")[0]} .env\n${dump}`);
      for (const s of SECRETS) expect(shows(out, s)).toEqual([]);
      // Every line is still there, with its offset, and the lines without a secret are as they were.
      const before = dump.split("\n");
      const after = out.split("\n").slice(1);
      expect(after.length).toBe(before.length);
      // The lines that show a byte of a secret, as the dump read back says.
      const d = readDump(dump, 0)!;
      const showing = new Set<number>();
      for (const secret of SECRETS) {
        const at = d.text.indexOf(secret);
        for (let k = at; k < at + secret.length; k++) showing.add(d.line[k]!);
      }
      expect(showing.size).toBeGreaterThan(0);
      for (let i = 0; i < before.length; i++) {
        expect(after[i]!.slice(0, 7)).toBe(before[i]!.slice(0, 7));
        if (!showing.has(i)) expect(after[i]).toBe(before[i]!);
      }
      if (!/from an offset|words|x1$|-c 8/.test(name)) expect(out.replaceAll(" ", "")).toContain("NODE_ENV=product");
      if (!/words|x1$|-c 8/.test(name)) expect(out.replaceAll(" ", "")).toContain("DB_USER=app");
    });
  }

  test("every piece of one secret carries the tag the secret has anywhere else", () => {
    const plain = r.text("DB_PASSWORD=Zq7winter#sun42");
    const tag = /:([0-9a-f]{4})\]/.exec(plain)![1]!;
    const out = r.text(XXD);
    const pieces = [...out.matchAll(/\[REDACTED:password:([0-9a-f]{4})\]/g)];
    expect(pieces.length).toBe(4); // hex and characters, on two lines
    for (const m of pieces) expect(m[1]).toBe(tag);
  });

  test("the head of a dump (| head -3) is read as far as it goes", () => {
    const out = r.text(XXD.split("\n").slice(0, 3).join("\n"));
    expect(shows(out, "Zq7w")).toEqual([]);
    expect(out).toContain("DB_PASSWORD=[REDACTED:password:");
  });

  test("a slice of a dump (| tail, | grep) is read from its first line, wherever that is", () => {
    // xxd .env | tail -3: the password's key is cut off (its rest reads as text would), the JWT secret's is there.
    const tail = r.text(XXD.split("\n").slice(3).join("\n"));
    expect(shows(tail, "s3cr3tjwtsigningkey2024")).toEqual([]);
    expect(tail).toContain("00000030: 696e 7465 7223 7375 6e34 320a 4a57 545f  inter#sun42.JWT_");
    // hexdump -C .env | grep -A2 PASS, and lines grep picked out one by one (each its own stretch).
    const grepped = r.text(HEXDUMP.split("\n").slice(2, 5).join("\n"));
    for (const secret of SECRETS) expect(shows(grepped, secret)).toEqual([]);
    const picked = r.text([1, 2, 3].map((i) => XXD.split("\n")[i]).join("\n"));
    expect(shows(picked, "Zq7winter#sun42")).toEqual([]);
  });

  test("od -c's octal bytes (UTF-8) are read back as the bytes they are", () => {
    const out = r.text(OD_UTF8);
    expect(out).not.toMatch(/ s {3}s {3}w {3}0/);
    expect(out).not.toContain("303 251");
    expect(out).toMatch(/^0000000 {3}D {3}B {3}_ {3}P/);
  });

  test("the secret a dump shows goes wherever else the record holds it (the copy search)", () => {
    const out = r.value({ tool_response: { stdout: XXD }, note: "it was Zq7winter#sun42 all along" }) as { note: string };
    expect(out.note).not.toContain("Zq7winter");
  });

  test("--explain names the rule", () => {
    const found = r.explainText!(XXD).found;
    expect(found.some((f) => f.rule === "dump" && f.kind === "password")).toBe(true);
    // A piece of the secret where the dump shows it is no copy of it.
    expect(found.filter((f) => f.rule === "dump").every((f) => f.copy === undefined)).toBe(true);
  });
});

describe("what is not a dump stays as it is", () => {
  for (const text of [
    "0000000 records processed in 12 ms",
    "id 00000000-0000-0000-0000-000000000000 is the nil UUID",
    // A first line and a second whose offset does not follow on.
    "00000000: 4142 4344                                ABCD\n00000100: 4546                                     EF",
    "00000000  this is not hex at all, only a line that opens with zeros",
    "0000000   a   b   c\nwhat follows is prose, and the password is not here",
    // Lines shaped like a dump's past offset 0, with no secret in their bytes.
    "deadbeef  01 02 03 04 05 06 07 08  09 0a 0b 0c 0d 0e 0f 10  |................|\ncafebabe: 4142 4344  ABCD",
    "build 20240110: 2024 1231 done\n12345670  ab cd ef",
  ]) {
    test(JSON.stringify(text.slice(0, 40)), () => {
      expect(r.text(text)).toBe(text);
    });
  }

  test("readDump reads the bytes back, and stops where the dump does", () => {
    const d = readDump(`${XXD}\n$ echo done`, 0)!;
    expect(d.text).toBe(ENV);
    // The dump's last line break, where `$ echo done` begins its line.
    expect(d.stop).toBe(XXD.length - 1);
    expect(readDump(HEXDUMP, 0)!.text).toBe(ENV);
    expect(readDump(OD, 0)!.text).toBe(ENV);
    expect(readDump("0000000 records", 0)).toBeUndefined();
    // A line that stops being a dump part way keeps none of its bytes.
    expect(readDump("0000000   a   b\n0000002   c  zz\n", 0)!.text).toBe("ab");
    expect(readDump("00000000: 6162  ab\n00000002: 63zz  c\n", 0)!.text).toBe("ab");
  });
});

describe("bytes a program printed as a list of values (rules/dump.ts, byteListRule)", () => {
  const bytes = Buffer.from(ENV, "latin1");
  /** What of `secret` the values in `out` still spell, read back in order (hex pairs, decimals, or `0x` literals). */
  const spelled = (out: string, radix: 10 | 16): string =>
    String.fromCharCode(...[...out.matchAll(radix === 16 ? /(?<= )[0-9a-f]{2}(?= |>)/g : /(?<![\w:])(?:0x[0-9a-f]{1,2}|\d{1,3})(?![\w\]:])/g)].map((m) => (m[0].startsWith("0x") ? parseInt(m[0].slice(2), 16) : parseInt(m[0], radix))));
  // xxd -i .env (vim's xxd 2022-01-14), and byte arrays in source.
  const XXD_I = `unsigned char _env[] = {\n${[...bytes].map((b) => `0x${b.toString(16).padStart(2, "0")}`).join(", ").replace(/((?:[^,]*, ){12})/g, "$1\n").replace(/ \n/g, "\n  ").replace(/^/, "  ")}\n};\nunsigned int _env_len = ${bytes.length};\n`;
  const GO = `var env = []byte{${[...bytes].map((b) => `0x${b.toString(16).padStart(2, "0")}`).join(", ")}}`;
  const JAVA = `byte[] env = new byte[] { ${[...bytes].join(", ")} };`;
  const PYTHON = `env = bytes([${[...bytes].join(", ")}])`;
  // Node 22's console.log of the Buffer fs.readFileSync(".env") returns (its first 50 bytes), of a Uint8Array, and JSON.stringify of the Buffer.
  // Node shows a Buffer's first 50 bytes: the .env's from DB_USER on hold the whole password.
  const tail = bytes.subarray(ENV.indexOf("DB_USER"));
  const INSPECT = `<Buffer ${[...tail.subarray(0, 50)].map((b) => b.toString(16).padStart(2, "0")).join(" ")} ... ${tail.length - 50} more bytes>`;
  const JSON_BUFFER = JSON.stringify(bytes);
  const PRETTY = JSON.stringify({ file: bytes }, null, 2);
  const TYPED = `Uint8Array(${bytes.length}) [\n${[...bytes].map((b) => String(b).padStart(3)).join(",").replace(/((?:[^,]*,){12})/g, "$1\n")}\n]`;

  for (const [name, text, radix] of [
    ["Node's <Buffer …>", INSPECT, 16],
    ["a Buffer as JSON", JSON_BUFFER, 10],
    ["a Buffer as pretty JSON", PRETTY, 10],
    ["Node's Uint8Array(n) [ … ]", TYPED, 10],
    ["xxd -i's C array", XXD_I, 10],
    ["Go's []byte{0x…}", GO, 10],
    ["Java's new byte[] { … }", JAVA, 10],
    ["Python's bytes([…])", PYTHON, 10],
  ] as const) {
    test(name, () => {
      const out = r.text(text);
      // Before the rule, every byte of both secrets was there to read back (the inspect's 50 bytes hold the password).
      const before = spelled(text, radix);
      expect(before).toContain("Zq7winter#sun42");
      const after = spelled(out, radix);
      for (const s of SECRETS) for (let i = 0; i + 4 <= s.length; i++) expect(after).not.toContain(s.slice(i, i + 4));
      expect(after).toContain("DB_USER=app");
      expect(out).toContain("[REDACTED:password:");
    });
  }

  test("lists that spell no secret, and heads that open no list, stay as they are", () => {
    for (const text of [
      "<Buffer 89 50 4e 47 0d 0a 1a 0a 00 00 00 0d 49 48 44 52 00 00 02 00 ... 1024 more bytes>",
      JSON.stringify(Buffer.from("hello world, nothing to see here")),
      'const opts = { encoding: "buffer", flag: "r" };',
      "Uint8Array(3) [ 1, 2, 3 ]",
      "<Buffer >",
      // Code's byte tables: base64's alphabet, a GIF's header.
      `const table = new Uint8Array([${[..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].map((c) => c.charCodeAt(0)).join(", ")}]);`,
      "data = bytes([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00])",
    ]) expect(r.text(text)).toBe(text);
  });

  test("readByteList reads values to the first that is not one", () => {
    expect(readByteList("44 42 5f 50 41 53 53 3d 7a ...", 0, 16)!.text).toBe("DB_PASS=z");
    expect(readByteList("68, 66,\n 95, 80, 65, 83, 83, 61, 256]", 0, 10)!.text).toBe("DB_PASS=");
    expect(readByteList("68,66,95]", 0, 10)).toBeUndefined();
  });
});
