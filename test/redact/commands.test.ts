/**
 * Secrets handed to a command or a setter where no key names them: on
 * standard input (rules/stdin.ts), as a flag only one command gives that
 * meaning (rules/cli-flags.ts), to a setter call (rules/setter.ts), in a
 * connection string's `Pwd=` or a `.pgpass` line (rules/connection.ts), and
 * after `::add-mask::` (rules/ci-mask.ts). Each is the shape an agent's
 * shell command or a config file it printed takes; each negative is the same
 * shape without a secret, or with a reference in its place.
 */
import { describe, expect, test } from "bun:test";
import { createRedactor } from "../../lib/redact/index.ts";
import { leak } from "./shapes.ts";

const r = createRedactor({ fingerprintKey: "k" });
// Sixteen characters of letters and digits: under the bar an unlabelled token must clear on a line of other words.
const S = "Xk9mQ2vL7pR4tW8z";
// A word-built password: what the bare-name guard (`password = userPassword` is code) would keep.
const W = "CorrectHorseBattery";
const TAG = /\[REDACTED:[a-z-]+:[0-9a-f]{4}\]/;
const TAG_G = new RegExp(TAG.source, "g");

/** The input with the secret gone and every other character where it was. */
function onlySecretGoes(input: string, secret = S): void {
  const out = r.text(input);
  expect(leak(out, secret)).toBeUndefined();
  expect(out.replace(TAG, secret)).toBe(input);
}

