// Command gen builds the calculator page's generated files, run by go
// generate in web/:
//
//	static/bernamp.wasm   GOOS=js GOARCH=wasm go build -trimpath ../wasm
//	static/wasm_exec.js   a copy of $(go env GOROOT)/lib/wasm/wasm_exec.js
//
// The loader comes from the same Go as the module, as it must.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	if err := gen(); err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
}

func gen() error {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %v", err)
	}
	loader, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join("static", "wasm_exec.js"), loader, 0o644); err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-trimpath", "-o", filepath.Join("static", "bernamp.wasm"), "./wasm")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("GOOS=js GOARCH=wasm go build ./wasm: %v", err)
	}
	return nil
}
