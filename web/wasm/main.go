//go:build js && wasm

// Command wasm is the engine of the calculator page, built with
//
//	GOOS=js GOARCH=wasm go build -o web/static/bernamp.wasm ./web/wasm
//
// (go generate ./web does it). It registers these JavaScript functions on
// globalThis and then waits forever:
//
//	bernampParse(formJSON) string           calc.ParseJSON: the grid or the field errors
//	bernampSolve(requestJSON) Promise<string>  calc.SolveJSON: one point's row
//	bernampParseCurve(formJSON) string      calc.ParseCurveJSON: a pasted curve's orders or the field errors
//	bernampSolveOrder(requestJSON) Promise<string>  calc.SolveOrderJSON: one order's row
//	bernampSummarize(requestJSON) string    calc.SummarizeJSON: the (eps, delta) summary
//	bernampParseCompose(formJSON) string    calc.ParseComposeJSON: a composition's plan or the field errors
//	bernampCompose(planJSON) Promise<string>  calc.SolveComposeJSON: eps after T steps (accountant.ComposeClaim)
//
// The page calls them from a Web Worker (web/static/worker.js). WebAssembly
// runs Go on one thread and a solve does not yield to the JavaScript event
// loop until it returns, so a solve is stopped from the page by terminating
// the worker; a time limit per point (timeout_ns) is enforced inside Go.
package main

import (
	"context"
	"syscall/js"

	"github.com/bernamp/bernamp/web/calc"
)

func main() {
	js.Global().Set("bernampParse", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return string(calc.ParseJSON([]byte(arg(args))))
	}))
	js.Global().Set("bernampSolve", js.FuncOf(func(_ js.Value, args []js.Value) any {
		req := arg(args)
		// The executor runs within Promise's constructor: released after it.
		exec := js.FuncOf(func(_ js.Value, pa []js.Value) any {
			resolve := pa[0]
			go func() { resolve.Invoke(string(calc.SolveJSON(context.Background(), []byte(req)))) }()
			return nil
		})
		defer exec.Release()
		return js.Global().Get("Promise").New(exec)
	}))
	js.Global().Set("bernampParseCurve", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return string(calc.ParseCurveJSON([]byte(arg(args))))
	}))
	js.Global().Set("bernampSolveOrder", js.FuncOf(func(_ js.Value, args []js.Value) any {
		req := arg(args)
		exec := js.FuncOf(func(_ js.Value, pa []js.Value) any {
			resolve := pa[0]
			go func() { resolve.Invoke(string(calc.SolveOrderJSON(context.Background(), []byte(req)))) }()
			return nil
		})
		defer exec.Release()
		return js.Global().Get("Promise").New(exec)
	}))
	js.Global().Set("bernampSummarize", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return string(calc.SummarizeJSON([]byte(arg(args))))
	}))
	js.Global().Set("bernampParseCompose", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return string(calc.ParseComposeJSON([]byte(arg(args))))
	}))
	js.Global().Set("bernampCompose", js.FuncOf(func(_ js.Value, args []js.Value) any {
		req := arg(args)
		exec := js.FuncOf(func(_ js.Value, pa []js.Value) any {
			resolve := pa[0]
			go func() { resolve.Invoke(string(calc.SolveComposeJSON(context.Background(), []byte(req)))) }()
			return nil
		})
		defer exec.Release()
		return js.Global().Get("Promise").New(exec)
	}))
	js.Global().Call("bernampReady")
	select {}
}

// arg returns the first argument as a string, "" when there is none.
func arg(args []js.Value) string {
	if len(args) == 0 || args[0].Type() != js.TypeString {
		return ""
	}
	return args[0].String()
}
