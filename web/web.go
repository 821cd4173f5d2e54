// Package web holds the calculator page: a static page (static/index.html,
// app.js, worker.js, style.css, presets.json) that runs the engine compiled
// to WebAssembly (package web/wasm) in a Web Worker. docs/web.md describes
// it.
//
// The module static/bernamp.wasm and Go's loader static/wasm_exec.js are
// generated, not committed:
//
//	go generate ./web
//
// builds them (GOOS=js GOARCH=wasm go build ./web/wasm, and a copy of
// $(go env GOROOT)/lib/wasm/wasm_exec.js, which must match the Go that
// built the module). Static embeds the directory as it is at build time, so
// generate first, then build bernamp, whose serve command serves Static.
// The directory static/ alone, once generated, also works from any static
// host.
package web

//go:generate go run ./gen

import (
	"embed"
	"io/fs"
)

//go:embed static
var static embed.FS

// Module is the name of the WebAssembly module in Static.
const Module = "bernamp.wasm"

// Static returns the files of the page: index.html, app.js, worker.js,
// style.css, presets.json and, when generated before the build,
// bernamp.wasm and wasm_exec.js (which add 5.8 MB to a binary that embeds
// them).
func Static() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic("web: " + err.Error()) // "static" is a valid path
	}
	return sub
}
