/**
 * A secret handed to a command on its standard input, the way a careful
 * script passes one to keep it out of `ps`: `echo X | docker login
 * --password-stdin`, `echo 'X' | sudo -S …`, `printf '%s' X | gh auth login
 * --with-token`, `… --password-stdin <<< X`, `--vault-password-file <(echo X)`,
 * `echo -n 'user:X' | base64` (a Basic credential being built).
 * The echoed word is the secret only because of what reads it, so each
 * pattern names the reader: an `echo` piped into anything else is output.
 * And an expect script's `send "X\r"` answering an `expect "Password:"`.
 */
import { plausibleSecret } from "../keys.ts";
import { firstMatched, regexRule } from "../prefix.ts";
import type { Rule, ScanCtx } from "../types.ts";

/** What reads a secret from standard input, on the command the pipe feeds (or before a here-string). */
const READER = String.raw`(?:--password-stdin|--passphrase-stdin|--pass-stdin|--token-stdin|--with-token|--password-from-stdin|\bsudo\b[^|;&\n]{0,60}?[ \t]-[A-Za-z]{0,4}S\b|\bchpasswd\b|\bsmbpasswd\b|\bvncpasswd\b|\bpasswd\b[^|;&\n]{0,60}?[ \t]--stdin\b|\bsecrets?[ \t]{1,5}(?:versions[ \t]{1,5})?(?:set|put|create|add)\b|\benv[ \t]{1,5}add\b|--data-file[= ]-(?![\w-]))`;
/**
 * An echoed word: quoted or bare, no substitution (`$TOKEN` is a reference, not the secret); in single
 * quotes a `$` is the word's own (`'Kx9#mP2$vL'`), but a whole `'$TOKEN'` is still a name.
 */
const WORD = String.raw`(?:'(?!\$\{?\w+\}?')([^'\n]{1,256})'|"([^"\n$\\]{1,256})"|([^\s'"|;&<>()$\\]{1,256}))`;
const ECHO = String.raw`(?:echo(?:[ \t]{1,5}-[neE]{1,3})?|printf(?:[ \t]{1,5}(?:'%s(?:\\n)?'|"%s(?:\\n)?"))?)`;

/** A file name that says it holds a secret: `.vault-token`, `db_password`, `api-key.txt`, `credentials`, `.pgpass` (not a `.pub`). */
const SECRET_FILE = String.raw`(?:token|secret|passw(?:or)?d|passphrase|credentials?|api[_-]?key|\.pgpass|\.netrc)[\w.-]{0,40}(?<!\.pub)(?=["']?(?:[ \t\r\n;|&)]|$))`;

/** The group that matched: a quoted word's inside, or the bare word. */
const opts = { priority: 2, group: firstMatched(1, 2, 3), accept: (v: string) => plausibleSecret(v, true) };

/**
 * `… reader … <<< X`. The reader comes before the here-string, on its line
 * and its command. A look-behind for it read the line back at every `<<<` (a
 * line of them cost 170 times a build log), so the text is searched for
 * readers and command breaks once, forward, each hit carrying on from where
 * the last one stopped.
 */
function hereStringRule(): Rule {
  const hereWord = regexRule("password", ["<<<"], String.raw`<<<[ \t]{0,5}${WORD}`, opts);
  const reader = new RegExp(READER, "g");
  return {
    ...hereWord,
    scan(ctx, pos, kw) {
      const s = ctx.s;
      // `<<<<`: not a here-string.
      if (s.charCodeAt(pos - 1) === 60 || s.charCodeAt(pos + 3) === 60) return;
      const m = ctx.memo;
      // Readers end in [from, pos); a reader is at most READER_LONGEST long, so starting that far
      // before what was searched already finds one that straddles it.
      const from = Math.max(0, pos - LINE_BACK, (m.hereTo ?? 0) - READER_LONGEST);
      let readerEnd = m.hereReader ?? -1;
      let brk = m.hereBreak ?? -1;
      if (from < pos) {
        const region = s.slice(from, pos);
        reader.lastIndex = 0;
        for (let x = reader.exec(region); x; x = reader.exec(region)) readerEnd = Math.max(readerEnd, from + x.index + x[0].length);
        for (let i = pos - 1; i >= from && i > brk; i--) {
          const c = s.charCodeAt(i);
          if (c === 10 || c === 124 || c === 59 || c === 38) {
            brk = i;
            break;
          }
        }
      }
      m.hereTo = pos;
      m.hereReader = readerEnd;
      m.hereBreak = brk;
      // The reader's command must still be the one running: no line break, `|`, `;` or `&` since.
      if (readerEnd === -1 || readerEnd <= brk || pos - readerEnd > LINE_BACK) return;
      hereWord.scan(ctx, pos, kw);
    },
  };
}
/** How far before a here-string its reader may end. */
const LINE_BACK = 256;
/** Longer than any text READER matches (its sudo alternative spans the most: 4 + 60 + 7). */
const READER_LONGEST = 96;

