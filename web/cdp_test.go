package web_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// browser is headless Chromium driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe: commands on fd 3, answers on fd 4, each a JSON
// message ended by a NUL byte), so the test needs no driver library.
type browser struct {
	cmd     *exec.Cmd
	w       io.WriteCloser
	mu      sync.Mutex
	next    int
	pending map[int]chan cdpMessage
	session string           // the page's flattened session
	events  func(cdpMessage) // called for every event, on the reader goroutine
	done    chan struct{}    // closed when the pipe from the browser closes
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *cdpError       `json:"error,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
}

type cdpError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// chromiumFlags keep a headless run quiet and local: no sandbox (CI runs as
// root), no GPU, no background or update traffic, a fresh profile.
var chromiumFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-extensions", "--remote-debugging-pipe", "--window-size=1200,900",
}

// startBrowser starts Chromium at path with a profile in dir and opens a
// blank page, whose session later commands use.
func startBrowser(path, dir string, events func(cdpMessage)) (*browser, error) {
	toR, toW, err := os.Pipe() // commands: we write, the browser reads fd 3
	if err != nil {
		return nil, err
	}
	fromR, fromW, err := os.Pipe() // answers: the browser writes fd 4
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, append(chromiumFlags, "--user-data-dir="+dir, "about:blank")...)
	cmd.ExtraFiles = []*os.File{toR, fromW}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	toR.Close()
	fromW.Close()
	b := &browser{cmd: cmd, w: toW, pending: map[int]chan cdpMessage{}, events: events, done: make(chan struct{})}
	go b.read(fromR)
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		b.close()
		return nil, err
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		b.close()
		return nil, err
	}
	b.session = att.SessionID
	return b, nil
}

func (b *browser) read(r io.Reader) {
	defer close(b.done)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpMessage
		if json.Unmarshal(line[:len(line)-1], &m) != nil {
			continue
		}
		if m.ID != 0 {
			b.mu.Lock()
			ch := b.pending[m.ID]
			delete(b.pending, m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		if b.events != nil {
			b.events(m)
		}
	}
}

// call sends method with params on session ("" for the browser) and
// decodes the result into out (if not nil). It gives up after a minute.
func (b *browser) call(session, method string, params any, out any) error {
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpMessage, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params, "sessionId": session})
	if err != nil {
		return err
	}
	if session == "" {
		msg, _ = json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	}
	if _, err := b.w.Write(append(msg, 0)); err != nil {
		return err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-b.done:
		return fmt.Errorf("%s: the browser closed the pipe", method)
	case <-time.After(time.Minute):
		return fmt.Errorf("%s: no answer within a minute", method)
	}
}

// page calls method on the page's session.
func (b *browser) page(method string, params any, out any) error {
	return b.call(b.session, method, params, out)
}

// eval evaluates the JavaScript expression expr in the page, awaiting it if
// it is a promise, and decodes its value into out (if not nil).
func (b *browser) eval(expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception *struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := b.page("Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &res); err != nil {
		return err
	}
	if e := res.ExceptionDetails; e != nil {
		if e.Exception != nil {
			return errors.New(e.Exception.Description)
		}
		return errors.New(e.Text)
	}
	if out != nil && len(res.Result.Value) > 0 {
		return json.Unmarshal(res.Result.Value, out)
	}
	return nil
}

func (b *browser) close() {
	b.call("", "Browser.close", nil, nil)
	b.w.Close()
	select {
	case <-b.done:
	case <-time.After(5 * time.Second):
		b.cmd.Process.Kill()
	}
	b.cmd.Wait()
}
