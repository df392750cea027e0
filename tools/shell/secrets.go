package shell

import (
	"regexp"
	"strings"
	"sync"
)

// secretShape is a shape of text that carries a credential. The part
// MaskSecrets replaces is the first named group that took part in a
// match ("s"), or the whole match when re names none.
type secretShape struct {
	what string
	re   *regexp.Regexp
	// mask, when set, is what MaskSecrets replaces instead of re's match
	// (a private key's whole block where re finds its BEGIN line).
	mask *regexp.Regexp
	// textOnly shapes are masked in text but are no reason to withhold an
	// environment variable's value from commands (see SecretValue).
	textOnly bool
	// ok, when set, tells a match of re that is a credential from one that
	// only looks like it; m are its submatch indexes in text.
	ok func(text string, m []int) bool
}

// token is the alphabet of an opaque token (RFC 6750's b64token); quote
// is a quote that may close a key or open a value, escaped (\", \\\") when
// the text is JSON that holds the text, or JSON that holds such JSON (a
// tool's result in a message, as telemetry captures it).
const (
	token = `[A-Za-z0-9._~+/=-]`
	quote = `(?:\\*["'])?`
)

// wordStart is where a word starts: at \b, or after the escape of a
// newline, a tab or a return when the text is JSON ("\tpassword = ...",
// "\nghp_...": the t and the n are letters, so \b is not there).
const wordStart = `(?:\\[nrt]|\b)`

// word is the shape of a token that starts a word: re, which is the
// secret (the escape before it is not).
func word(re string) *regexp.Regexp {
	return regexp.MustCompile(wordStart + `(?P<s>` + re + `)`)
}

