package certfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzRead feeds arbitrary bytes to Decode: it must never panic, every
// error must wrap ErrFormat, and every accepted file must round-trip
// (Encode then Decode gives the same File) and encode to the same bytes a
// second time. Seeds: the honest certificates of testdata/verify and a few
// near misses.
func FuzzRead(f *testing.F) {
	paths, _ := filepath.Glob("../testdata/verify/*.json")
	delta, _ := filepath.Glob("../testdata/verify/delta/*.json")
	paths = append(paths, delta...)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"format":"bernamp-pieces-certificate","version":1,"d":1,"k":1,"n":1,"c":"0.1","alpha":"5","eps":"1","claim":"1","lb":"0","l0":"0","l1":"0","l2":"0","tau":"0","log_u":"0","tiles":[["-inf","inf","-inf","inf"]]}`))
	f.Add([]byte(`{"format":"bernamp-pieces-certificate","version":1,"d":1,"k":1,"n":1,"c":"1e999999","alpha":"-.5e+3","eps":"1","claim":"1","lb":"0","l0":"0","l1":"0","l2":"0","tau":"0","log_u":"0","tiles":[["1","2","3","4"]]} trailing`))
	f.Add([]byte("\x00\xff["))
	// A closed-form file with groups ({n, c} and {n, lo, hi}) and a near miss (a group with c and lo).
	f.Add([]byte(`{"format":"bernamp-certificate","version":2,"kind":"closed-form","d":3,"k":2,"n":6,"alpha":"2","eps":"50","groups":[{"n":2,"c":"0.05"},{"n":4,"lo":"0.2","hi":"0.3"}],"claim":"6.1","lb":"0"}`))
	f.Add([]byte(`{"format":"bernamp-certificate","version":2,"kind":"closed-form","d":3,"k":2,"n":6,"alpha":"2","eps":"50","groups":[{"n":2,"c":"0.05","lo":"0.1"},{"n":4,"lo":"0.2","hi":"0.3"}],"claim":"6.1","lb":"0"}`))
	// Profile files of mechanisms known by a file (rdp, points with reverse, pld) and a near
	// miss (an rdp input with points).
	head := `{"format":"bernamp-certificate","version":2,"kind":"profile","d":1,"k":1,"n":1,"c":"0.1","claim":"5","lb":"0","delta":"1e-6","profile":{"steps":10,"query":"eps","discretization":"0.001","remove":{"lower_loss":-1,"probs":["0.5","0.5"],"infinity_mass":"0"},`
	f.Add([]byte(head + `"mechanism":"rdp","input":{"conversion":"balle2020","orders":["2","4"],"rdp":["0.25","0.5"]}}}`))
	f.Add([]byte(head + `"mechanism":"points","input":{"eps":["-1","0","1"],"delta":["0.9","0.3","0.01"],"reverse":["0.8","0.2","0"]}}}`))
	f.Add([]byte(head + `"mechanism":"pld","input":{"discretization":"0.01","remove":{"lower_loss":-2,"probs":["0.25","0.5","0.25"],"infinity_mass":"0"}}}}`))
	f.Add([]byte(head + `"mechanism":"rdp","input":{"conversion":"balle2020","orders":["2"],"rdp":["0.25"],"eps":["1"]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Decode(bytes.NewReader(data))
		if err != nil {
			if got != nil {
				t.Fatalf("Decode returned a file and the error %v", err)
			}
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("Decode error %v does not wrap ErrFormat", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := got.Encode(&buf); err != nil {
			t.Fatalf("Encode of an accepted file: %v", err)
		}
		again, err := Decode(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("the encoding of an accepted file is rejected: %v\n%s", err, buf.Bytes())
		}
		if !reflect.DeepEqual(got, again) {
			t.Fatalf("round trip changed the file:\nread    %+v\nreread  %+v", got, again)
		}
		var buf2 bytes.Buffer
		if err := again.Encode(&buf2); err != nil || !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
			t.Fatalf("second encoding differs (err %v):\n%s\n%s", err, buf.Bytes(), buf2.Bytes())
		}
	})
}
