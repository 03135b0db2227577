/**
 * Secrets passed on command lines: `curl -u`, `.netrc`, `mysql -p`,
 * `redis-cli -a`, a registry login's `-p`, `--from-literal`, `sshpass -p`,
 * archive passwords (`zip -P`, `7z -p`), `ldapsearch -w`, `smbclient -U
 * user%pass`, `htpasswd -b`, `mosquitto_passwd -b`, `grafana-cli admin reset-admin-password`, `ssh-keygen -N/-P`, `mysqladmin password X`, Oracle's
 * `sqlplus user/X@db`, FreeRDP's `/p:X`, `dotnet nuget add source -p X`, `nmcli … password X`,
 * `wpa_passphrase SSID X`, `bw unlock X`, `vault operator unseal X`, `mc admin user add A U X`,
 * `poetry config http-basic.R U X`, `cargo login X`, Redis's `ACL SETUSER u on >X`. Each flag counts only after
 * its command: `-p` alone is a port, a path or a parent.
 */
import { plausibleSecret } from "../keys.ts";
import { firstMatched, regexRule, type RegexRuleOpts } from "../prefix.ts";
import type { Rule } from "../types.ts";

/**
 * A flag's argument as a shell passes it: single-quoted (anything, spaces too), double-quoted, or
 * bare (`bare`, by default any run of characters a shell does not split or quote); groups 1, 2, 3
 * (firstMatched). A reference (`"$PASS"`) is plausibleSecret's to turn away.
 */
const arg = (bare = String.raw`[^\s'"\\]{1,256}`): string => String.raw`(?:'([^'\n]{1,256})'|"([^"\n]{1,256})"|(${bare}))`;
const ARG = arg();
/** A password glued to its flag (`-pX`, mysql's and unrar's syntax): no quote, escape, `$` reference or dash first, 3 to 128 units. */
const INLINE_PASSWORD = String.raw`[^\s'"\\$-][^\s'"\\]{2,127}`;
/**
 * A literal argument as a shell passes it, groups 1-3: single-quoted, double-quoted with no `$`
 * reference inside, or bare not opening with a flag's dash or a `$` (`'$PW'` is a literal).
 */
const LITERAL_ARG = String.raw`(?:'([^'\n]{1,256})'|"([^"\n\\$]{1,256})"|([^\s'"\\$-][^\s'"\\]{0,255}))`;
/** A command's argument, quoted or bare (no flag, reference, redirection or `key=value` pair), where `end` (a look-ahead's body) says the command ends. */
const positional = (end: string): string => String.raw`(?:'([^'\n]{1,256})'|"([^"\n\\$]{1,256})"|([^\s'"\\$<|=-][^\s'"\\=]{0,255}))(?=${end})`;
/** A command's last argument. */
const POSITIONAL = positional(String.raw`[ \t]*(?:$|[\r\n;|&])`);
/** A command's argument with only flags after it (`bw unlock X --raw`), the command inside `$(…)` or backticks too. */
const POSITIONAL_THEN_FLAGS = positional(String.raw`(?:[ \t]{1,5}--?[A-Za-z][\w-]{0,40})*[ \t]*(?:$|[\r\n;|&)\x60])`);

