package main

import (
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/bernamp/bernamp/web"
)

func TestServeHandler(t *testing.T) {
	t.Parallel()
	files := fstest.MapFS{
		"index.html":   {Data: []byte("<!DOCTYPE html><title>x</title>")},
		"bernamp.wasm": {Data: []byte("\x00asm\x01\x00\x00\x00")},
	}
	srv := httptest.NewServer(pageHandler(files))
	defer srv.Close()
	for _, tc := range []struct {
		path, contentType string
	}{
		{"/", "text/html; charset=utf-8"},
		{"/bernamp.wasm", "application/wasm"},
	} {
		resp, err := http.Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d", tc.path, resp.StatusCode)
		}
		if got := resp.Header.Get("Content-Type"); got != tc.contentType {
			t.Errorf("%s: Content-Type %q, want %q", tc.path, got, tc.contentType)
		}
		if got := resp.Header.Get("Content-Security-Policy"); got != pagePolicy {
			t.Errorf("%s: Content-Security-Policy %q, want %q", tc.path, got, pagePolicy)
		}
	}
	resp, err := http.Get(srv.URL + "/missing.js")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("/missing.js: status %d, want 404", resp.StatusCode)
	}
}

// TestServe runs serve with a cancelled context: it starts and stops at
// once when the module is embedded, and otherwise says how to build it.
func TestServe(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := runTerm(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, &stdout, &stderr, tty{})
	if _, err := fs.Stat(web.Static(), web.Module); err != nil {
		if code != 1 || !strings.Contains(stderr.String(), "go generate ./web") {
			t.Errorf("without the module: exit %d, stderr %q; want 1 and how to build it", code, stderr.String())
		}
		return
	}
	if code != 0 || !strings.Contains(stdout.String(), "http://127.0.0.1:") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0 and the address", code, stdout.String(), stderr.String())
	}
	for _, args := range [][]string{{"serve", "--port", "80"}, {"serve", "extra"}} {
		stderr.Reset()
		if code := runTerm(ctx, args, &stdout, &stderr, tty{}); code != 2 {
			t.Errorf("%q: exit %d, want 2 (stderr %q)", args, code, stderr.String())
		}
	}
}
