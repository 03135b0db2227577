/**
 * A password named in another language (rules/languages.ts): an agent's
 * answer in the user's language, a translated tool's label. Each negative is
 * a translation file's or a form's text about passwords, with no password in
 * it.
 */
import { describe, expect, test } from "bun:test";
import { createRedactor } from "../../lib/redact/index.ts";
import { leak } from "./shapes.ts";

const r = createRedactor({ fingerprintKey: "k" });
const W = "Zq7wintersun";

/** The input with `W` gone and every other character where it was. */
function onlyTheWordGoes(input: string): void {
  const out = r.text(input);
  expect(leak(out, W)).toBeUndefined();
  expect(out.replace(/\[REDACTED:password:[0-9a-f]{4}\]/, W)).toBe(input);
}

describe("the noun, a colon or the language's 'is', the value", () => {
  for (const input of [
    `Das Passwort ist ${W}\n`,
    `Das neue Passwort lautet: ${W}.\n`,
    `Kennwort: ${W}\n`,
    `wachtwoord: ${W}\n`,
    `Le mot de passe est \`${W}\`.\n`,
    `mot de passe : ${W}\n`,
    `La contraseña es ${W}\n`,
    `"contraseña": "${W}"\n`,
    `A senha é "${W}"\n`,
    `{\\"senha\\": \\"${W}\\"}\n`,
    `parola: ${W}\n`,
    `Hasło: ${W}\n`,
    `heslo: ${W}\n`,
    `lösenord: ${W}\n`,
    `şifre: ${W}\n`,
    `jelszó: ${W}\n`,
    `Ваш пароль: \`${W}\`\n`,
    `ПАРОЛЬ: ${W}\n`,
    `密码：${W}\n`,
    `您的密码为：${W}，请妥善保管\n`,
    `密码是「${W}」。\n`,
    `パスワードは ${W} です\n`,
    `비밀번호는 ${W}입니다\n`,
    `Mật khẩu là ${W}\n`,
    `kata sandi: ${W}\n`,
    `รหัสผ่าน: ${W}\n`,
    `पासवर्ड: ${W}\n`,
    `كلمة المرور: ${W}\n`,
    `סיסמה: ${W}\n`,
  ]) {
    test(input.trim(), () => onlyTheWordGoes(input));
  }
});

describe("what a translation or a form says about passwords stays", () => {
  for (const input of [
    // A translation file: the word for "password" is a label, under any key (keys.ts PASSWORD_NOUNS).
    '{"password": "Passwort", "confirmPassword": "Passwort bestätigen", "hint": "Passwort: Mindestens 8 Zeichen"}\n',
    '{"password": "Contraseña", "label": "Mot de passe"}\n',
    '"passwordLabel": "密码：", "passwordHint": "密码：至少8位"\n',
    "Пароль: обязательно\n",
    "Пароль: {password}\n",
    "Passwort: ********\n",
    "passwort: ${PASSWORT}\n",
    // A plain word after "is" is a sentence, as in English (prose.ts).
    "La contraseña es incorrecta\n",
    "Das Passwort ist falsch\n",
    "Le mot de passe est trop court\n",
    "A senha é obrigatória\n",
    // `token`, `has`, `par` and `ges` open these nouns' words elsewhere: no noun, no find.
    "token: abc\nit has: 3\nparse: Zq7wintersun\n",
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});
