package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

func pemOf(t *testing.T, key any) string {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// TestClientAssertion: a private_key_jwt assertion verifies with the
// public key and carries iss = sub = client id and aud = the issuer; the
// algorithm follows the key unless set.
func TestClientAssertion(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rs, _ := rsa.GenerateKey(rand.Reader, 2048)
	for _, tc := range []struct {
		key       any
		pub       any
		alg, want string
	}{
		{ec, &ec.PublicKey, "", "ES256"},
		{rs, &rs.PublicKey, "", "RS256"},
		{rs, &rs.PublicKey, "PS256", "PS256"},
	} {
		a, err := clientAssertion(pemOf(t, tc.key), tc.alg, "cli", "https://as.example")
		if err != nil {
			t.Fatalf("%s: %v", tc.want, err)
		}
		var claims jwt.RegisteredClaims
		tok, err := jwt.ParseWithClaims(a, &claims, func(*jwt.Token) (any, error) { return tc.pub, nil },
			jwt.WithAudience("https://as.example"), jwt.WithIssuer("cli"), jwt.WithSubject("cli"), jwt.WithExpirationRequired())
		if err != nil || tok.Method.Alg() != tc.want || claims.ID == "" {
			t.Errorf("%s: %v, alg %s, jti %q", tc.want, err, tok.Method.Alg(), claims.ID)
		}
	}
	if _, err := clientAssertion(pemOf(t, ec), "RS256", "cli", "aud"); err == nil {
		t.Error("an EC key signed RS256")
	}
	secret := "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----"
	if _, err := clientAssertion(secret, "", "cli", "aud"); err == nil || strings.Contains(err.Error(), "bm90IGEga2V5") {
		t.Errorf("a bad key: %v (want an error that does not quote it)", err)
	}
}

// TestConfigValidate: settings that cannot work are refused with what to
// change.
func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, ""},
		{Config{GrantType: "password"}, "use authorization_code or client_credentials"},
		{Config{GrantType: GrantClientCredentials}, "needs client_id"},
		{Config{GrantType: GrantClientCredentials, ClientID: "c"}, "needs client_secret or private_key_pem"},
		{Config{ClientSecret: "s"}, "client_secret needs client_id"},
		{Config{ClientMetadataURL: "http://x/cimd.json"}, "https"},
		{Config{PrivateKeyPEM: "nope", ClientID: "c"}, "not a PEM block"},
		{Config{IdPIDToken: "t", IdPIssuer: "https://idp"}, "idp_client_id"},
	} {
		err := tc.cfg.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
	}
}
