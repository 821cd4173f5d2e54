package calc

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// fieldMessages is err's FieldErrors as field: message lines, in order.
func fieldMessages(t *testing.T, err error) []string {
	t.Helper()
	var fes FieldErrors
	if !errors.As(err, &fes) {
		t.Fatalf("error %v (%T), want FieldErrors", err, err)
	}
	var lines []string
	for _, fe := range fes {
		lines = append(lines, fe.Field+": "+fe.Message)
	}
	return lines
}

func sameLines(t *testing.T, desc string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: errors\n\t%s\nwant\n\t%s", desc, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// TestParseEveryField checks that a form with several bad fields gets one
// message per bad field, each the message that field gets alone (the CLI's),
// in the form's order, and none for a good field.
func TestParseEveryField(t *testing.T) {
	t.Parallel()
	six := []string{
		"d: --d: d is 0, must be >= 1",
		`k: --k: "two" is not an integer`,
		"c: --c: c is 0.7, must be in (0, 0.5)",
		"alpha: --alpha: alpha is 1, must be > 1 and finite",
		`eps: --eps: range "1:0:1": stop 0 is less than start 1`,
		"timeout: --timeout: timeout is -1s, must be >= 0",
	}
	_, err := Parse(form("0", "two", "0.7", "1", "1:0:1", "-1s"))
	sameLines(t, "six bad fields", fieldMessages(t, err), six)
	// The same message as each field alone.
	good := []string{"1", "1", "0.1", "5", "1", ""}
	bad := []string{"0", "two", "0.7", "1", "1:0:1", "-1s"}
	for i := range bad {
		f := append([]string(nil), good...)
		f[i] = bad[i]
		_, err := Parse(form(f[0], f[1], f[2], f[3], f[4], f[5]))
		sameLines(t, "field "+six[i][:strings.Index(six[i], ":")]+" alone", fieldMessages(t, err), six[i:i+1])
	}
	// Three bad, three good: three messages; a list's first bad value.
	_, err = Parse(form("1,2", "1,0,-1", "0.1", "5,NaN", "0.5", "2x"))
	sameLines(t, "three bad fields", fieldMessages(t, err), []string{
		"k: --k: k is 0, must be >= 1",
		"alpha: --alpha: alpha is NaN, must be > 1 and finite",
		`timeout: --timeout: "2x" is not a duration such as 400ms or 30s`,
	})
	// errors.As finds the first, and Error lists them all.
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "k" {
		t.Errorf("errors.As: %v, want the field k", fe)
	}
	if got := strings.Count(err.Error(), "\n"); got != 2 {
		t.Errorf("Error() %q has %d newlines, want 2 (three lines)", err.Error(), got)
	}
	// The grid's size is judged once every field is valid.
	_, err = Parse(form("0", "1", "0.1", "5", "0:99.99:0.01", ""))
	sameLines(t, "a bad field and a large grid", fieldMessages(t, err), six[:1])

	// JSON: errors lists them all, error is the first.
	var pa ParseAnswer
	b, _ := json.Marshal(form("0", "two", "0.7", "1", "1:0:1", "-1s"))
	if err := json.Unmarshal(ParseJSON(b), &pa); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fe := range pa.Errors {
		got = append(got, fe.Field+": "+fe.Message)
	}
	sameLines(t, "ParseJSON", got, six)
	if pa.Error == nil || *pa.Error != *pa.Errors[0] || len(pa.Points) != 0 {
		t.Errorf("ParseJSON: error %v points %d, want the first of errors and no points", pa.Error, len(pa.Points))
	}
	if err := json.Unmarshal(ParseJSON([]byte(`{"d": 1}`)), &pa); err != nil || len(pa.Errors) != 1 || pa.Errors[0].Field != "" {
		t.Errorf("a form that is not JSON of strings: %v %+v, want one error without a field", err, pa.Errors)
	}
}

func TestParseCurveEveryField(t *testing.T) {
	t.Parallel()
	_, err := ParseCurve(curveForm("2,0.5\n2,1\n", "0", "two", "0.7", "1", "5"))
	sameLines(t, "six bad fields", fieldMessages(t, err), []string{
		"curve: --in: line 2: alpha 2 repeats line 1",
		"curve-d: --d: d is 0, must be >= 1",
		`curve-k: --k: "two" is not an integer`,
		"curve-c: --c: c is 0.7, must be in (0, 0.5)",
		"curve-delta: --delta: delta is 1, must be in (0, 1)",
		`curve-timeout: --timeout: "5" is not a duration such as 400ms or 30s`,
	})
	_, err = ParseCurve(curveForm("2,0.5\n", "1", "1", "0.1", "x", "-2s"))
	sameLines(t, "two bad fields", fieldMessages(t, err), []string{
		`curve-delta: --delta: "x" is not a number`,
		"curve-timeout: --timeout: timeout is -2s, must be >= 0",
	})
	var pa ParseCurveAnswer
	b, _ := json.Marshal(curveForm("", "0", "1", "0.1", "", ""))
	if err := json.Unmarshal(ParseCurveJSON(b), &pa); err != nil || len(pa.Errors) != 2 || pa.Error == nil || pa.Error.Field != "curve" || pa.Plan != nil {
		t.Errorf("ParseCurveJSON: %v, error %v, errors %v, want curve and curve-d", err, pa.Error, pa.Errors)
	}
}

func TestParseComposeEveryField(t *testing.T) {
	t.Parallel()
	// Every field of the Gaussian bad: one message each.
	_, err := ParseCompose(ComposeForm{Mechanism: "gaussian", Sigma: "-1", Sensitivity: "0", D: "0", K: "0", C: "0.7", Steps: "0", Delta: "2", Discretization: "-1"})
	sameLines(t, "the Gaussian's eight fields", fieldMessages(t, err), []string{
		"compose-delta: --delta: delta is 2, must be in (0, 1)",
		"compose-discretization: --discretization: discretization is -1, must be in (0, 1] (or 0: automatic)",
		"compose-steps: --steps: steps is 0, must be >= 1",
		"compose-d: --d: d is 0, must be >= 1",
		"compose-k: --k: k is 0, must be >= 1",
		"compose-c: --d, --k, --c: c is 0.7, must be in (0, 0.5)",
		"compose-sensitivity: --sensitivity: sensitivity is 0, must be > 0 and finite",
		"compose-sigma: --sigma: sigma is -1, must be > 0 and finite",
	})
	// A number that does not parse gets that message alone (not also "is
	// 0"), and a check that reads it (d k) is left out.
	_, err = ParseCompose(ComposeForm{Mechanism: "gaussian", Sigma: "two", D: "1", K: "x", C: "y", Steps: "z", Delta: "w"})
	sameLines(t, "numbers that do not parse", fieldMessages(t, err), []string{
		`compose-sigma: --sigma: "two" is not a number`,
		`compose-delta: --delta: "w" is not a number`,
		`compose-k: --k: "x" is not an integer`,
		`compose-c: --c: "y" is not a number`,
		`compose-steps: --steps: "z" is not an integer`,
	})
	// Each mechanism's own parameters.
	for _, tc := range []struct {
		f    ComposeForm
		want []string
	}{
		{ComposeForm{Mechanism: "laplace", Sensitivity: "-1", D: "2", K: "1", C: "0", Steps: "1"}, []string{
			"compose-c: --d, --k, --c: c is 0, must be in (0, 0.5)",
			"compose-sensitivity: --sensitivity: sensitivity is -1, must be > 0 and finite",
			"compose-b: --b: needed with --mechanism laplace",
		}},
		{ComposeForm{Mechanism: "rr", PTrue: "1", D: "1000000", K: "1001", C: "0.1", Steps: "1"}, []string{
			"compose-d: --d, --k: d k = 1000000 x 1001 exceeds 1000000000",
			"compose-p-true: --p-true: p-true is 1, must be in (0, 1)",
		}},
		{ComposeForm{Mechanism: "subsampled-gaussian", Q: "2", D: "1", K: "1", C: "0.1", Steps: "-3"}, []string{
			"compose-steps: --steps: steps is -3, must be >= 1",
			"compose-sigma: --sigma: needed with --mechanism subsampled-gaussian",
			"compose-q: --q: q is 2, must be in (0, 1] (needed with --mechanism subsampled-gaussian)",
		}},
	} {
		_, err := ParseCompose(tc.f)
		sameLines(t, tc.f.Mechanism, fieldMessages(t, err), tc.want)
	}
	// No field twice, whatever the form.
	for _, f := range []ComposeForm{
		{Mechanism: "gaussian", Sigma: "1e-300", Sensitivity: "x", D: "x", K: "0", C: "2", Steps: "x"},
		{Mechanism: "laplace", B: "0.001", D: "0", K: "x", C: "0.1", Steps: "1"},
		{Mechanism: "subsampled-gaussian", Sigma: "-1", Q: "x", Sensitivity: "-1", D: "1", K: "1", C: "0.1", Steps: "1"},
	} {
		_, err := ParseCompose(f)
		seen := map[string]bool{}
		for _, line := range fieldMessages(t, err) {
			field := line[:strings.Index(line, ":")]
			if seen[field] {
				t.Errorf("%+v: %s has two messages: %v", f, field, err)
			}
			seen[field] = true
		}
	}
	var pa ParseComposeAnswer
	b, _ := json.Marshal(ComposeForm{Mechanism: "gaussian", Sigma: "2", D: "0", K: "1", C: "0.7", Steps: "1"})
	if err := json.Unmarshal(ParseComposeJSON(b), &pa); err != nil || len(pa.Errors) != 2 || pa.Error == nil || pa.Error.Field != "compose-d" || pa.Plan != nil {
		t.Errorf("ParseComposeJSON: %v, error %v, errors %s, want compose-d and compose-c", err, pa.Error, fmt.Sprint(pa.Errors))
	}
}
