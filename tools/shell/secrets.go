package shell

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// secretShape is a shape of text that carries a credential. The part
// MaskSecrets replaces is the first named group that took part in a
// match ("s"), or the whole match when the expression names none.
type secretShape struct {
	what string
	// src is the expression: before, one of lits, then after (see shape).
	// Every match holds one of lits, so text that holds none is not
	// searched; the expression is compiled at its first search.
	src  string
	lits []string
	// fold: the expression ignores case, and lits are in lower case.
	fold bool
	// maskSrc, when set, is what MaskSecrets replaces instead of src's
	// match (a private key's whole block where src finds its BEGIN line);
	// it starts with one of lits too.
	maskSrc string
	// textOnly shapes are masked in text but are no reason to withhold an
	// environment variable's value from commands (see SecretValue).
	textOnly bool
	// ok, when set, tells a match of the expression that is a credential
	// from one that only looks like it; m are its submatch indexes in text.
	ok func(text string, m []int) bool

	once     sync.Once
	re, mask *regexp.Regexp
}

// compiled returns the shape's expression and the one MaskSecrets
// replaces (re itself when there is no maskSrc), compiling them once.
func (s *secretShape) compiled() (re, mask *regexp.Regexp) {
	s.once.Do(func() {
		s.re, s.mask = regexp.MustCompile(s.src), nil
		if s.maskSrc != "" {
			s.mask = regexp.MustCompile(s.maskSrc)
		}
	})
	if s.mask != nil {
		return s.re, s.mask
	}
	return s.re, s.re
}

// mayHold reports whether text holds one of the shape's literals, which
// every match does. lower is text in lower case, for a shape that folds
// case, and "" when text is not all ASCII: Unicode's case folding (the
// Kelvin sign is a k) is the expression's to decide then.
func (s *secretShape) mayHold(text, lower string) bool {
	if s.fold {
		if lower == "" {
			return true
		}
		text = lower
	}
	for _, l := range s.lits {
		if strings.Contains(text, l) {
			return true
		}
	}
	return false
}

// shape is a secretShape whose expression is before, then one of lits
// (literal text, tried in order), then after: so every match holds one of
// them. An expression that starts with (?i) folds case; its lits must be
// in lower case.
func shape(what, before string, lits []string, after string) *secretShape {
	quoted := make([]string, len(lits))
	for i, l := range lits {
		quoted[i] = regexp.QuoteMeta(l)
	}
	return &secretShape{what: what, src: before + `(?:` + strings.Join(quoted, "|") + `)` + after, lits: lits,
		fold: strings.HasPrefix(before, "(?i)")}
}

// word is the shape of a token that starts a word with one of lits, then
// rest: the token is the secret (the escape before it is not).
func word(what string, lits []string, rest string) *secretShape {
	return shape(what, wordStart+`(?P<s>`, lits, rest+`)`)
}

// alternatives is the shape of a token that starts a word and matches one
// of the alternatives of src, each of which starts with one of lits (one
// expression, not a shape each: masking the first token must not leave a
// shorter match of another, xapp-1-...-xoxb-...).
// FuzzShapesHoldTheirLiterals checks that every match holds one of lits.
func alternatives(what string, lits []string, src string) *secretShape {
	return &secretShape{what: what, src: wordStart + `(?P<s>` + src + `)`, lits: lits}
}

// token is the alphabet of an opaque token (RFC 6750's b64token); quote
// is a quote that may close a key or open a value, escaped (\", \\\")
// when the text is JSON that holds the text, or JSON that holds such JSON
// (a tool's result in a message, as telemetry captures it).
const (
	token = `[A-Za-z0-9._~+/=-]`
	quote = `(?:\\*["'])?`
)

// wordStart is where a word starts: at \b, or after the escape of a
// newline, a tab or a return when the text is JSON ("\tpassword = ...",
// "\nghp_...": the t and the n are letters, so \b is not there).
const wordStart = `(?:\\[nrt]|\b)`

