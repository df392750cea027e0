package shell

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMaskSecretsShapes(t *testing.T) {
	cases := []struct {
		name, in, leak, want string
	}{
		{"pgp private key block", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGpgpBody\n=abcd\n-----END PGP PRIVATE KEY BLOCK-----\nafter",
			"pgpBody", "[secret masked]\nafter"},
		{"aws secret access key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "bPxRfiCY",
			"aws_secret_access_key = [secret masked]"},
		{"aws secret access key, env", "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n", "bPxRfiCY",
			"AWS_SECRET_ACCESS_KEY=[secret masked]\n"},
		{"aws secret access key, yaml", `aws_secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"`, "bPxRfiCY",
			`aws_secret_access_key: "[secret masked]"`},
		{"opaque bearer token", "Authorization: Bearer opaque-gateway-token-abcdef", "gateway-token",
			"Authorization: Bearer [secret masked]"},
		{"bearer token in a header list", "authorization=Bearer abc.DEF_123~xyz+/=-tail", "DEF_123",
			"authorization=Bearer [secret masked]"},
		{"bearer token with a digit, no header", "curl -H 'X: bearer 0123456789abcdefXYZ'", "0123456789abcdef",
			"bearer [secret masked]'"},
		{"url with @ in its password", "REDIS=https://bob:p@ssW0rdTail@cache.example.com/0", "ssW0rdTail",
			"https://bob:[secret masked]@cache.example.com/0"},
		{"url with @s in its password, two urls", "a https://u:x@y@z@h1.example/ b http://v:pw12@h2.example c", "pw12",
			"a https://u:[secret masked]@h1.example/ b http://v:[secret masked]@h2.example c"},
		{"password, quoted", `password = "CorrectHorseBatteryStaple42"`, "CorrectHorse", `password = "[secret masked]"`},
		{"password, yaml", "db:\n  password: hunter2hunter2\n  user: app", "hunter2", "  password: [secret masked]\n  user: app"},
		{"passwd, single quotes", `passwd='s3cr3t!!'`, "s3cr3t", `passwd='[secret masked]'`},
		{"json secret", `{"client_secret": "abcdef123456", "id": 1}`, "abcdef123456", `{"client_secret": "[secret masked]", "id": 1}`},
		{"api_key", "api_key=AbCdEf123456&user=me", "AbCdEf123456", "api_key=[secret masked]&user=me"},
		{"apikey", "APIKEY: 0a1b2c3d4e5f", "0a1b2c3d4e5f", "APIKEY: [secret masked]"},
		{"api-key", "x-api-key: 0a1b2c3d4e5f", "0a1b2c3d4e5f", "x-api-key: [secret masked]"},
		{"token", "token: abcdef0123", "abcdef0123", "token: [secret masked]"},
		{"env password", "DB_PASSWORD=hunter22", "hunter22", "DB_PASSWORD=[secret masked]"},
		{"password after a tab (a numbered line)", "    14\tpassword = \"CorrectHorse42\"\n", "CorrectHorse42",
			"14\tpassword = \"[secret masked]\"\n"},
		{"token at a line's start", "first\nghp_abcdefghijklmnopqrstuvwxyz0123\n\tsk-proj-abcdefghijklmnopqrstuvwx", "abcdefghijklmnop",
			"first\n[secret masked]\n\t[secret masked]"},
		{"token key holding a known token", "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123 done", "ghp_abc",
			"GITHUB_TOKEN=[secret masked] done"},
		// Issue 42's ninth: shapes a careful user expects masked.
		{"slack webhook", "notify https://hooks.slack.com/services/T0123ABCD/B0456EFGH/abcdefghijklmnopqrstuvwx now", "abcdefghijklmnop",
			"https://hooks.slack.com/services/[secret masked] now"},
		{"discord webhook", "https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdefghijklmnopqrstuv", "AbCdEfGhIjKl",
			"https://discord.com/api/webhooks/123456789012345678/[secret masked]"},
		{"a secret word inside a key", "SECRET_KEY_BASE=9f8e7d6c5b4a39281706f5e4d3c2b1a0", "9f8e7d6c", "SECRET_KEY_BASE=[secret masked]"},
		{"a password key with a suffix", "DB_PASSWORD_PROD: hunter2hunter2", "hunter2", "DB_PASSWORD_PROD: [secret masked]"},
		{"private key variable", "PRIVATE_KEY=0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318", "4c0883a6",
			"PRIVATE_KEY=[secret masked]"},
		{"vault token", "VAULT=hvs.CAESIJlWh7fDs2Nl9fPq1Gx7KxX0", "CAESIJlWh7", "VAULT=[secret masked]"},
		{"slack app token holding a bot token's prefix", "SLACK=xapp-1-AAAA-xoxb-BBBBBBBBBBBB", "AAAA", "SLACK=[secret masked]"},
		{"azure storage key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFy==;EndpointSuffix=core.windows.net",
			"Zm9vYmFyYmF6", "AccountKey=[secret masked];EndpointSuffix"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := MaskSecrets(c.in)
			if strings.Contains(got, c.leak) {
				t.Errorf("MaskSecrets(%q) = %q: %q leaks", c.in, got, c.leak)
			}
			if !strings.Contains(got, c.want) {
				t.Errorf("MaskSecrets(%q) = %q, want it to contain %q", c.in, got, c.want)
			}
			if again := MaskSecrets(got); again != got {
				t.Errorf("masking twice: %q, then %q", got, again)
			}
			// Telemetry masks messages encoded as JSON, a tool's result
			// in them as JSON in JSON: quotes escaped, once or more.
			for enc := jsonString(c.in); len(enc) < 4*len(c.in); enc = jsonString(enc) {
				if strings.Contains(MaskSecrets(enc), c.leak) {
					t.Errorf("MaskSecrets(%s) = %s: %q leaks", enc, MaskSecrets(enc), c.leak)
				}
			}
		})
	}
}