/** An `expect` command and the rest of its line (its pattern, maybe a `{ send … }` body). */
const EXPECT = /\bexpect\b[^\n]{0,200}/g;
/** What a prompt for a secret says. */
const SECRET_PROMPT = /assword|passphrase|passcode|passwd|token|secret|\bpin\b|\botp\b|verification code/i;
/** `send "X\r"` (`send -- "X\r"`, `exp_send`): the string typed, up to its `\r` or `\n`. */
const SEND = /send(?:[ \t]{1,4}--)?[ \t]{1,4}(?:"([^"\n\\$[]{1,256})\\[rn]"|\{([^{}\n\\$[]{1,256})\\[rn]\})/y;
/** What closes SEND's match after the typed text: `\r` and the quote or brace. */
const SEND_CLOSE = 3;

/**
 * An expect script's first `send` after an `expect` that waited for a
 * password prompt (on its line or within LINE_BACK): what it types is the
 * password. The `expect`s are read once, forward, each hit carrying on from
 * where the last one stopped (the here-string rule's way).
 */
function scanSend(ctx: ScanCtx, pos: number): void {
  const s = ctx.s;
  const m = ctx.memo;
  const from = Math.max(pos - LINE_BACK, m.expectTo ?? 0);
  if (from < pos) {
    const region = s.slice(from, pos);
    EXPECT.lastIndex = 0;
    for (let x = EXPECT.exec(region); x; x = EXPECT.exec(region)) {
      m.expectAt = from + x.index;
      m.expectSecret = SECRET_PROMPT.test(x[0]) ? 1 : 0;
    }
  }
  m.expectTo = pos;
  if (m.expectSecret !== 1 || pos - m.expectAt! > LINE_BACK) return;
  // One answer per prompt: a later `send` before the next `expect` types something else.
  m.expectSecret = 0;
  SEND.lastIndex = pos;
  const x = SEND.exec(s);
  const typed = x?.[1] ?? x?.[2];
  if (typed === undefined || !plausibleSecret(typed, true)) return;
  // Counted back from the match's end (`\r"` or `\r}` closes it): searched for from its start, a word
  // the command holds (`send "send\r"`) was found in `send` itself.
  const end = SEND.lastIndex - SEND_CLOSE;
  ctx.out.push({ from: pos, start: end - typed.length, end, kind: "password", priority: 2 });
}

/** See the module comment. */
export const STDIN_RULES: readonly Rule[] = [
  { kinds: ["password"], keywords: ["send "], scan: scanSend, patterns: () => [{ kind: "password", source: SEND.source, flags: "y" }] },
  // echo X | … reader
  regexRule("password", ["echo ", "printf "], String.raw`${ECHO}[ \t]{1,5}${WORD}[ \t]{0,5}\|(?=[^|;&\n]{0,256}?${READER})`, opts),
  hereStringRule(),
  // echo X > ~/.vault-token, printf X > /run/secrets/db_password: a file whose name says what it holds
  regexRule("password", ["echo ", "printf "], String.raw`${ECHO}[ \t]{1,5}${WORD}[ \t]{0,5}>{1,2}[ \t]{0,5}(?=["']?[^\s'";|&]{0,200}?${SECRET_FILE})`, { ...opts, flags: "i" }),
  // echo -n 'user:X' | base64 (a Basic credential being built, alone or in `$(…)`): the password after the user's colon
  regexRule("password", ["echo ", "printf "], String.raw`${ECHO}[ \t]{1,5}(?:'[^'\s:]{1,64}:([^'\n]{1,256})'|"[^"\s:]{1,64}:([^"\n$\\]{1,256})"|[^\s'"|:;&]{1,64}:([^\s'"|;&<>()$\\]{1,256}))[ \t]{0,5}\|[ \t]{0,5}(?:base64|openssl[ \t]{1,5}(?:base64|enc[ \t]{1,5}-base64))\b`, opts),
  // echo -e "X\nX" | passwd app, printf 'X\nX\n' | smbpasswd -a bob: a password and its confirmation,
  // the same word twice, piped to whatever asks for both.
  regexRule("password", ["echo ", "printf "], String.raw`${ECHO}[ \t]{1,5}(?:"([^"\n$\\]{4,256})\\n\1(?:\\n)?"|'([^'\n\\]{4,256})\\n\2(?:\\n)?')[ \t]{0,5}\|`, opts),
  // --vault-password-file <(echo X), --password-file=<(printf X), gcloud secrets create NAME --data-file=<(echo -n X)
  regexRule("password", ["<(echo", "<(printf"], String.raw`(?<=pass(?:word|phrase)?[\w-]{0,20}[ \t=]{1,3}|\bsecrets?[ \t]{1,5}(?:versions[ \t]{1,5})?(?:create|add)\b[^\n|;&]{0,200}--data-file[ =])<\(${ECHO}[ \t]{1,5}${WORD}[ \t]{0,3}\)`, opts),
];