// secretShapes are the shapes of values that carry credentials whatever
// their variable is called: URLs with a password, the prefixes of
// well-known tokens (GitHub, GitLab, OpenAI, Anthropic, Slack, AWS, Google,
// npm, PyPI, Hugging Face, Stripe, SendGrid, DigitalOcean, Shopify,
// Grafana), JWTs, bearer tokens, AWS secret access keys and private keys
// (PEM and PGP); and, in text only, the value given to a key named like a
// password, a secret, an API key or a token. Each expression is compiled
// at its first search, and only text that holds one of its literals is
// searched: an environment of 35 variables was filtered in 2.6 ms at a
// session's first command when all were compiled and run on every value.
var secretShapes = sync.OnceValue(newSecretShapes)

func newSecretShapes() []*secretShape {
	bearer := shape("is a bearer token",
		// After "Authorization:" any 16 characters of a token; elsewhere
		// ("the bearer instrument-of-credit") only one with a digit.
		`(?i)(authorization`+quote+`\s*[:=]\s*`+quote+`)?`+wordStart, []string{"bearer"}, `\s+(?P<s>`+token+`{16,})`)
	bearer.ok = func(text string, m []int) bool {
		return m[2] >= 0 || strings.ContainsAny(text[m[4]:m[5]], "0123456789")
	}
	private := shape("holds a private key", "", []string{"-----BEGIN "}, `[A-Z ]*PRIVATE KEY( BLOCK)?-----`)
	private.maskSrc = `(?s)-----BEGIN [A-Z ]*PRIVATE KEY( BLOCK)?-----.*?(-----END [A-Z ]*PRIVATE KEY( BLOCK)?-----|\z)`
	// password = "...", "api_key": "...", DB_PASSWORD=..., token: ...,
	// SECRET_KEY_BASE=...: the value, quoted or not, of 6 characters or
	// more. The key's secret word may be followed only by _WORDs (an
	// identifier's; "token count", "password policy", "max_tokens: 4096"
	// are kept) and an unquoted value that is called ("password =
	// getpass()") is code, not a credential.
	keyed := shape("is a value given to a password, secret, API key or token",
		`(?i)`+wordStart+`(?:[a-z0-9]+[_.-])*`,
		[]string{"password", "passwd", "secret", "api_key", "api-key", "apikey", "token", "private_key", "private-key", "privatekey", "credentials", "credential"},
		`(_[a-z0-9]+(?:_[a-z0-9]+)*)?`+quote+`\s*[:=]\s*`+
			`(?:\\*"(?P<s>[^"\\\n]{6,})\\*"|\\*'(?P<s>[^'\\\n]{6,})\\*'|(?P<s>[^\s"'\\&,;()\[\]{}<>]{6,}))`)
	keyed.textOnly = true
	keyed.ok = func(text string, m []int) bool {
		if m[2] >= 0 { // the key goes on after its secret word: TOKEN_COUNT is no secret
			words := strings.Split(strings.ToLower(text[m[2]:m[3]]), "_")
			if notSecretSuffix[words[len(words)-1]] {
				return false
			}
		}
		return m[1] == len(text) || text[m[1]] != '('
	}
	return []*secretShape{
		// The password runs to the last @ before the host: it may hold an @.
		shape("is a URL with a password", `[A-Za-z][A-Za-z0-9+.-]*`, []string{"://"}, `[^/\s:@]*:(?P<s>[^/\s"'<>]+)@`),
		alternatives("is a GitHub token", []string{"gh", "github_pat_"}, `(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`),
		word("is a GitLab token", []string{"gl"}, `(pat|dt|rt|ptt|oas|cbt|ft|imt|agent|soat)-[A-Za-z0-9_-]{16,}`),
		word("is an API key (sk-)", []string{"sk-"}, `[A-Za-z0-9_-]{20,}`),
		alternatives("is a Slack token", []string{"xox", "xapp-"}, `xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,}`),
		word("is an AWS access key", []string{"AKIA", "ASIA", "AGPA", "AIDA", "AROA"}, `[0-9A-Z]{16}\b`),
		shape("is an AWS secret access key", `(?i)`, []string{"aws_secret_access_key"},
			quote+`\s*[:=]\s*`+quote+`(?P<s>[A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)`),
		word("is a Google API key", []string{"AIza"}, `[0-9A-Za-z_-]{35}`),
		word("is a Google OAuth token", []string{"ya29."}, `[0-9A-Za-z_-]{20,}`),
		word("is an npm token", []string{"npm_"}, `[A-Za-z0-9]{36}`),
		word("is a PyPI token", []string{"pypi-AgE"}, `[A-Za-z0-9_-]{20,}`),
		word("is a Hugging Face token", []string{"hf_"}, `[A-Za-z0-9]{30,}`),
		word("is a Stripe key", []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"}, `[A-Za-z0-9]{16,}`),
		word("is a SendGrid key", []string{"SG."}, `[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`),
		word("is a DigitalOcean token", []string{"doo_v1_", "dop_v1_", "dor_v1_"}, `[a-f0-9]{64}`),
		word("is a Shopify token", []string{"shpat_", "shpca_", "shppa_", "shpss_"}, `[a-fA-F0-9]{32}`),
		word("is a Grafana token", []string{"glsa_"}, `[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`),
		word("is a JWT", []string{"eyJ"}, `[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
		// More of gitleaks' rules (github.com/gitleaks/gitleaks, config/gitleaks.toml):
		// tokens whose prefix names them, and webhook URLs whose path is the key.
		word("is a HashiCorp Vault token", []string{"hvs.", "hvb.", "hvr."}, `[A-Za-z0-9_-]{24,}`),
		word("is a Databricks token", []string{"dapi"}, `[a-f0-9]{32}(-[0-9])?`),
		word("is a Linear API key", []string{"lin_api_"}, `[A-Za-z0-9]{40}`),
		word("is a Postman API key", []string{"PMAK-"}, `[a-f0-9]{24}-[a-f0-9]{34}`),
		word("is a Doppler token", []string{"dp."}, `(pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}`),
		word("is a Pulumi token", []string{"pul-"}, `[a-f0-9]{40}`),
		word("is a Sentry token", []string{"sntrys_", "sntryu_"}, `[A-Za-z0-9_=+/-]{40,}`),
		word("is a Figma token", []string{"figd_"}, `[A-Za-z0-9_-]{40}`),
		word("is a New Relic key", []string{"NRAK-"}, `[A-Z0-9]{27}`),
		word("is a Square token", []string{"sq0atp", "sq0csp", "EAAA"}, `[A-Za-z0-9_-]{22,60}`),
		word("is a Twilio key", []string{"SK"}, `[0-9a-fA-F]{32}\b`),
		word("is a Mailgun key", []string{"key-"}, `[0-9a-zA-Z]{32}\b`),
		shape("is a Telegram bot token", wordStart+`(?P<s>[0-9]{8,10}`, []string{":AA"}, `[A-Za-z0-9_-]{33})`),
		shape("is a webhook URL", "", []string{"https://"},
			`(?:hooks\.slack\.com/(?:services|workflows|triggers)/|(?:discord|discordapp)\.com/api/webhooks/[0-9]+/|[a-z0-9.-]*webhook\.office\.com/webhookb2/)(?P<s>[A-Za-z0-9/_@.-]{16,})`),
		shape("is an Azure storage key", `(?i)`, []string{"accountkey="}, `(?P<s>[A-Za-z0-9+/=]{40,})`),
		bearer,
		private,
		keyed,
	}
}

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
func SecretValue(value string) string { return secretValue(secretShapes(), value) }

// secretValue is SecretValue with shapes.
func secretValue(shapes []*secretShape, value string) string {
	if len(value) < 8 {
		return ""
	}
	lower := asciiLower(value)
	for _, s := range shapes {
		if s.textOnly || !s.mayHold(value, lower) {
			continue
		}
		re, _ := s.compiled()
		if s.ok == nil {
			if re.MatchString(value) {
				return s.what
			}
			continue
		}
		for _, m := range re.FindAllStringSubmatchIndex(value, -1) {
			if s.ok(value, m) {
				return s.what
			}
		}
	}
	return ""
}

// asciiLower is s in lower case, or "" when s is not all ASCII (see
// secretShape.mayHold).
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return ""
		}
	}
	return strings.ToLower(s)
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
	lower := asciiLower(text)
	for _, s := range secretShapes() {
		if !s.mayHold(text, lower) {
			continue
		}
		_, mask := s.compiled()
		if out := maskAll(text, mask, s.ok); out != text {
			text, lower = out, asciiLower(out)
		}
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