// Ordinary text that names passwords, tokens, keys and bearers is kept.
func TestMaskSecretsKeepsOrdinaryText(t *testing.T) {
	for _, plain := range []string{
		"the token count is 4096",
		"see the password policy: at least 12 characters",
		"the key is in the drawer",
		"max_tokens: 4096, prompt_tokens: 123456",
		"token_count = 123456",
		"TOKEN_LIMIT=1000000",
		"password_policy: strict-enough",
		"secret_name: prod-database",
		"token: 4096",
		"password = getpass()",
		"if password == \"\" {",
		"the bearer of bad news, bearer authentication",
		"Bearer tokens are described in RFC 6750",
		"a secret: keep",
		"nothing secret here, see https://example.com/a:b and git@github.com:o/r.git",
		"http://proxy.corp:3128/path?who=a@b",
		"aws_secret_access_key = short",
		"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----",
		"-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBF\n-----END PGP PUBLIC KEY BLOCK-----",
	} {
		if got := MaskSecrets(plain); got != plain {
			t.Errorf("MaskSecrets(%q) = %q", plain, got)
		}
		for enc := jsonString(plain); len(enc) < 4*len(plain); enc = jsonString(enc) {
			if MaskSecrets(enc) != enc {
				t.Errorf("MaskSecrets(%s) = %s", enc, MaskSecrets(enc))
			}
		}
	}
}

// jsonString is s encoded as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The shapes of credentials withhold an environment variable's value from
// commands; a key named like a secret inside an ordinary variable's value
// does not (the variable's own name decides).
func TestSecretValueShapes(t *testing.T) {
	secret := map[string]string{
		"pgp":    "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBG\n-----END PGP PRIVATE KEY BLOCK-----",
		"bearer": "Authorization: Bearer opaque-gateway-token-abcdef",
		"otel":   "authorization=Bearer 0123456789abcdef0123,x-tenant=a",
		"aws":    "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"url @":  "https://bob:p@ssW0rd@cache.example.com",
	}
	for name, v := range secret {
		if SecretValue(v) == "" {
			t.Errorf("%s: SecretValue(%q) = \"\"", name, v)
		}
	}
	for _, v := range []string{
		"-Dtoken=abcdef123456 -Xmx2g",
		"--password-file=/run/secrets/db",
		"password = CorrectHorseBatteryStaple42",
		"bearer authentication",
		"Bearer tokens are described in RFC 6750",
		"http://proxy.corp:3128",
	} {
		if why := SecretValue(v); why != "" {
			t.Errorf("SecretValue(%q) = %q, want \"\"", v, why)
		}
	}
}