// secretShapes are the shapes of values that carry credentials whatever
// their variable is called: URLs with a password, the prefixes of
// well-known tokens (GitHub, GitLab, OpenAI, Anthropic, Slack, AWS, Google,
// npm, PyPI, Hugging Face, Stripe, SendGrid, DigitalOcean, Shopify,
// Grafana), JWTs, bearer tokens, AWS secret access keys and private keys
// (PEM and PGP); and, in text only, the value given to a key named like a
// password, a secret, an API key or a token. The expressions are compiled
// on first use, not in the package's init (0.4 ms of every start, --help
// included).
var secretShapes = sync.OnceValue(func() []secretShape {
	return []secretShape{
		// The password runs to the last @ before the host: it may hold an @.
		{what: "is a URL with a password", re: regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:(?P<s>[^/\s"'<>]+)@`)},
		{what: "is a GitHub token", re: word(`(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`)},
		{what: "is a GitLab token", re: word(`gl(pat|dt|rt|ptt|oas|cbt|ft|imt|agent|soat)-[A-Za-z0-9_-]{16,}`)},
		{what: "is an API key (sk-)", re: word(`sk-[A-Za-z0-9_-]{20,}`)},
		{what: "is a Slack token", re: word(`xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,}`)},
		{what: "is an AWS access key", re: word(`(AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b`)},
		{what: "is an AWS secret access key", re: regexp.MustCompile(
			`(?i)aws_secret_access_key` + quote + `\s*[:=]\s*` + quote + `(?P<s>[A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)`)},
		{what: "is a Google API key", re: word(`AIza[0-9A-Za-z_-]{35}`)},
		{what: "is a Google OAuth token", re: word(`ya29\.[0-9A-Za-z_-]{20,}`)},
		{what: "is an npm token", re: word(`npm_[A-Za-z0-9]{36}`)},
		{what: "is a PyPI token", re: word(`pypi-AgE[A-Za-z0-9_-]{20,}`)},
		{what: "is a Hugging Face token", re: word(`hf_[A-Za-z0-9]{30,}`)},
		{what: "is a Stripe key", re: word(`[sr]k_(live|test)_[A-Za-z0-9]{16,}`)},
		{what: "is a SendGrid key", re: word(`SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`)},
		{what: "is a DigitalOcean token", re: word(`do[opr]_v1_[a-f0-9]{64}`)},
		{what: "is a Shopify token", re: word(`shp(at|ca|pa|ss)_[a-fA-F0-9]{32}`)},
		{what: "is a Grafana token", re: word(`glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`)},
		{what: "is a JWT", re: word(`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
		// More of gitleaks' rules (github.com/gitleaks/gitleaks, config/gitleaks.toml):
		// tokens whose prefix names them, and webhook URLs whose path is the key.
		{what: "is a HashiCorp Vault token", re: word(`hv[sbr]\.[A-Za-z0-9_-]{24,}`)},
		{what: "is a Databricks token", re: word(`dapi[a-f0-9]{32}(-[0-9])?`)},
		{what: "is a Linear API key", re: word(`lin_api_[A-Za-z0-9]{40}`)},
		{what: "is a Postman API key", re: word(`PMAK-[a-f0-9]{24}-[a-f0-9]{34}`)},
		{what: "is a Doppler token", re: word(`dp\.(pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}`)},
		{what: "is a Pulumi token", re: word(`pul-[a-f0-9]{40}`)},
		{what: "is a Sentry token", re: word(`sntry[su]_[A-Za-z0-9_=+/-]{40,}`)},
		{what: "is a Figma token", re: word(`figd_[A-Za-z0-9_-]{40}`)},
		{what: "is a New Relic key", re: word(`NRAK-[A-Z0-9]{27}`)},
		{what: "is a Square token", re: word(`(sq0atp|sq0csp|EAAA)[A-Za-z0-9_-]{22,60}`)},
		{what: "is a Twilio key", re: word(`SK[0-9a-fA-F]{32}\b`)},
		{what: "is a Mailgun key", re: word(`key-[0-9a-zA-Z]{32}\b`)},
		{what: "is a Telegram bot token", re: word(`[0-9]{8,10}:AA[A-Za-z0-9_-]{33}`)},
		{what: "is a webhook URL", re: regexp.MustCompile(
			`https://(?:hooks\.slack\.com/(?:services|workflows|triggers)/|(?:discord|discordapp)\.com/api/webhooks/[0-9]+/|[a-z0-9.-]*webhook\.office\.com/webhookb2/)(?P<s>[A-Za-z0-9/_@.-]{16,})`)},
		{what: "is an Azure storage key", re: regexp.MustCompile(`(?i)AccountKey=(?P<s>[A-Za-z0-9+/=]{40,})`)},
		// A bearer token: after "Authorization:" any 16 characters of a token;
		// elsewhere ("the bearer instrument-of-credit") only one with a digit.
		{what: "is a bearer token", re: regexp.MustCompile(
			`(?i)(authorization` + quote + `\s*[:=]\s*` + quote + `)?` + wordStart + `bearer\s+(?P<s>` + token + `{16,})`),
			ok: func(text string, m []int) bool {
				return m[2] >= 0 || strings.ContainsAny(text[m[4]:m[5]], "0123456789")
			}},
		{what: "holds a private key", re: regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY( BLOCK)?-----`),
			mask: regexp.MustCompile(`(?s)-----BEGIN [A-Z ]*PRIVATE KEY( BLOCK)?-----.*?(-----END [A-Z ]*PRIVATE KEY( BLOCK)?-----|\z)`)},
		// password = "...", "api_key": "...", DB_PASSWORD=..., token: ...,
		// SECRET_KEY_BASE=...: the value, quoted or not, of 6 characters or
		// more. The key's secret word may be followed only by _WORDs (an
		// identifier's; "token count", "password policy", "max_tokens: 4096"
		// are kept)
		// and an unquoted value that is called ("password = getpass()") is
		// code, not a credential.
		{what: "is a value given to a password, secret, API key or token", textOnly: true, re: regexp.MustCompile(
			`(?i)` + wordStart + `(?:[a-z0-9]+[_.-])*(?:password|passwd|secret|api[_-]?key|apikey|token|private[_-]?key|credentials?)(_[a-z0-9]+(?:_[a-z0-9]+)*)?` + quote + `\s*[:=]\s*` +
				`(?:\\*"(?P<s>[^"\\\n]{6,})\\*"|\\*'(?P<s>[^'\\\n]{6,})\\*'|(?P<s>[^\s"'\\&,;()\[\]{}<>]{6,}))`),
			ok: func(text string, m []int) bool {
				if m[2] >= 0 { // the key goes on after its secret word: TOKEN_COUNT is no secret
					words := strings.Split(strings.ToLower(text[m[2]:m[3]]), "_")
					if notSecretSuffix[words[len(words)-1]] {
						return false
					}
				}
				return m[1] == len(text) || text[m[1]] != '('
			}},
	}
})

// notSecretSuffix are the last words of a key that say its value is about
// a secret, not one: token_count, password_policy, secret_name, api_key_id.
var notSecretSuffix = map[string]bool{
	"count": true, "counts": true, "limit": true, "limits": true, "length": true, "len": true, "size": true,
	"type": true, "usage": true, "policy": true, "min": true, "max": true, "ttl": true, "expiry": true,
	"expires": true, "expire": true, "name": true, "id": true, "file": true, "path": true, "dir": true,
	"env": true, "var": true, "header": true, "field": true, "endpoint": true, "url": true, "uri": true,
	"hint": true, "prompt": true, "reset": true, "rotation": true, "version": true, "budget": true,
}

// SecretValue says what credential value carries ("is a GitHub token", "is
// a URL with a password"), "" when it looks like none: what withholds an
// environment variable from commands whatever its name. A key named like a
// password or a token inside the value (JAVA_OPTS=-Dtoken=...) is not
// enough: the variable is withheld by its name when that is a secret's.
func SecretValue(value string) string {
	if len(value) < 8 {
		return ""
	}
	for _, s := range secretShapes() {
		if s.textOnly {
			continue
		}
		if s.ok == nil {
			if s.re.MatchString(value) {
				return s.what
			}
			continue
		}
		for _, m := range s.re.FindAllStringSubmatchIndex(value, -1) {
			if s.ok(value, m) {
				return s.what
			}
		}
	}
	return ""
}

// masked replaces a secret in text.
const masked = "[secret masked]"

// MaskSecrets returns text with every credential-looking value of the
// shapes SecretValue knows, and of a key named like a password or a token,
// replaced by "[secret masked]": a URL's password (the user and host
// kept), a token (a bearer token's "Bearer " kept), a key's value (the key
// and the quotes kept), a private key's whole block (to its END line, or
// to the text's end when there is none).
func MaskSecrets(text string) string {
	if len(text) < 8 {
		return text
	}
	for _, s := range secretShapes() {
		re := s.re
		if s.mask != nil {
			re = s.mask
		}
		text = maskAll(text, re, s.ok)
	}
	return text
}

// maskAll replaces, in every match of re in text that ok accepts (all when
// ok is nil), the secret: the first named group that took part, else the
// whole match.
func maskAll(text string, re *regexp.Regexp, ok func(string, []int) bool) string {
	ms := re.FindAllStringSubmatchIndex(text, -1)
	if ms == nil {
		return text
	}
	names := re.SubexpNames()
	var b strings.Builder
	last := 0
	for _, m := range ms {
		if ok != nil && !ok(text, m) {
			continue
		}
		lo, hi := m[0], m[1]
		for i, name := range names {
			if name != "" && m[2*i] >= 0 {
				lo, hi = m[2*i], m[2*i+1]
				break
			}
		}
		if text[lo:hi] == masked {
			continue
		}
		b.WriteString(text[last:lo])
		b.WriteString(masked)
		last = hi
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}
