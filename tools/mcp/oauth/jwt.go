package oauth

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// assertionType is client_assertion_type of private_key_jwt (RFC 7523).
const assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// assertionLifetime is how long a client assertion is valid.
const assertionLifetime = 5 * time.Minute

// parseSigner parses a PEM private key (PKCS#8, PKCS#1 RSA or SEC 1 EC)
// and the algorithm to sign with (alg, or the key's default: RS256 for
// RSA, ES256/384/512 for EC by curve). Errors never quote the key.
func parseSigner(keyPEM, alg string) (jwt.SigningMethod, any, error) {
	block, _ := pem.Decode([]byte(strings.TrimSpace(keyPEM)))
	if block == nil {
		return nil, nil, fmt.Errorf("private_key_pem is not a PEM block")
	}
	var key any
	var err error
	switch block.Type {
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("private_key_pem: not a private key agent can use (%s)", block.Type)
	}
	if alg == "" {
		switch k := key.(type) {
		case *rsa.PrivateKey:
			alg = "RS256"
		case *ecdsa.PrivateKey:
			alg = map[int]string{256: "ES256", 384: "ES384", 521: "ES512"}[k.Curve.Params().BitSize]
		}
	}
	m := jwt.GetSigningMethod(strings.ToUpper(alg))
	ok := false
	switch key.(type) {
	case *rsa.PrivateKey:
		ok = strings.HasPrefix(strings.ToUpper(alg), "RS") || strings.HasPrefix(strings.ToUpper(alg), "PS")
	case *ecdsa.PrivateKey:
		ok = strings.HasPrefix(strings.ToUpper(alg), "ES")
	}
	if m == nil || !ok {
		return nil, nil, fmt.Errorf("signing_algorithm %q does not suit the key of private_key_pem", alg)
	}
	return m, key, nil
}

// clientAssertion is a private_key_jwt client assertion (RFC 7523 §3):
// issued by and about clientID, for audience (the authorization server's
// issuer), valid assertionLifetime, with a random jti.
func clientAssertion(keyPEM, alg, clientID, audience string) (string, error) {
	m, key, err := parseSigner(keyPEM, alg)
	if err != nil {
		return "", err
	}
	id := make([]byte, 16)
	rand.Read(id)
	now := time.Now()
	claims := jwt.RegisteredClaims{Issuer: clientID, Subject: clientID, Audience: jwt.ClaimStrings{audience},
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(assertionLifetime)), ID: hex.EncodeToString(id)}
	s, err := jwt.NewWithClaims(m, claims).SignedString(key)
	if err != nil {
		return "", fmt.Errorf("signing the client assertion: %w", err)
	}
	return s, nil
}