// Text that holds none of a shape's literals is not searched with its
// expression: no text the expression matches may lack them.
func FuzzShapesHoldTheirLiterals(f *testing.F) {
	for _, seed := range []string{
		"GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123", "https://bob:p@ssW0rd@cache.example.com",
		"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "Authorization: BEARER opaque-gateway-token-abcdef",
		"accountKEY=Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFy==", "-----BEGIN RSA PRIVATE KEY-----\nabc",
		"12345678:AAbcdefghijklmnopqrstuvwxyz0123456789", `{"Api-Key": "0a1b2c3d4e5f"}`, "aws_\u017fecret_access_key=x",
		"\\tPassword=hunter22hunter", "xapp-1-abcdefghijkl", "sk_live_0123456789abcdef", "xapp-1-AAAA-xoxb-BBBBBBBBBBBB",
		"github_pat_abcdefghijklmnopqrstuvwxyz", "xoxb-0123456789-abcdef",
	} {
		f.Add(seed)
	}
	shapes := newSecretShapes()
	f.Fuzz(func(t *testing.T, text string) {
		lower := asciiLower(text)
		for _, s := range shapes {
			re, mask := s.compiled()
			if (re.MatchString(text) || mask.MatchString(text)) && !s.mayHold(text, lower) {
				t.Errorf("%s: %q matches %s but holds none of %q", s.what, text, s.src, s.lits)
			}
		}
	})
}

// An environment filtered at a session's first command, its shapes not yet
// compiled: a developer's 35 variables, two of them credentials.
func BenchmarkFilterAFreshEnvironment(b *testing.B) {
	env := []string{
		"SHELL=/bin/bash", "COLORTERM=truecolor", "HISTCONTROL=ignoredups:erasedups", "TERM_PROGRAM_VERSION=3.4",
		"HOSTNAME=devbox", "LANGUAGE=en_US:en", "PWD=/home/dev/src/project", "LOGNAME=dev", "XDG_SESSION_TYPE=tty",
		"MOTD_SHOWN=pam", "HOME=/home/dev", "LANG=en_US.UTF-8", "LS_COLORS=rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01:cd=40;33;01:or=40;31;01:mi=00:su=37;41:sg=30;43:ca=00:tw=30;42:ow=34;42:st=37;44:ex=01;32",
		"SSH_CONNECTION=10.0.0.2 52234 10.0.0.5 22", "GOPATH=/home/dev/go", "LESSCLOSE=/usr/bin/lesspipe %s %s",
		"XDG_SESSION_CLASS=user", "TERM=xterm-256color", "LESSOPEN=| /usr/bin/lesspipe %s", "USER=dev",
		"SHLVL=1", "XDG_SESSION_ID=4", "XDG_RUNTIME_DIR=/run/user/1000", "SSH_CLIENT=10.0.0.2 52234 22",
		"XDG_DATA_DIRS=/usr/local/share:/usr/share:/var/lib/snapd/desktop", "GOROOT=/usr/local/go",
		"PATH=/home/dev/.local/bin:/home/dev/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus", "SSH_TTY=/dev/pts/0", "EDITOR=vim",
		"NVM_DIR=/home/dev/.nvm", "DEPLOY_HOOK=https://hooks.slack.com/services/T0123ABCD/B0456EFGH/abcdefghijklmnopqrstuvwx",
		"CI_HELPER=ghp_abcdefghijklmnopqrstuvwxyz0123", "_=/usr/bin/agent", "OLDPWD=/home/dev",
	}
	for b.Loop() {
		shapes := newSecretShapes()
		n := 0
		for _, kv := range env {
			_, v, _ := strings.Cut(kv, "=")
			if secretValue(shapes, v) != "" {
				n++
			}
		}
		if n != 2 {
			b.Fatalf("%d credentials found, want 2", n)
		}
	}
}