const CLI_SPECS: readonly (readonly [string, readonly string[], string, RegexRuleOpts])[] = [
  // curl -u user:pass / --user user:pass / -u ":pass" / --user user:'pass' / --user "user":"pass"
  ["basic-auth", ["-u ", "--user ", "--user="], String.raw`(?<=\s|^)(?:-u|--user)[ =]{0,3}(?:\\?["'])?[^\s:"'\\]{0,256}(?:\\?["'])?:(?:\\?["'])?([^\s"'\\]{1,256})`, {
    // `-u http://app` (`az login -u`'s app id, a tool's `--user` URL) is a URL, not `user:password`.
    priority: 2, accept: (v) => !v.startsWith("//") && plausibleSecret(v, true),
  }],
  // .netrc: machine h login u password p
  ["netrc-password", ["machine "], String.raw`machine[ \t]{1,10}\S{1,256}\s{1,10}login[ \t]{1,10}\S{1,256}\s{1,10}password[ \t]{1,10}(\S{1,256})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true),
  }],
  // mysql -pSECRET (no space: that is mysql's syntax for an inline password), quoted as a shell needs
  // it for symbols: -p'SECRET', -p"SECRET"; and as one element of an argument list printed as text (a
  // compose healthcheck's `test: ["CMD", "mysqladmin", "ping", "-uroot", "-pSECRET"]`), the element's
  // quote before `-p`. A bare `$` first is a reference (compose's `-p$$MYSQL_ROOT_PASSWORD`, a shell's `-p$PW`).
  ["mysql-password", [" -p", '"-p'], String.raw`(?<=(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,200})(?: -p${arg(INLINE_PASSWORD)}|"-p(${INLINE_PASSWORD})")`, {
    priority: 2, group: firstMatched(1, 2, 3, 4), accept: (v) => plausibleSecret(v, true), near: { words: ["mysql", "mariadb"], within: 200 + "mysqladmin".length },
  }],
  // redis-cli -a SECRET / --pass SECRET (valkey-cli, keydb-cli alike)
  ["password", [" -a ", " --pass "], String.raw`(?<=(?:redis|valkey|keydb)-cli\b[^\n]{0,200}) (?:-a|--pass)[ \t]{1,5}${ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true), near: { words: ["-cli"], within: 200 + "-cli".length },
  }],
  // Redis ACLs: `ACL SETUSER app on >SECRET`, and a users.acl or redis.conf line `user app on >SECRET ~* +@all`.
  // Each `>` rule adds a password (`<X` removes one, `#<sha256>` adds a hash: neither is a password in clear).
  ["password", [" >", "'>", '">'], String.raw`(?<=(?:\bacl[ \t]{1,5}setuser|(?:^|\n)[ \t]*user)[ \t]+[^\s>]{1,128}[^\n]{0,400})[ \t]?['"]?>([^\s'"]{1,256})`, {
    priority: 2, flags: "i", accept: (v) => plausibleSecret(v, true), near: { words: ["SETUSER", "SetUser", "user "], within: 530 },
  }],
  // docker login -p SECRET, and the registry and cloud logins that copy its flags
  ["password", [" -p "], String.raw`(?<=(?:docker|podman|buildah|skopeo|nerdctl|oras|cosign|az|cf|oc|expo|eas|helm\s{1,5}registry|crane\s{1,5}auth)\s{1,5}login\b[^\n]{0,200}) -p[ \t]{1,5}${ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true), near: { words: ["login"], within: 200 + "login".length },
  }],
  // Azure's managed databases: az sql|postgres|mysql|mariadb server (or flexible-server) create|update … -p SECRET
  // (their --admin-password; -p is its short form only there)
  ["password", [" -p "], String.raw`(?<=\baz[ \t]{1,5}(?:sql|postgres|mysql|mariadb)[ \t]{1,5}(?:server|flexible-server)[ \t]{1,5}(?:create|update)\b[^\n]{0,300}) -p[ \t]{1,5}${ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true), near: { words: ["server"], within: 340 },
  }],
  // sshpass -p SECRET (its other flags may come first)
  ["password", ["sshpass "], String.raw`sshpass(?:[ \t]{1,5}-[A-Za-oq-z][^\s]{0,64}){0,4}[ \t]{1,5}-p[ \t]{0,5}${ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true),
  }],
  // zip/unzip -P SECRET, 7z -pSECRET
  ["password", [" -p"], String.raw`(?<=\b(?:zip|unzip|zipcloak)\b[^\n]{0,200}) -P[ \t]{1,5}${ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true), near: { words: ["zip"], within: 200 + "zipcloak".length },
  }],
  ["password", [" -p"], String.raw`(?<=\b7z[az]?\b[^\n]{0,200}) -p([^\s'"\\-][^\s'"\\]{2,127})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true), near: { words: ["7z"], within: 204 },
  }],
  // unrar x -pSECRET (its own syntax: no space)
  ["password", [" -p"], String.raw`(?<=\bunrar\b[^\n]{0,200}) -p(${INLINE_PASSWORD})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true), near: { words: ["unrar"], within: 205 },
  }],
  // ldapsearch -w SECRET (and the other OpenLDAP clients); ldappasswd's -s NEW and -a OLD
  ["password", [" -w "], String.raw`(?<=\bldap(?:search|add|modify|delete|passwd|whoami|compare|modrdn|exop|url)\b[^\n]{0,200}) -w[ \t]{1,5}${ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true), near: { words: ["ldap"], within: 200 + "ldappasswd".length },
  }],
  ["password", [" -s ", " -a "], String.raw`(?<=\bldappasswd\b[^\n]{0,200}) -[sa][ \t]{1,5}${ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true), near: { words: ["ldappasswd"], within: 210 },
  }],
  // HTTPie and xh: http -a user:SECRET, --auth user:SECRET (the command opens its line or follows a prompt)
  ["basic-auth", [" -a ", " --auth"], String.raw`(?<=(?:^|\n|[$#>][ \t]|[;&|][ \t]{0,4})[ \t]{0,8}(?:https?|xhs?)\b[^\n]{0,200}) (?:-a|--auth)[ =]{1,3}(?:'[^':\n]{0,256}:([^'\n]{1,256})'|"[^":\n]{0,256}:([^"\n\\$]{1,256})"|[^\s:'"]{0,256}:${ARG})`, {
    priority: 2, group: firstMatched(1, 2, 3, 4, 5), accept: (v) => plausibleSecret(v, true), near: { words: ["http", "xh"], within: 216 },
  }],
  // smbclient -U user%SECRET
  ["password", ["-u ", "--user"], String.raw`(?<=\b(?:smbclient|smbmap|rpcclient|net)\b[^\n]{0,200})(?:-U|--user)[ \t=]{1,3}["']?[^\s%'"]{1,64}%([^\s'"\\]{1,256})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true),
  }],
  // htpasswd -b FILE USER SECRET, htpasswd -nb USER SECRET (-c, -B and the like may join the -b)
  ["password", ["htpasswd "], String.raw`htpasswd((?:[ \t]{1,5}-[A-Za-z]{1,6}){1,4})[ \t]{1,5}([^\s-]\S{0,254})[ \t]{1,5}["']?([^\s'"\\]{1,256})(?:["']?[ \t]{1,5}["']?([^\s'"\\]{1,256}))?`, {
    priority: 2, accept: (v) => plausibleSecret(v, true),
    // With -b the password is an argument: the third after the flags, or the second with -n (no file); no group without -b.
    group: (m) => (!/b/.test(m[1]!) ? -1 : /n/.test(m[1]!) ? 3 : 4),
  }],
  // grafana-cli admin reset-admin-password SECRET (and `grafana cli …`)
  ["password", ["-admin-password "], String.raw`(?<=\bgrafana(?:-cli|[ \t]{1,4}cli)\b[^\n]{0,200}[ \t]admin[ \t]{1,4}reset)-admin-password(?:[ \t]{1,4}--[\w-]{1,30}(?:=\S{1,200})?)*[ \t]{1,4}["']?([^\s'"\\$-][^\s'"\\]{0,255})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true),
  }],
  // mosquitto_passwd -b FILE USER SECRET
  ["password", ["mosquitto_passwd "], String.raw`mosquitto_passwd(?:[ \t]{1,5}-[A-Za-z]{1,3})*?[ \t]{1,5}-b[ \t]{1,5}[^\s-]\S{0,254}[ \t]{1,5}\S{1,64}[ \t]{1,5}${ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true),
  }],
  // FreeRDP's Windows-style switches: xfreerdp /u:USER /p:SECRET
  ["password", [" /p:", ' "/p:'], String.raw`(?<=\b(?:x|wl|sdl-)?freerdp3?\b[^\n]{0,200}) "?/p:(?:'([^'\n]{1,256})'|([^\s'"\\]{1,256}))`, {
    priority: 2, accept: (v) => plausibleSecret(v, true), group: firstMatched(1, 2), near: { words: ["freerdp"], within: 200 + "sdl-freerdp3".length },
  }],
  // dotnet nuget add|update source … -p SECRET
  ["password", [" -p "], String.raw`(?<=\bdotnet[ \t]{1,5}nuget[ \t]{1,5}(?:add|update)[ \t]{1,5}source\b[^\n]{0,200}) -p[ \t]{1,5}${ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true), near: { words: ["nuget"], within: 220 },
  }],
  // sqlcmd/bcp/osql/isql -P SECRET (SQL Server's tools)
  ["password", [" -p "], String.raw`(?<=\b(?:sqlcmd|bcp|osql|isql)\b[^\n]{0,200}) -P[ \t]{1,5}${ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true), near: { words: ["sqlcmd", "bcp", "osql", "isql"], within: 206 },
  }],
  // openssl -k SECRET (the passphrase of enc; -pass pass:… is the key/value rule's)
  ["password", [" -k "], String.raw`(?<=\bopenssl\b[^\n]{0,200}) -k[ \t]{1,5}${ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true), near: { words: ["openssl"], within: 207 },
  }],
  // useradd/usermod -p HASH: crypt(3) of the password, which a dictionary attack reads back
  ["password", [" -p "], String.raw`(?<=\buser(?:add|mod)\b[^\n]{0,200}) -p[ \t]{1,5}${ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true), near: { words: ["useradd", "usermod"], within: 207 },
  }],
  // Positional passwords: rabbitmqctl add_user USER SECRET, change_password USER SECRET; net user NAME SECRET
  ["password", ["add_user ", "change_password "], String.raw`(?<=\brabbitmqctl\b[^\n]{0,100})(?:add_user|change_password)[ \t]{1,5}["']?[^\s'"]{1,64}["']?[ \t]{1,5}${ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true), near: { words: ["rabbitmqctl"], within: 111 },
  }],
  ["password", ["net user "], String.raw`net[ \t]{1,5}user[ \t]{1,5}["']?[^\s'"/]{1,64}["']?[ \t]{1,5}["']?([^\s'"\\/*][^\s'"\\]{0,255})(?=["']?(?:[ \t]{1,5}/|[ \t]*\r?$|[ \t]*\n))`, {
    priority: 2, flags: "i", accept: (v) => plausibleSecret(v, true),
  }],
  // Windows: psexec/paexec -p SECRET, schtasks /RP SECRET, net use \\host\share SECRET
  ["password", [" -p "], String.raw`(?<=\b(?:psexec|psexec64|paexec)\b[^\n]{0,200}) -p[ \t]{1,5}${ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true), near: { words: ["psexec", "paexec"], within: 208 },
  }],
  ["password", [" /rp "], String.raw`(?<=\bschtasks\b[^\n]{0,200}) /rp[ \t]{1,5}["']?([^\s'"\\/*][^\s'"\\]{0,255})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true), flags: "i",
  }],
  ["password", ["net use "], String.raw`net[ \t]{1,5}use[ \t]{1,5}(?:[A-Za-z]:[ \t]{1,5})?["']?\\\\[^\s'"]{1,256}["']?[ \t]{1,5}["']?([^\s'"\\/*][^\s'"\\]{0,255})`, {
    priority: 2, flags: "i", accept: (v) => plausibleSecret(v, true),
  }],
  // … and its password after the user switch: net use X: \\host\share /user:DOMAIN\name SECRET
  ["password", ["net use "], String.raw`net[ \t]{1,5}use[ \t]{1,5}(?:[A-Za-z]:[ \t]{1,5})?["']?\\\\[^\s'"]{1,256}["']?[ \t]{1,5}/u(?:ser)?:["']?[^\s'"]{1,128}["']?[ \t]{1,5}["']?([^\s'"\\/*][^\s'"\\]{0,255})`, {
    priority: 2, flags: "i", accept: (v) => plausibleSecret(v, true),
  }],
  // MinIO's client: mc alias set NAME URL ACCESS_KEY SECRET_KEY (and the older `mc config host add`)
  ["password", ["mc alias ", "mc config "], String.raw`mc[ \t]{1,5}(?:alias[ \t]{1,5}set|config[ \t]{1,5}host[ \t]{1,5}add)[ \t]{1,5}\S{1,64}[ \t]{1,5}\S{1,512}[ \t]{1,5}["']?[^\s'"]{1,256}["']?[ \t]{1,5}${ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true),
  }],
  // Redis's AUTH [user] SECRET at redis-cli's prompt (`127.0.0.1:6379> AUTH …`); a line that opens
  // with AUTH is as often a log's word (`AUTH failed`, `AUTH token expired`)
  ["password", ["auth "], String.raw`(?<=(?:\d{1,5}|redis|\[\d{1,2}\])> ?)AUTH[ \t]{1,5}(?:[^\s]{1,64}[ \t]{1,5})?([^\s]{1,256})[ \t]*(?=\r?\n|$)`, {
    priority: 2, accept: (v) => plausibleSecret(v, true),
  }],
  // ssh-keygen -N NEWPASS / -P OLDPASS
  ["password", [" -n ", " -p "], String.raw`(?<=\bssh-keygen\b[^\n]{0,200}) -[NP][ \t]{1,5}${ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true), near: { words: ["ssh-keygen"], within: 200 + "ssh-keygen".length },
  }],
  // Secret stores set from an argument: gh secret set NAME --body X (-b X), aws ssm put-parameter
  // --value X, aws secretsmanager create-secret/put-secret-value/update-secret --secret-string X,
  // az keyvault secret set --value X
  // (from the command forward: a look-behind at every ` -b` read 200 characters back each time)
  ["password", ["secret set"], String.raw`(?<=\bgh[ \t]{1,5})secret[ \t]{1,5}set\b[^\n]{0,200}?[ \t](?:--body|-b)(?:[ \t]{1,5}|=)?["']?([^\s'"\\-][^\s'"\\]{0,4095})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true),
  }],
  ["password", [" --value", " --secret-string"], String.raw`(?<=\b(?:ssm[ \t]{1,5}put-parameter|secretsmanager[ \t]{1,5}(?:create-secret|put-secret-value|update-secret)|keyvault[ \t]{1,5}secret[ \t]{1,5}set)\b[^\n]{0,300})[ \t]--(?:value|secret-string)(?:[ \t]{1,5}|=)["']?([^\s'"\\{-][^\s'"\\]{0,4095})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true), near: { words: ["put-parameter", "secretsmanager", "keyvault"], within: 330 },
  }],
  // keytool/jarsigner -storepass X, -keypass X (-srcstorepass, -deststorepass, -new; not -storepass:env NAME)
  ["password", ["storepass ", "keypass "], String.raw`(?<=\b(?:keytool|jarsigner)\b[^\n]{0,300}[ \t]-(?:src|dest|new)?)(?:storepass|keypass)[ \t]{1,5}["']?([^\s'"\\-][^\s'"\\]{0,255})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true), near: { words: ["keytool", "jarsigner"], within: 320 },
  }],
  // The next two start at the command, a rare word, and read forward: a look-behind started at
  // every ` -p ` or ` -u ` (common flags) would read 200 characters back each time.
  // the MongoDB shells: mongo -p X, mongosh -p X (--password X is the key/value rule's)
  ["password", ["mongo"], String.raw`mongo(?:sh)?\b(?!:)[^\n]{0,200}? -p[ \t]{1,5}["']?([^\s'"\\-][^\s'"\\]{0,255})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true),
  }],
  // rclone config create|update NAME TYPE … pass X, secret_access_key X, client_secret X, key X (its key value pairs; rclone obscures the password it stores, not the command line)
  ["password", ["rclone "], String.raw`rclone[ \t]{1,5}config[ \t]{1,5}(?:create|update)\b[^\n]{0,300}?[ \t](?:pass|password|secret_access_key|client_secret|account_key|key|token|sas_url|password2)[ \t]{1,5}${ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true),
  }],
  // lftp -u user,PASS
  ["password", ["lftp "], String.raw`lftp[ \t][^\n]{0,200}?-u[ \t]{1,5}["']?[^\s,'"]{1,64},([^\s'"\\]{1,256})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true),
  }],
  // ansible-vault encrypt_string 'X': the argument is the secret it encrypts
  ["password", ["encrypt_string "], String.raw`encrypt_string(?:[ \t]{1,5}(?:--(?:vault-id|vault-password-file|encrypt-vault-id)[ =][^\s'"]{1,200}|--ask-vault-pass(?:word)?|-J)){0,3}[ \t]{1,5}(?:'([^'\n]{1,1024})'|"([^"\n\\$]{1,1024})"|([^\s'"\\$-][^\s'"\\]{0,1023}))`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true),
  }],
  // mysqladmin … password 'NEW': the subcommand's argument is the account's new password
  ["password", ["mysqladmin "], String.raw`mysqladmin\b[^\n|;&]{0,200}?[ \t]password[ \t]{1,5}${LITERAL_ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true),
  }],
  // Oracle's user/password@connect: sqlplus scott/X@orcl, and the tools that log on the same way
  ["password", ["sqlplus ", "impdp ", "expdp ", "sqlldr ", "rman "], String.raw`\b(?:sqlplus|impdp|expdp|sqlldr|rman)(?:[ \t]{1,5}-[A-Za-z]{1,10})*[ \t]{1,5}(?:userid=|target[ \t]{1,5})?["']?[A-Za-z][\w$#]{0,63}/([^\s@/'"\\]{1,128})(?=@|["']?(?:[ \t]|\r?\n|$))`, {
    priority: 2, flags: "i", accept: (v) => plausibleSecret(v, true),
  }],
  // macOS keychain: security add-generic-password … -w X (add-internet-password alike)
  ["password", [" -w "], String.raw`(?<=\bsecurity[ \t]{1,5}add-(?:generic|internet)-password\b[^\n]{0,200}) -w[ \t]{1,5}${LITERAL_ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true), near: { words: ["-password"], within: 230 },
  }],
  // NetworkManager: nmcli device wifi connect SSID password X, and the secrets a connection's settings
  // take as `name value` pairs (nmcli connection modify NAME wifi-sec.psk X, 802-1x.password X)
  ["password", ["nmcli "], String.raw`\bnmcli\b[^\n|;&]{0,300}?[ \t](?:password|wifi-sec\.psk|wifi-sec\.wep-key[0-3]|802-1x\.(?:password|private-key-password|identity-password)|pppoe\.password|gsm\.password|cdma\.password)[ \t]{1,5}${LITERAL_ARG}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true),
  }],
  // wpa_passphrase SSID X: the network's passphrase, from which it prints a PSK (without X it reads stdin)
  ["password", ["wpa_passphrase "], String.raw`\bwpa_passphrase[ \t]{1,5}(?:'[^'\n]{1,64}'|"[^"\n]{1,64}"|[^\s'"|;&<>]{1,64})[ \t]{1,5}(?:'([^'\n]{1,256})'|"([^"\n\\$]{1,256})"|([^\s'"\\$<>|;&-][^\s'"\\]{0,255}))`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true),
  }],
  // Bitwarden's CLI: bw unlock X, bw login EMAIL X (the master password; --raw and the like may follow)
  ["password", ["bw unlock ", "bw login "], String.raw`\bbw[ \t]{1,5}(?:unlock|login[ \t]{1,5}[^\s'"-]\S{0,254})[ \t]{1,5}${POSITIONAL_THEN_FLAGS}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true),
  }],
  // vault operator unseal X: an unseal key share
  ["generic-secret", ["vault operator unseal "], String.raw`\bvault[ \t]{1,5}operator[ \t]{1,5}unseal[ \t]{1,5}${POSITIONAL_THEN_FLAGS}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true),
  }],
  // MinIO's mc admin user add ALIAS USER X, Poetry's poetry config http-basic.REPO USER X, cargo login X
  ["password", ["mc admin user add "], String.raw`\bmc[ \t]{1,5}admin[ \t]{1,5}user[ \t]{1,5}add[ \t]{1,5}\S{1,128}[ \t]{1,5}[^\s'"-]\S{0,127}[ \t]{1,5}${POSITIONAL}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true),
  }],
  ["password", ["poetry config "], String.raw`\bpoetry[ \t]{1,5}config[ \t]{1,5}http-basic\.[\w.-]{1,64}[ \t]{1,5}[^\s'"-]\S{0,127}[ \t]{1,5}${POSITIONAL}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true),
  }],
  ["generic-secret", ["cargo login "], String.raw`\bcargo[ \t]{1,5}login(?:[ \t]{1,5}--registry[ =]\S{1,64})?[ \t]{1,5}${POSITIONAL}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true),
  }],
  // rclone obscure X: the plaintext it obscures for a config
  ["password", ["rclone obscure "], String.raw`\brclone[ \t]{1,5}obscure[ \t]{1,5}${POSITIONAL}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true),
  }],
  // vault login X: a token as its argument (`-method=…` logins take `key=value` pairs, the key/value rule's)
  ["generic-secret", ["vault login "], String.raw`\bvault[ \t]{1,5}login[ \t]{1,5}${POSITIONAL}`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true),
  }],
  // A password hashed on the command line: openssl passwd [-1|-5|-6|-salt S] X, mkpasswd [-m M] X
  ["password", ["openssl passwd", "mkpasswd "], String.raw`\b(?:openssl[ \t]{1,5}passwd|mkpasswd)((?:[ \t]{1,5}-(?:[156]|apr1|aixmd5|crypt|stdin|noverify|quiet|table|reverse|salt[ \t]{1,5}\S{1,64}|m[ \t]{1,5}[\w-]{1,32}|-method[= ][\w-]{1,32}|S[ \t]{1,5}\S{1,64}|R[ \t]{1,5}\d{1,9}))*)[ \t]{1,5}(?:'([^'\n]{1,256})'|"([^"\n\\$]{1,256})"|([^\s'"\\$<|-][^\s'"\\]{0,255}))`, {
    priority: 2, group: (m) => (/-stdin/.test(m[1]!) ? -1 : m[2] !== undefined ? 2 : m[3] !== undefined ? 3 : 4), accept: (v) => plausibleSecret(v, true),
  }],
  // An Ansible inventory's or `-e`'s connection passwords: `web1 ansible_host=… ansible_password=X`, always literals there
  ["password", ["ansible_password=", "ansible_ssh_pass=", "ansible_ssh_password=", "ansible_become_pass=", "ansible_become_password="], String.raw`ansible_(?:ssh_|become_)?pass(?:word)?=(?:'([^'\n]{1,256})'|"([^"\n\\]{1,256})"|([^\s'"\\]{1,256}))`, {
    priority: 2, group: firstMatched(1, 2, 3), accept: (v) => plausibleSecret(v, true),
  }],
  // kubectl create secret generic --from-literal=key=value
  ["k8s-secret", ["--from-literal="], String.raw`--from-literal=["']?[A-Za-z0-9_.-]{1,253}=([^\s"'\\]{1,4096})`, {
    priority: 2, accept: (v) => plausibleSecret(v, true),
  }],
];

export const CLI_RULES: readonly Rule[] = CLI_SPECS.map(([kind, kws, src, o]) => regexRule(kind, kws, src, o));

/**
 * The same rules without their `near` shortcuts (RegexRuleOpts.near): what a
 * test holds the shortcuts to.
 *
 * @example
 * ```ts
 * plainCliRules().length === CLI_RULES.length; // true
 * ```
 */
export function plainCliRules(): Rule[] {
  return CLI_SPECS.map(([kind, kws, src, o]) => regexRule(kind, kws, src, { ...o, near: undefined }));
}