describe("handed on standard input", () => {
  for (const input of [
    `echo ${S} | docker login -u me --password-stdin registry.example.com\n`,
    `echo "${S}" | podman login quay.io -u me --password-stdin\n`,
    `echo -n '${S}' | helm registry login ghcr.io -u me --password-stdin\n`,
    `printf '%s' ${S} | gh auth login --with-token\n`,
    `echo '${S}' | sudo -S apt-get update\n`,
    `echo ${S} | sudo -k -S systemctl restart app\n`,
    `echo -n "${S}" | wrangler secret put API_KEY\n`,
    `echo "${S}" | gh secret set DEPLOY_TOKEN\n`,
    `vercel env add API_KEY production <<< ${S}\n`,
    `docker login -u me --password-stdin registry <<< '${S}'\n`,
    `sudo -S whoami <<< ${S}\n`,
    `ansible-playbook site.yml --vault-password-file <(echo ${S})\n`,
    `gcloud secrets create db-password --data-file=<(echo -n "${S}")\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input));
  }
  // In single quotes a `$` is the word's own: the shell passes `Kx9#mP2$vL` as typed.
  for (const input of ["echo 'Kx9#mP2$vL' | sudo -S apt-get update\n", "docker login -u me --password-stdin registry <<< 'Kx9#mP2$vL'\n"]) {
    test(input.trim(), () => onlySecretGoes(input, "Kx9#mP2$vL"));
  }
  // A password and its confirmation, the same word twice, piped to what asks for both.
  for (const input of ['echo -e "Zq7wintersun\\nZq7wintersun" | passwd app\n', "echo -e 'Zq7wintersun\\nZq7wintersun\\n' | sudo passwd root\n"]) {
    test(input.trim(), () => {
      const out = r.text(input);
      expect(leak(out, "Zq7wintersun")).toBeUndefined();
      expect(out.replace(TAG_G, "Zq7wintersun")).toBe(input);
    });
  }
  test("chpasswd's user:password", () => {
    const out = r.text(`echo 'deploy:${S}' | chpasswd\n`);
    expect(leak(out, S)).toBeUndefined();
  });
  for (const input of [
    "echo hello | grep h\n",
    'echo "Build complete" | tee build.log\n',
    "echo $REGISTRY_TOKEN | docker login -u me --password-stdin\n",
    'echo "${{ secrets.REGISTRY_TOKEN }}" | docker login ghcr.io -u me --password-stdin\n',
    'echo "$PW" | sudo -S apt-get update\n',
    "echo '$TOKEN' | docker login -u me --password-stdin\n",
    '    test: ["CMD", "mysqladmin", "ping", "-uroot", "-p$$MYSQL_ROOT_PASSWORD"]\n',
    "mysqladmin ping -uroot -p$$MYSQL_ROOT_PASSWORD\n",
    "vault login -method=userpass username=admin\n",
    "vault login $VAULT_TOKEN\n",
    "unrar x -p- archive.rar\n",
    'echo -e "yes\\nyes" | ./configure\n',
    'echo -e "line1\\nline2" | cat\n',
    'echo -e "$PW\\n$PW" | passwd app\n',
    "echo '${TOKEN}' | docker login -u me --password-stdin\n",
    'echo "deb http://deb.debian.org/debian bookworm main" | sudo tee -a /etc/apt/sources.list\n',
    // The here-string feeds another command than the reader's.
    `docker login --password-stdin registry; cat <<< ${S}\n`,
    `cat <<< ${S}\n`,
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("flags only one command gives a password's meaning", () => {
  for (const input of [
    `sshpass -p ${S} ssh root@10.0.0.5\n`,
    `unrar x -p${S} archive.rar\n`,
    `rclone obscure ${S}\n`,
    `vault login ${S}\n`,
    // An argument list printed as text: a compose healthcheck's mysqladmin.
    `    test: ["CMD", "mysqladmin", "ping", "-uroot", "-p${S}"]\n`,
    `sshpass -v -p '${S}' scp f host:\n`,
    `az login -u me@example.com -p ${S}\n`,
    `podman login -u me -p ${S} quay.io\n`,
    `zip -P ${S} out.zip notes.txt\n`,
    `unzip -P ${S} backup.zip\n`,
    `7z a -p${S} out.7z dir\n`,
    `ldapsearch -x -D cn=admin,dc=example,dc=com -w ${S} -b dc=example,dc=com\n`,
    `smbclient //srv/share -U admin%${S}\n`,
    `htpasswd -b .htpasswd admin ${S}\n`,
    `htpasswd -cbB /etc/nginx/.htpasswd admin ${S}\n`,
    `htpasswd -nb admin ${S}\n`,
    `ssh-keygen -p -f key -N ${S}\n`,
    `sqlcmd -S db -U sa -P ${S} -Q "select 1"\n`,
    `openssl enc -aes-256-cbc -k ${S} -in notes.txt\n`,
    `useradd -m -p ${S} bob\n`,
    `rabbitmqctl add_user admin ${S}\n`,
    `rabbitmqctl change_password admin ${S}\n`,
    `net user admin ${S} /add\n`,
    `127.0.0.1:6379> AUTH default ${S}\n`,
    `mc alias set myminio http://127.0.0.1:9000 minioadmin ${S}\n`,
    `mc config host add s3 https://s3.amazonaws.com AKIAIOSFODNN7EXAMPLE '${S}'\n`,
    `psexec \\\\host -u admin -p ${S} cmd\n`,
    `schtasks /create /tn nightly /ru admin /rp ${S} /tr backup.cmd\n`,
    `net use \\\\srv\\share ${S} /user:me\n`,
    `net use Z: \\\\srv\\share /user:ACME\\me ${S} /persistent:yes\n`,
    `mosquitto_passwd -b /etc/mosquitto/passwd admin ${S}\n`,
    `xfreerdp /u:admin /p:${S} /v:10.0.0.5\n`,
    `xfreerdp3 /v:host "/p:${S}" /cert:ignore\n`,
    `dotnet nuget add source https://nuget.example.com/v3/index.json -n corp -u admin -p ${S} --store-password-in-clear-text\n`,
    `nmcli dev wifi connect MyWifi password ${S}\n`,
    `sudo nmcli device wifi connect "Cafe Net" password '${S}' ifname wlan0\n`,
    `nmcli con modify MyWifi wifi-sec.psk ${S}\n`,
    `wpa_passphrase MyWifi ${S}\n`,
    `wpa_passphrase "Home Net" '${S}' | sudo tee -a /etc/wpa_supplicant/wpa_supplicant.conf\n`,
    `bw unlock ${S}\n`,
    `export BW_SESSION=$(bw login me@example.com '${S}' --raw)\n`,
    `vault operator unseal ${S}\n`,
    `mc admin user add myminio newuser ${S}\n`,
    `poetry config http-basic.private me ${S}\n`,
    `cargo login ${S}\n`,
    `expo login -u me -p ${S}\n`,
    `http -a admin:${S} GET https://api.example.com/items\n`,
    `$ xh --auth=admin:'${S}' post api.example.com/items\n`,
    `ldappasswd -x -D cn=admin,dc=example,dc=com -W -s ${S} uid=bob,dc=example,dc=com\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input));
  }
  for (const input of [
    'ssh-keygen -t ed25519 -N "" -f ~/.ssh/id_ed25519\n',
    'unzip -P "$ZIP_PASS" archive.zip\n',
    "7z x -p archive.7z\n",
    "sshpass -f ~/.pass ssh host\n",
    "htpasswd -c /etc/nginx/.htpasswd admin\n",
    "htpasswd -B .htpasswd admin extra-arg\n",
    "ldapsearch -x -H ldap://host -b dc=x,dc=com -w $LDAP_PW\n",
    "docker login -u me -p $TOKEN registry\n",
    "smbclient //server/share -U guest%\n",
    "zip -r out.zip dir -x '*.git*'\n",
    "AUTH failed\nAUTH token expired\n127.0.0.1:6379> AUTH\n",
    "net user\nnet user admin /add\nnet user admin *\nnet user guest /active:no\n",
    "rabbitmqctl add_user admin\nrabbitmqctl list_users\n",
    "mc alias set myminio http://127.0.0.1:9000\nmc alias list\nmc alias set myminio http://127.0.0.1:9000 minioadmin $MINIO_SECRET\n",
    "net use \\\\srv\\share /user:me\nnet use Z: \\\\srv\\share /persistent:yes\nnet use \\\\srv\\share * /user:me\n",
    "schtasks /create /tn x /ru SYSTEM /tr x\npsexec \\\\host cmd\n",
    "openssl rand -hex 32\nsqlcmd -S db -E -Q 'select 1'\nuseradd -m bob\n",
    "mosquitto_passwd -c /etc/mosquitto/passwd admin\nxfreerdp /u:admin /v:10.0.0.5 /p:$RDP_PASSWORD\n",
    "dotnet nuget add source https://nuget.example.com/v3/index.json -n corp\n",
    "nmcli dev wifi connect MyWifi password $WIFI_PASS\nnmcli --ask dev wifi connect MyWifi\nnmcli connection show\n",
    "wpa_passphrase MyWifi > /etc/wpa_supplicant.conf\nwpa_passphrase MyWifi\n",
    "bw unlock --passwordenv BW_PASSWORD\nbw login me@example.com\nbw unlock\nbw unlock --check\n",
    "vault operator unseal\nvault operator unseal -reset\nmc admin user add myminio newuser\n",
    "poetry config http-basic.private me\ncargo login\ncargo login $CARGO_TOKEN\n",
    // HTTPie's -a only opens a line (or follows a prompt); after curl, or in prose, it is no password.
    "http -a admin:$API_PASS GET https://api.example.com\ncurl http://x -a b:c\nsee the http docs for -a user:pass\n",
    "ldappasswd -x -D cn=admin,dc=example,dc=com -W -S uid=bob,dc=example,dc=com\n",
    // -p is a port, a parent or a path for every other command.
    `ps -p 1234 -o pid\nmkdir -p ${S}\nssh -p 2222 host\n`,
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("a command line's values are literals: a word-built password after a flag goes", () => {
  // In code a bare name is a reference; on a command line the shell passes the word as it is.
  for (const input of [
    `app --password ${W}\n`,
    `app --password=${W}\n`,
    `app --db-password ${W}\n`,
    `java -Ddb.password=${W} -jar app.jar\n`,
    `terraform apply -var db_password=${W}\n`,
    `ansible-playbook site.yml -e ansible_password=${W}\n`,
    `helm install shop ./chart --set auth.password=${W}\n`,
    `curl -d "username=admin&password=${W}" https://example.com/login\n`,
    `https://example.com/login?user=admin&password=${W}\n`,
    `cmdkey /add:srv /user:me /pass:${W}\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input, W));
  }
  for (const input of ["password = userPassword\n", "login(password=userPassword)\n", "const o = { password: hashedPassword };\n", "x = a / password\n"]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("setters", () => {
  for (const input of [
    `define('DB_PASSWORD', '${S}');\n`,
    `define( "AUTH_SALT", "${S}" );\n`,
    `os.Setenv("API_TOKEN", "${S}")\n`,
    `os.environ.setdefault("SECRET_KEY", "${S}")\n`,
    `[Environment]::SetEnvironmentVariable("DB_PASS", "${S}", "User")\n`,
    `$pw = ConvertTo-SecureString "${S}" -AsPlainText -Force\n`,
    `$pw = ConvertTo-SecureString -String '${S}' -AsPlainText -Force\n`,
    // Credential objects built from a user and a password.
    `var c = new NetworkCredential("admin", "${W}");\n`,
    `new UsernamePasswordCredentials("admin", "${W}")\n`,
    `auth = new UsernamePasswordAuthenticationToken("admin", "${W}");\n`,
    `return new PasswordAuthentication("admin", "${W}".toCharArray());\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input, input.includes(W) ? W : S));
  }
  for (const input of ["new NetworkCredential(user, password)\n", "new UsernamePasswordAuthenticationToken(user, null, authorities)\n", 'new NetworkCredential("admin", "password")\n']) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("a browser test typing into a password field, a login helper's password", () => {
  for (const input of [
    `await page.fill('#password', '${W}');\n`,
    `await page.type('input[type=password]', '${W}');\n`,
    `await userEvent.type(screen.getByLabelText(/password/i), '${W}');\n`,
    `await page.getByLabel('Password').fill('${W}');\n`,
    `await page.locator('input[name="password"]').fill('${W}');\n`,
    `await page.getByPlaceholder('Password').pressSequentially('${W}');\n`,
    `cy.get('#password').type('${W}')\n`,
    `driver.find_element(By.ID, "password").send_keys("${W}")\n`,
    `driver.findElement(By.name("password")).sendKeys("${W}");\n`,
    `await $('#password').setValue('${W}')\n`,
    `login('admin', '${W}')\n`,
    `it('logs in', () => { loginAs('admin', '${W}') })\n`,
    `await signIn("a@b.c", "${W}");\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input, W));
  }
  for (const input of [
    "cy.get('#username').type('admin1234')\n",
    "await page.fill('#password', password);\n",
    "await page.getByLabel('Password').fill(creds.password);\n",
    "cy.get('#password').type('{enter}')\n",
    "cy.get('#password').type('{selectall}{backspace}')\n",
    "await page.fill('#password', 'password');\n",
    "await page.fill('#password', pw); await page.fill('#otp', '123456');\n",
    "login(user, password)\n",
    "begin('tx', 'CorrectHorseBattery')\n",
    "console.log(login('admin'), 'CorrectHorseBattery')\n",
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
  for (const input of [
    "define('WP_DEBUG', true);\n",
    "define('DB_NAME', 'wordpress');\n",
    "define('AUTH_KEY', 'put your unique phrase here');\n",
    "echo __('Password', 'woocommerce');\n",
    'os.Setenv("PATH", "/usr/bin:/bin")\n',
    'os.Setenv("TOKEN_TTL", "3600")\n',
    "$pw = ConvertTo-SecureString $plain -AsPlainText -Force\n",
    "set -x PATH /usr/bin $PATH\nset -gx EDITOR vim\nset -e DB_PASSWORD\nset -euo pipefail\nset -x\n",
    "setenv DB_PASSWORD $SECRET\nset -x DB_PASSWORD (cat /run/secrets/db)\n",
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("shell setters with a space: a word-built password", () => {
  // No token shape for the entropy rule: only the setter and the name say what the word is.
  for (const input of [`set -gx DB_PASSWORD ${W}\n`, `set -x DB_PASSWORD '${W}'; and make\n`, `setenv DB_PASSWORD "${W}"\n`]) {
    test(input.trim(), () => onlySecretGoes(input, W));
  }
});

describe("connection settings", () => {
  for (const input of [
    `Driver={ODBC Driver 18 for SQL Server};Server=db;Uid=sa;Pwd=${S};\n`,
    `Server=db;Uid=sa;Pwd={${S}};Encrypt=yes\n`,
    `"ConnectionStrings": {"Db": "Server=db;Uid=sa;PWD=${S}"}\n`,
    `db.example.com:5432:app:appuser:${S}\n`,
    `*:*:*:postgres:${S}\n`,
    `localhost:6432:pgbouncer:admin:${S}\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input));
  }
  for (const input of [
    "cd /tmp; PWD=/tmp\n",
    "PWD=/home/dev\nOLDPWD=/home\n",
    "export PWD=/home/dev/proj; ls\n",
    "Server=db;Database=app;Trusted_Connection=True;\n",
    "root:*:20228:0:99999:7:::\n",
    "2026-01-14T10:53:00Z INFO listening on 0.0.0.0:5432:ready\n",
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("::add-mask::", () => {
  test("the masked value goes", () => onlySecretGoes(`::add-mask::${S}\n`));
  test("a masked value in a step's echo goes", () => onlySecretGoes(`echo "::add-mask::${S}"\n`));
  for (const input of ["::add-mask::$TOKEN\n", 'echo "::add-mask::${{ steps.x.outputs.token }}"\n']) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("secret stores set from the command line", () => {
  for (const [input, secret] of [
    [`gh secret set DEPLOY_TOKEN --body ${S}\n`, S],
    [`gh secret set DEPLOY_TOKEN -b "${S}" --repo me/app\n`, S],
    [`aws ssm put-parameter --name /app/db --value ${S} --type SecureString\n`, S],
    [`aws secretsmanager create-secret --name prod/db --secret-string '${S}'\n`, S],
    [`aws secretsmanager put-secret-value --secret-id prod/db --secret-string=${S}\n`, S],
    [`az keyvault secret set --vault-name v --name db --value "${S}"\n`, S],
    [`gcloud secrets versions add db-password --data-file=- <<< ${S}\n`, S],
    [`gcloud secrets create db-password --data-file=- <<< '${S}'\n`, S],
    [`vault kv put secret/db password=${W}\n`, W],
    [`vault kv put secret/db username=app password=${W} ttl=1h\n`, W],
    [`vault write auth/userpass/users/app password=${W} policies=app\n`, W],
    [`vault login -method=userpass username=app password=${W}\n`, W],
    [`vault login -method=ldap username=app password=${W} -no-print\n`, W],
    [`op item create --category=login --title db username=app password=${W}\n`, W],
    [`curl -d "password=${W}" https://example.com/login\n`, W],
    [`curl --data-urlencode 'password=${W}' https://example.com/login\n`, W],
    [`echo "${S}" > ~/.vault-token\n`, S],
    [`printf '%s' ${S} > /run/secrets/db_password\n`, S],
    [`echo ${S} >> api-key.txt && chmod 600 api-key.txt\n`, S],
  ] as const) {
    test(input.trim(), () => onlySecretGoes(input, secret));
  }
  for (const input of [
    "gh secret list\n",
    "gh secret set DEPLOY_TOKEN < token.txt\n",
    'gh secret set DEPLOY_TOKEN --body "$DEPLOY_TOKEN"\n',
    "aws ssm put-parameter --name /app/replicas --value 10 --type String\n",
    "aws ssm get-parameter --name /app/db --with-decryption\n",
    "vault kv get secret/db\n",
    "vault login -method=userpass username=app\n",
    'curl -d "user=admin" https://example.com/login\n',
    'curl -d "password=$PASSWORD" https://example.com/login\n',
    'echo "done" > status.txt\n',
    "echo $TOKEN > ~/.vault-token\n",
    "echo ssh-ed25519 > id_ed25519.pub\n",
    'echo "building the token parser" > tokens.md\n',
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("more commands that take a password as an argument", () => {
  for (const [input, secret] of [
    [`keytool -genkeypair -alias app -storepass ${W} -keystore ks.jks\n`, W],
    [`jarsigner -keystore ks.jks -storepass ${S} app.jar app\n`, S],
    [`keytool -importkeystore -srckeystore a.p12 -srcstorepass ${S} -destkeystore b.jks\n`, S],
    [`mongo -u admin -p ${W} --authenticationDatabase admin\n`, W],
    [`mongosh "mongodb://localhost" -u admin -p ${S}\n`, S],
    [`cf login -a https://api.example.com -u me -p ${W}\n`, W],
    [`oc login https://api.example.com:6443 -u me -p ${W}\n`, W],
    [`lftp -u deploy,${W} sftp://files.example.com\n`, W],
    [`smbpasswd -s -a app <<< "${W}"\n`, W],
    [`vncpasswd -f <<< ${S} > ~/.vnc/passwd\n`, S],
    [`ansible-vault encrypt_string '${W}' --name db_password\n`, W],
    [`ansible-vault encrypt_string --vault-id prod@vault.txt "${S}" --name api_token\n`, S],
  ] as const) {
    test(input.trim(), () => onlySecretGoes(input, secret));
  }
  for (const input of [
    "keytool -list -storepass:env KS_PASS -keystore ks.jks\n", // names a variable
    "keytool -list -keystore ks.jks\n",
    "mongodump -p 27017\n",
    "mongosh --port 27017\n",
    "oc login -u me https://api.example.com:6443\n",
    "lftp -u anonymous files.example.com\n",
    "ansible-vault encrypt_string --vault-id dev@prompt --stdin-name db_password\n",
    "ansible-vault encrypt_string --ask-vault-pass --stdin-name db_password\n", // a flag after a flag is no value
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("printf writing a settings file: the argument a named %s takes", () => {
  for (const [input, secret] of [
    [`printf 'DB_PASSWORD=%s\\n' '${W}' >> .env\n`, W],
    [`printf "API_TOKEN=%s\\n" "${S}" >> .env\n`, S],
    [`printf 'user=%s\\npassword=%s\\n' bob ${W} > creds.ini\n`, W],
    [`printf '%d items, token=%s\\n' 3 ${S} > out\n`, S],
    [`printf '{"password": "%s"}' '${W}' > body.json\n`, W],
    [`printf 'pass: %5s\\n' ${S}\n`, S],
  ] as const) {
    test(input.trim(), () => onlySecretGoes(input, secret));
  }
  for (const input of [
    `printf 'DB_PASSWORD=%s\\n' "$DB_PASSWORD" >> .env\n`, // a reference
    "printf 'Hello %s, your name=%s\\n' world alice\n",
    `printf 'token=%d\\n' 42\n`,
    `printf '%s\\n' ${W}\n`, // nothing names it
    `printf 'password=%%s %s\\n' ${W}\n`, // %% is a literal percent: the %s is not the password's
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("an expect script's answer to a password prompt", () => {
  test("the send after expect Password: goes, the others stay", () => {
    const script = `spawn ssh admin@10.0.0.5\nexpect "login:"\nsend "admin\\r"\nexpect "Password:"\nsend "${W}\\r"\nexpect "$ "\nsend "ls -la\\r"\n`;
    onlySecretGoes(script, W);
  });
  for (const input of [
    `expect -re "(P|p)assword:" { send -- "${S}\\r" }\n`,
    `expect "Enter passphrase for key"\nsend {${W}\\r}\n`,
    `expect "Verification code:"\nexp_send "${S}\\n"\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input, input.includes(S) ? S : W));
  }
  for (const input of [
    `expect "Password:"\nsend "$env(DB_PASS)\\r"\n`, // a reference
    `expect "Password:"\nsend "${W}\\r"\nsend "exit\\r"\n`.replace(W, "$pw"), // one answer per prompt
    "Please send the report to me by Friday.\n",
    `expect "Name:"\nsend "${W}\\r"\n`,
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("database tools' own password shapes", () => {
  for (const input of [
    `mysqladmin -u root password '${W}'\n`,
    `mysqladmin -u root -p password "${W}"\n`,
    `sqlplus scott/${W}@orcl\n`,
    `sqlplus -s system/${W}@//db.acme.io:1521/XE @script.sql\n`,
    `impdp system/${W}@pdb directory=dump\n`,
    `expdp userid=scott/${W}@db schemas=hr\n`,
    `rman target sys/${W}@prod\n`,
    `psql "host=db user=app password=${W} dbname=x"\n`,
    `psql "password=${W} host=db dbname=x"\n`,
    `pg_dump 'host=db.acme.io port=5432 user=app password=${W}' > dump.sql\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input, W));
  }
  for (const input of [
    "sqlplus / as sysdba\n",
    "sqlplus user/$PW@db\n",
    "mysqladmin -u root password $NEWPW\n",
    "mysqladmin -u root -p status\n",
    `psql "host=db dbname=x"\n`,
    "conn = connect(password=userPassword, host=h)\n", // code: no two conninfo pairs
    "options = dict(password=userPassword)\n",
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("a flag's argument quoted as a shell needs it for symbols and spaces", () => {
  for (const [input, secret] of [
    ["mysql -uroot -p'Tr0ub4dor&3' -e 'select 1'\n", "Tr0ub4dor&3"],
    ['mysqldump -u root -p"xK9#mP2$vL8q" db > db.sql\n', "xK9#mP2$vL8q"],
    [`mysql -u root -p'${W}' app\n`, W],
    ["docker login -u bob -p 'P@ssw0rd!2024' registry.example.com\n", "P@ssw0rd!2024"],
    ['redis-cli -a "Tr0ub4dor&3" ping\n', "Tr0ub4dor&3"],
    ["sshpass -p 'correct horse battery staple' ssh deploy@host\n", "correct horse battery staple"],
    ["ldapsearch -x -D cn=admin -w 'Tr0ub4dor&3' -b dc=acme\n", "Tr0ub4dor&3"],
    ["zip -P 'correct horse battery staple' out.zip f\n", "correct horse battery staple"],
    ["az sql server create -n db -g rg -u admin -p 'Tr0ub4dor&3' -l westeurope\n", "Tr0ub4dor&3"],
    ["az postgres flexible-server create --name db -u admin -p Tr0ub4dor&3 --tier Burstable\n", "Tr0ub4dor&3"],
    [`rclone config create backup sftp host files.acme.io user bob pass ${W}\n`, W],
    ["rclone config update backup pass 'correct horse battery staple'\n", "correct horse battery staple"],
    [`rclone config create s3 s3 provider AWS access_key_id AKIAIOSFODNN7EXAMPLE secret_access_key ${W}\n`, W],
    [`rclone config create gd drive client_id 1234.apps.googleusercontent.com client_secret ${W} scope drive\n`, W],
  ] as const) {
    test(input.trim(), () => onlySecretGoes(input, secret));
  }
  for (const input of ["az sql db create -n db -s srv -p 8080\n", "rclone config create backup sftp host h user bob key_file ~/.ssh/id\n", "rclone config show\n", 'mysql -u root -p"$MYSQL_PWD" app\n', "mysql -u root -p'' app\n", "docker login -u bob -p \"$REGISTRY_PASSWORD\" ghcr.io\n", "sshpass -f ~/.pw ssh host\n"]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("code with conninfo's keys is no connection string", () => {
  for (const input of [
    "    def __init__(self, host, port=NNTP_PORT, user=None, password=None,\n                 readermode=None, usenetrc=False):\n",
    "client = Client(host=h, user=u, password=pw)\n",
    "connect(host='db', user='app', password=secret_value)\n",
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("a tool's config setter, a keychain entry, a password hashed on the command line", () => {
  for (const input of [
    `aws configure set aws_secret_access_key ${W}\n`,
    `aws configure set aws_secret_access_key ${W} --profile prod\n`,
    `npm config set //registry.npmjs.org/:_authToken ${W}\n`,
    `yarn config set npmAuthToken "${W}"\n`,
    `pnpm config set --location=global _authToken ${W}\n`,
    `git config --global user.password ${W}\n`,
    `security add-generic-password -a me -s svc -w ${W}\n`,
    `security add-internet-password -a me -s host.acme.io -w '${W}' -U\n`,
    `openssl passwd -6 '${W}'\n`,
    `openssl passwd -6 -salt abcdefgh ${W}\n`,
    `mkpasswd -m sha-512 ${W}\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input, W));
  }
  for (const input of [
    "git config --global user.name Bob\n",
    "git config --get user.password\n",
    "git config --file .gitmodules submodule.x.url u\n",
    "aws configure set region us-east-1 --profile x\n",
    "npm config set registry https://r.acme.io/\n",
    "openssl passwd -stdin < p.txt\n",
    "openssl passwd -6 -salt abc $PW\n",
    "security add-generic-password -a me -s svc -w\n", // asks for it
    "mkpasswd -m sha-512\n",
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("a password typed at a prompt that echoed it", () => {
  for (const input of [
    `$ mysql -u root -p\nEnter password: ${W}\n`,
    `[sudo] password for bob: ${W}\n`,
    `Password for 'https://bob@github.com': ${W}\n`,
    `bob@db.acme.io's password: ${W}\n`,
    `Enter passphrase for key '/home/bob/.ssh/id_ed25519': ${W}\n`,
    `Enter PEM pass phrase: ${W}\n`,
    `New password: ${W}\nRetype new password: ${W}\n`,
    `Vault password: ${W}\n`,
    `Vault password (prod): ${W}\n`,
  ]) {
    test(input.trim(), () => {
      const out = r.text(input);
      expect(leak(out, W)).toBeUndefined();
      expect(out.replaceAll(TAG_G, W)).toBe(input);
    });
  }
  for (const input of [
    "Enter password:\n",
    "[sudo] password for bob: \n",
    "Enter password: ********\n",
    "Reset the password for bob: it expired\n",
    "New password: (none)\n",
    "Enter password: $DB_PASS\n",
    "Enter password: password\n", // a placeholder
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("a ;-separated connection string's Password=", () => {
  for (const input of [
    `jdbc:sqlserver://db.acme.io:1433;databaseName=app;user=sa;password=${W};encrypt=true\n`,
    `Server=tcp:db.acme.io,1433;Database=app;User ID=sa;Password=${W};Encrypt=True;\n`,
    `"ConnectionStrings": { "Default": "Data Source=db;Initial Catalog=app;User Id=sa;Password=${W}" }\n`,
    `Host=db;Username=app;Password=${W};Database=app\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input, W));
  }
  for (const input of [
    "  password=newPassword; user=bob;\n", // one pair besides it: a statement
    "if (ok) password=newPassword;\n",
    'const cs = "Server=db;Database=app;User Id=sa;Password=" + pw + ";";\n',
    "Server=db;Database=app;Password=;\n",
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("an Ansible inventory's connection passwords", () => {
  for (const input of [
    `web1 ansible_host=10.0.0.5 ansible_user=root ansible_password=${W}\n`,
    `db1 ansible_ssh_pass="${W}" ansible_port=2222\n`,
    `ansible-playbook site.yml -e ansible_become_password=${W}\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input, W));
  }
  test("stays: a vault variable in its place", () => {
    const input = 'web2 ansible_password="{{ vault_web2_password }}"\n';
    expect(r.text(input)).toBe(input);
  });
});

test("an expect answer that is a word the send command holds goes, and the command stays", () => {
  const input = 'expect "Password:"\nsend "send\\r"\n';
  expect(r.text(input)).toMatch(/^expect "Password:"\nsend "\[REDACTED:password:[0-9a-f]{4}\]\\r"\n$/);
});

describe("SQL and mongosh that create or change a database user", () => {
  for (const input of [
    `CREATE USER app WITH PASSWORD '${W}';\n`,
    `create role app login encrypted password '${W}' valid until 'infinity';\n`,
    `ALTER ROLE app WITH PASSWORD E'${W}';\n`,
    `psql -c "ALTER USER app PASSWORD '${W}'"\n`,
    `CREATE USER 'app'@'%' IDENTIFIED BY '${W}';\n`,
    `ALTER USER app IDENTIFIED WITH mysql_native_password BY '${W}';\n`,
    `CREATE USER app IDENTIFIED BY ${W};\n`,
    `CREATE USER app IDENTIFIED BY "${W}" DEFAULT TABLESPACE users;\n`,
    `SET PASSWORD FOR 'app'@'localhost' = PASSWORD('${W}');\n`,
    `SET PASSWORD = '${W}';\n`,
    `EXEC sp_addlogin 'app', '${W}';\n`,
    `db.createUser({ user: "app", pwd: "${W}", roles: ["readWrite"] })\n`,
    `db.updateUser("app", { pwd: '${W}' })\n`,
    `db.changeUserPassword("app", "${W}")\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input, W));
  }
  // Bind variables, psql variables, placeholders, hashes by VALUES, prompts, and a word PASSWORD in a shell string.
  for (const input of [
    "ALTER USER app IDENTIFIED BY :new_password;\n",
    "CREATE USER app WITH PASSWORD :'pw';\n",
    "CREATE USER app WITH PASSWORD '<password>';\n",
    "CREATE USER app WITH PASSWORD 'password';\n",
    "CREATE USER app IDENTIFIED BY VALUES 'S:0A1B2C';\n",
    "CREATE USER app IDENTIFIED EXTERNALLY;\n",
    "db.createUser({ user: 'app', pwd: passwordPrompt(), roles: [] })\n",
    "read -p 'Enter password ' pw; echo 'done'\n",
    "SELECT check_password('x') FROM dual;\n",
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("a seed's INSERT: the literal at a secret-named column's place in each tuple", () => {
  test("one tuple", () => onlySecretGoes(`INSERT INTO users (email, password) VALUES ('a@b.c', '${W}');\n`, W));
  test("every tuple of a multi-row INSERT", () => {
    const input = `INSERT INTO users (email, password) VALUES\n  ('a@b.c', '${W}'),\n  ('d@e.f', 'Tr0ub4dor&3x');\n`;
    const out = r.text(input);
    expect(leak(out, W)).toBeUndefined();
    expect(leak(out, "Tr0ub4dor&3x")).toBeUndefined();
    expect(out.replace(TAG, W).replace(TAG, "Tr0ub4dor&3x")).toBe(input);
  });
  test("quoted columns, other values around, a hashing call's plaintext", () =>
    onlySecretGoes(`INSERT INTO "users" ("id", "email", "password", "created_at") VALUES (1, 'a@b.c', crypt('${W}', gen_salt('bf')), NOW());\n`, W));
  test("an API key column", () => onlySecretGoes(`INSERT INTO api_keys (name, api_key) VALUES ('ci', '${S}');\n`, S));
  for (const input of [
    "INSERT INTO users (email, password) VALUES ($1, $2)\n",
    "INSERT INTO users (email, password) VALUES ('a@b.c', 'password');\n",
    `INSERT INTO users (name, note) VALUES ('bob', '${W}');\n`,
    `INSERT INTO users (email, password) VALUES ('${W}', ?);\n`,
    "INSERT INTO users (id, email, password_hash, created_at) VALUES (1, 'a@b.c', '$2b$12$vOOMCJsx23nb1rG51jCP8mnHsZRDbOoHxcK3RwR1Ksn45oRvZWG6t', now());\n",
    "INSERT INTO auth_user (username, password) VALUES ('admin', 'pbkdf2_sha256$600000$Kx9mQ2vL7pR4$Zq7wintersunAbCdEf0123456789=');\n",
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("terraform output -json: a sensitive output's value, whatever its name", () => {
  const json = `{\n  "db_password": {\n    "sensitive": true,\n    "type": "string",\n    "value": "${W}"\n  },\n  "api_key": {\n    "sensitive": true,\n    "type": "string",\n    "value": "${S}"\n  },\n  "endpoint": {\n    "sensitive": false,\n    "type": "string",\n    "value": "db.example.com"\n  }\n}\n`;
  test("each sensitive value goes; the rest stays", () => {
    const out = r.text(json);
    expect(leak(out, W)).toBeUndefined();
    expect(leak(out, S)).toBeUndefined();
    expect(out.replace(TAG_G, "X")).toBe(json.replace(W, "X").replace(S, "X"));
  });
  test("one line, as -json prints through jq -c", () => onlySecretGoes(`{"out":{"sensitive":true,"type":"string","value":"${W}"}}\n`, W));
  test("stays: a value not marked sensitive", () => {
    const text = `{"name": {"sensitive": false, "type": "string", "value": "${W}"}}\n`;
    expect(r.text(text)).toBe(text);
  });
});

describe("a name and its value as two arguments: the name says the value is a secret", () => {
  for (const input of [
    `ENV DB_PASSWORD ${W}\n`,
    `FROM node:22\nENV DB_PASSWORD "${W}"\nRUN npm ci\n`,
    `setx DB_PASSWORD ${W}\n`,
    `setx DB_PASSWORD "${W}" /M\n`.replace(" /M", ""),
    `netlify env:set DB_PASSWORD ${W}\n`,
    `doppler secrets set DB_PASSWORD ${W}\n`,
    `dotnet user-secrets set "Db:Password" "${W}"\n`,
    `gh variable set DB_PASSWORD --body ${W}\n`,
    `wp config set DB_PASSWORD '${W}'\n`,
    `Set-Variable -Name DbPassword -Value "${W}"\n`,
    `Set-Item -Path Env:DB_PASSWORD -Value "${W}"\n`,
    `New-Item -Path Env:API_TOKEN -Value ${W}\n`,
    `New-Variable -Name ApiToken -Value '${W}'\n`,
    `Set-Variable DbPassword ${W}\n`,
    `<VirtualHost *:80>\n    SetEnv DB_PASSWORD ${W}\n</VirtualHost>\n`,
    // Postfix's sasl_passwd: the relay, its port, then user:password.
    `[smtp.gmail.com]:587 me@gmail.com:${W}\n`,
  ]) {
    test(input.trim().split("\n").join(" | "), () => onlySecretGoes(input, W));
  }
  for (const input of [
    "ENV NODE_ENV production\n",
    "ENV DB_PASSWORD $DB_PASSWORD\n",
    'setx PATH "%PATH%;C:\\bin"\n',
    "doppler secrets set LOG_LEVEL debug\n",
    "gh variable set APP_ENV --body production\n",
    "wp config set WP_DEBUG true --raw\n",
    "Set-Variable -Name Count -Value 5\n",
    "Set-Variable -Name DbPassword -Value $pw\n",
    'Set-Item -Path Env:PATH -Value "C:\\tools\\bin"\nSet-Item -Path Env:DB_PASSWORD -Value $pw\nNew-Item -ItemType Directory -Path C:\\tmp\n',
    "SetEnv APP_ENV production\n",
    "SetEnv DB_PASSWORD ${DB_PASSWORD}\n",
    "UnsetEnv DB_PASSWORD\n",
    "[smtp.gmail.com]:587 me@gmail.com:password\n",
    `the env DB_PASSWORD ${W}\n`,
    "#!/usr/bin/env node\n",
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("calls whose signature says which argument is a password, given as a literal", () => {
  for (const input of [
    `requests.get(url, auth=("alice", "${W}"))\n`,
    `HTTPBasicAuth("alice", "${W}")\n`,
    `aiohttp.BasicAuth('alice', '${W}')\n`,
    `smtp.login("alice@example.com", "${W}")\n`,
    `ftp.login(user, '${W}')\n`,
    `user.set_password("${W}")\n`,
    `User.objects.create_superuser("admin", "admin@example.com", "${W}")\n`,
    `User.objects.create_user(username, email, "${W}")\n`,
    `Connection c = DriverManager.getConnection(url, "app", "${W}");\n`,
    `$pdo = new PDO($dsn, 'app', '${W}');\n`,
    `$db = new mysqli("localhost", "app", "${W}", "appdb");\n`,
    `$link = mysqli_connect('localhost', 'app', '${W}');\n`,
    // A literal hashed as a password: its plaintext is the argument.
    `User::create(['password' => bcrypt('${W}')]);\n`,
    `$user->password = Hash::make('${W}');\n`,
    `user.password = make_password("${W}")\n`,
    `$hash = password_hash('${W}', PASSWORD_DEFAULT);\n`,
    `pw = generate_password_hash('${W}')\n`,
    `const h = await bcrypt.hash('${W}', 10);\n`,
    `const h = bcrypt.hashSync("${W}", 8);\n`,
    `hashed = bcrypt.hashpw(b'${W}', bcrypt.gensalt())\n`,
    `const h = await argon2.hash('${W}');\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input, W));
  }
  for (const input of [
    "ftp.login(user, password)\n",
    'auth=("alice", os.environ["PW"])\n',
    'HTTPBasicAuth(user, "password")\n',
    'page.login("Sign in", "Welcome back")\n',
    'recreate_user(a, b, "CorrectHorseBattery")\n',
    "Connection c = DriverManager.getConnection(url, user, password);\n",
    "$pdo = new PDO($dsn, $user, $pass);\n",
    '$pdo = new PDO("sqlite:app.db", null, null);\n',
    "$hash = password_hash($password, PASSWORD_DEFAULT);\n",
    "const h = await bcrypt.hash(password, 10);\n",
    "Hash::make($request->password)\n",
    "const bcrypt = require('bcryptjs');\n",
    "bcrypt('secret')\n", // a docs example's word, under the six characters a code literal needs
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("the default of a secret-named environment read", () => {
  for (const input of [
    `password = os.getenv("DB_PASSWORD", "${W}")\n`,
    `SECRET_KEY = os.environ.get('SECRET_KEY', '${W}')\n`,
    `SECRET_KEY = os.environ.get("SECRET_KEY") or "${W}"\n`,
    `const pw = process.env.DB_PASSWORD || "${W}";\n`,
    `const pw = process.env["DB_PASSWORD"] ?? '${W}';\n`,
    `const key = import.meta.env.VITE_API_KEY || \`${W}\`;\n`,
    `const pw = Deno.env.get("DB_PASSWORD") ?? "${W}";\n`,
    `db_password = ENV.fetch("DB_PASSWORD") { "${W}" }\n`,
    `db_password = ENV.fetch("DB_PASSWORD", "${W}")\n`,
    `token = ENV["API_TOKEN"] || "${W}"\n`,
    `    'password' => env('DB_PASSWORD', '${W}'),\n`,
    `let pw = env::var("DB_PASSWORD").unwrap_or_else(|_| "${W}".into());\n`,
    `var pw = Environment.GetEnvironmentVariable("DB_PASSWORD") ?? "${W}";\n`,
    `val pw = System.getenv("DB_PASSWORD") ?: "${W}"\n`,
    `String pw = System.getenv().getOrDefault("DB_PASSWORD", "${W}");\n`,
    `SECRET_KEY = config("SECRET_KEY", default="${W}")\n`,
    `pw := getEnv("DB_PASSWORD", "${W}")\n`,
    `config :app, password: System.get_env("DB_PASSWORD", "${W}")\n`,
    `ansible_password: "{{ db_password | default('${W}') }}"\n`,
    `password: {{ lookup('env', 'DB_PASSWORD') | default('${W}') }}\n`,
    `password: {{ .Values.db.password | default "${W}" | quote }}\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input, W));
  }
  for (const input of [
    'port = os.getenv("PORT", "5432")\n',
    'host = process.env.DB_HOST || "localhost"\n',
    'pw = os.getenv("DB_PASSWORD", "")\n',
    'pw = os.getenv("DB_PASSWORD", "changeme")\n',
    "pw = process.env.DB_PASSWORD || defaultPassword\n",
    'url = process.env.TOKEN_URL || "https://auth.example.com/token"\n',
    'header = process.env.API_KEY_HEADER || "X-Api-Key"\n',
    'mode = process.env.AUTH_MODE || "basic"\n',
    'k = os.environ.get("GITHUB_TOKEN", os.environ.get("GH_TOKEN"))\n',
    "{{ title | default('Home') }}\n",
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("Go's MySQL DSN: the password between the user and @tcp(", () => {
  for (const input of [
    `db, err := sql.Open("mysql", "app:${W}@tcp(db:3306)/app?parseTime=true")\n`,
    `DSN=root:${W}@unix(/var/run/mysqld/mysqld.sock)/app\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input, W));
  }
  for (const input of [
    'dsn := fmt.Sprintf("%s:%s@tcp(%s)/%s", user, pass, host, name)\n',
    'dsn := "${DB_USER}:${DB_PASS}@tcp(db)/app"\n',
    "root:@tcp(127.0.0.1:3306)/test\n",
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("servers' own config lines: a directive, a space, the password", () => {
  for (const input of [
    `requirepass ${W}\n`,
    `masterauth "${W}"\n`,
    `127.0.0.1:6379> CONFIG SET requirepass ${W}\n`,
    `rootpw ${W}\n`,
    `    auth_pass ${W}\n`,
    `    stats auth admin:${W}\n`,
    `    user admin insecure-password ${W}\n`,
    `poll mail.example.com protocol imap user "bob" password "${W}"\n`,
    // An .msmtprc account: `user`, a few more directives, `password`.
    `account default\nhost smtp.gmail.com\nport 587\nauth on\nuser me@gmail.com\npassword ${W}\nfrom me@gmail.com\n`,
    `account work\n  user me\n  tls on\n  password "${W}"\n`,
    // mysqld's first start logs the generated root password.
    `2024-05-01T10:00:00.000000Z 6 [Note] [MY-010454] [Server] A temporary password is generated for root@localhost: ${W}\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input, W));
  }
  for (const input of [
    // msmtp's passwordeval names a command that prints the password; prose and logs are no directives.
    'account work\nuser me\npasswordeval "gpg -q -d ~/.msmtp-password.gpg"\n',
    "password_command \"pass show mail/work\"\n",
    "user admin logged in\nPassword reset required\n",
    "user me\npassword ${SMTP_PASSWORD}\n",
    "# requirepass foobared\n",
    "the requirepass setting is optional\n",
    "stats auth admin:$STATS_PW\n",
    "masterauth <master-password>\n",
    "user admin password $5$hash\n",
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("a settings object's setter: key then value", () => {
  for (const input of [
    `System.setProperty("db.password", "${W}");\n`,
    `props.put("password", "${W}");\n`,
    `props.setProperty("mail.smtp.password", "${W}");\n`,
    `config.set("database", "password", "${W}")\n`,
    `ini_set('mysql.default_password', '${W}');\n`,
    // A builder's or a bean's password as a literal, and FactoryBot's block.
    `new PostgreSQLContainer("postgres:16").withPassword("${W}")\n`,
    `dataSource.setPassword("${W}");\n`,
    `User.builder().name("bob").password("${W}").build()\n`,
    `factory :user do\n  email { "a@b.c" }\n  password { "${W}" }\nend\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input, W));
  }
  for (const input of [
    "readUserInfo.password('New password: ')\nreadUserInfo.password('       Again:     ')\n",
    'yup.string().password("Must be strong")\nsetPassword(getPw())\nform.password("")\n',
    'props.put("password", password);\n',
    'props.setProperty("mail.smtp.user", "alice");\n',
    'headers.set("Accept", "application/json");\n',
    'map.put("token", "Bearer");\n',
    'config.set("database", "host", "db.internal")\n',
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("commands that take the secret by position or by a flag that says so", () => {
  for (const input of [
    `pulumi config set --secret dbPassword ${W}\n`,
    `pulumi config set dbPassword ${W} --secret\n`,
    `pulumi config set --stack dev --secret apiKey '${W}'\n`,
    `grafana-cli admin reset-admin-password ${W}\n`,
    `grafana cli --homepath /usr/share/grafana admin reset-admin-password ${W}\n`,
    `echo -n 'bob:${W}' | base64\n`,
    `curl -H "Authorization: Basic $(echo -n bob:${W} | base64)" https://api.example.com\n`,
    `printf '%s' "bob:${W}" | openssl base64\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input, W));
  }
  for (const input of [
    "pulumi config set aws:region us-east-1\n",
    "pulumi config set --secret dbPassword\n",
    "grafana-cli plugins install grafana-clock-panel\n",
    'echo -n "$USER:$PASS" | base64\n',
    "echo -n 'hello world' | base64\n",
    "echo 'a:b:c' | cut -d: -f2\n",
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});

describe("Redis ACLs: each `>password` rule", () => {
  for (const input of [
    `redis-cli ACL SETUSER app on '>${S}' '~*' '+@all'\n`,
    `127.0.0.1:6379> acl setuser bob on >${W} ~cached:* +get\n`,
    `user worker on >${S} ~jobs:* +@list\n`,
  ]) {
    test(input.trim(), () => onlySecretGoes(input, input.includes(W) ? W : S));
  }
  test("two passwords in one command both go", () => {
    const out = r.text(`ACL SETUSER bob on >${S} >${W} ~* +@all\n`);
    expect(leak(out, S)).toBeUndefined();
    expect(leak(out, W)).toBeUndefined();
  });
  for (const input of [
    "ACL SETUSER carol on #9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 <OldPassw0rd ~* +@all\n",
    "user default on nopass ~* &* +@all\n",
    "ACL SETUSER app on >$REDIS_PASSWORD ~* +@all\n",
    "echo hello > out.txt && cat out.txt >> log.txt\n",
  ]) {
    test(`stays: ${input.trim()}`, () => expect(r.text(input)).toBe(input));
  }
});
