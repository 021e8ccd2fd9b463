// X-Server-Authorization (docs/protocol.md §2.1) in Go, checked against
// the vectors of Appendix A: go run sign.go vectors.json
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// --- the snippet -------------------------------------------------------

// Sign is the signature of the exact bytes sent, under the secret's UTF-8 bytes.
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

var signatureForm = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Verify checks a received signature in constant time: exactly 64 characters 0-9a-f, and equal.
func Verify(secret string, body []byte, signature string) bool {
	return signatureForm.MatchString(signature) && hmac.Equal([]byte(Sign(secret, body)), []byte(signature))
}

// -----------------------------------------------------------------------

type vector struct {
	Name      string `json:"name"`
	Secret    string `json:"secret"`
	Body      string `json:"body"`
	Signature string `json:"signature"`
}

func main() {
	path := "vectors.json"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	text, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var file struct {
		Vectors []vector `json:"vectors"`
	}
	if err := json.Unmarshal(text, &file); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	failed := 0
	for _, v := range file.Vectors {
		body := []byte(v.Body)
		ok := Sign(v.Secret, body) == v.Signature && Verify(v.Secret, body, v.Signature) && !Verify(v.Secret, body, strings.ToUpper(v.Signature))
		if ok {
			fmt.Println("ok " + v.Name)
		} else {
			fmt.Println("FAILED " + v.Name)
			failed++
		}
	}
	if failed > 0 {
		os.Exit(1)
	}
}
