package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/bernamp/bernamp/web"
)

// pagePolicy is the Content-Security-Policy of the calculator page: every
// request goes to the page's own origin ('wasm-unsafe-eval' lets it compile
// the module), so the page cannot reach anything else.
const pagePolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// runServe serves the calculator page (package web, docs/web.md) over HTTP
// on --addr until ctx is done. The files are embedded in the binary; the
// WebAssembly module is there only when go generate ./web ran before the
// build, and serve refuses to start without it.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fset := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fset.String("addr", "127.0.0.1:8080", "host:port to listen on (port 0 picks a free one)")
	if err := parseFlags(fset, args, stdout); err != nil {
		return err
	}
	static := web.Static()
	if _, err := fs.Stat(static, web.Module); err != nil {
		return fmt.Errorf("serve: %s is not in this binary: run go generate ./web, then build bernamp again (docs/web.md)", web.Module)
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: %v", err)
	}
	srv := &http.Server{Handler: pageHandler(static), ReadHeaderTimeout: 10 * time.Second}
	stop := context.AfterFunc(ctx, func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	})
	defer stop()
	fmt.Fprintf(stdout, "bernamp: serving the calculator on http://%s/ (Ctrl-C stops)\n", l.Addr())
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %v", err)
	}
	return nil
}

// pageHandler serves the files of static with the page's security policy.
// Responses are not cached, so a rebuilt binary serves its own module.
func pageHandler(static fs.FS) http.Handler {
	files := http.FileServerFS(static)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", pagePolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache")
		if strings.HasSuffix(r.URL.Path, ".wasm") {
			h.Set("Content-Type", "application/wasm")
		}
		files.ServeHTTP(w, r)
	})
}
