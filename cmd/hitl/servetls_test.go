package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// selfSigned writes a certificate for 127.0.0.1 and its key into dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hitl test hub"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "door.crt"), filepath.Join(dir, "door.key")
	_ = os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	_ = os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// serveFor starts hitl serve with args and the team config, and returns
// its stderr lines as they come.
func serveFor(t *testing.T, config string, args ...string) (*exec.Cmd, <-chan string) {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(builtBinary(t), append([]string{"serve"}, args...)...)
	cmd.Env = hermeticEnv("HITL_CONFIG="+cfg, "XDG_STATE_HOME="+filepath.Join(dir, "state"), "HITL_PUBLISH_TOKEN="+publishToken)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return cmd, lines
}

// The door serves TLS with --tls-cert and --tls-key: a reviewer's token
// goes over TLS, and plain HTTP gets no answer of the hub.
func TestHubDoorServesTLS(t *testing.T) {
	cert, key, pool := selfSigned(t, t.TempDir())
	_, lines := serveFor(t, teamYAML, "--http", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key)
	var url string
	for line := range lines {
		if i := strings.Index(line, "listens on https://"); i >= 0 {
			url = strings.Fields(line[i+len("listens on "):])[0]
			break
		}
		if strings.Contains(line, "listens on http://") {
			t.Fatalf("the door listens in plain HTTP: %s", line)
		}
	}
	if url == "" {
		t.Fatal("hitl serve never said where it listens")
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 10 * time.Second}
	req, _ := http.NewRequest("GET", url+"/hitl/pending", nil)
	req.Header.Set("Authorization", "Bearer "+aliceToken)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.TLS == nil {
		t.Fatalf("GET over TLS: HTTP %d, tls %v", resp.StatusCode, resp.TLS != nil)
	}
	plain := strings.Replace(url, "https://", "http://", 1)
	if resp, err := http.Get(plain + "/hitl/pending"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("plain HTTP to the TLS door: HTTP %d", resp.StatusCode)
		}
	}
}

// A plain-HTTP door on an address reached from elsewhere is warned about,
// by serve --check and at start; on loopback it is not.
func TestHubWarnsOfAPlainDoorOffLoopback(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	_ = os.WriteFile(cfg, []byte(teamYAML), 0o600)
	env := hermeticEnv("HITL_CONFIG="+cfg, "XDG_STATE_HOME="+dir, "HITL_PUBLISH_TOKEN="+publishToken)
	check := func(addr string) string {
		cmd := exec.Command(builtBinary(t), "serve", "--check", "--http", addr)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("serve --check --http %s: %v\n%s", addr, err, out)
		}
		return string(out)
	}
	if out := check("0.0.0.0:8700"); !strings.Contains(out, "door: warning: the HTTP door on 0.0.0.0:8700 is plain HTTP on an address reached from elsewhere") {
		t.Fatalf("--check of a plain door on every interface:\n%s", out)
	}
	if out := check(":8700"); strings.Contains(out, "warning") {
		t.Fatalf("--check of a loopback door warned:\n%s", out)
	}
	_, lines := serveFor(t, teamYAML, "--http", "0.0.0.0:0")
	deadline := time.After(20 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("hitl serve ended without the warning")
			}
			if strings.Contains(line, "warning: the HTTP door on 0.0.0.0:0 is plain HTTP") {
				return
			}
		case <-deadline:
			t.Fatal("hitl serve --http 0.0.0.0:0 never warned")
		}
	}
}
