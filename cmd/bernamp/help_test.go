package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// commands returns the commands of bernamp help's list (as shortUsage
// reads them), without help.
func commands(t *testing.T) []string {
	t.Helper()
	_, list, ok := strings.Cut(shortUsage(), "Commands: ")
	if !ok {
		t.Fatal("no command list in the short usage")
	}
	list, _, _ = strings.Cut(list, "\n")
	var cmds []string
	for _, c := range strings.Split(list, ", ") {
		if c != "help" {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) < 10 {
		t.Fatalf("commands %v", cmds)
	}
	return cmds
}

// helpFlags returns the flags that bernamp CMD -h lists.
func helpFlags(t *testing.T, cmd string) map[string]bool {
	t.Helper()
	code, stdout, stderr := runArgs(t, cmd, "-h")
	if code != 0 {
		t.Fatalf("%s -h: exit %d: %s", cmd, code, stderr)
	}
	flags := map[string]bool{}
	for line := range strings.Lines(stdout) {
		if name, ok := strings.CutPrefix(line, "  -"); ok {
			flags[strings.Fields(name)[0]] = true
		}
	}
	if len(flags) == 0 && cmd != "help" {
		t.Fatalf("%s -h lists no flags:\n%s", cmd, stdout)
	}
	return flags
}

// docCommand is a bernamp command line shown in a document.
type docCommand struct {
	where string   // file:line
	cmd   string   // the command
	flags []string // the flags given, without dashes or values
}

var docCommandRE = regexp.MustCompile("(?:^|[\\s\"'`/(])bernamp\\s+([a-z]+)(.*)$")

// flagsOf returns the flags among the words of a command line, up to the
// end of the command (a pipe, &&, ;, a redirection or a comment).
func flagsOf(words []string) []string {
	var flags []string
	for _, w := range words {
		if w == "|" || w == "&&" || w == ";" || w == ">" || strings.HasPrefix(w, "#") || w == "$" {
			break
		}
		w = strings.TrimLeft(w, "[(\"'`")
		if !strings.HasPrefix(w, "-") || w == "-" || w == "--" {
			continue
		}
		name := strings.TrimLeft(w, "-")
		if name == "" || name[0] < 'a' || name[0] > 'z' { // a negative number, or punctuation
			continue
		}
		name, _, _ = strings.Cut(name, "=")
		name = strings.TrimRight(name, "])\"'`,;.:")
		name, _, _ = strings.Cut(name, "|")
		flags = append(flags, name)
	}
	return flags
}

// markdownCommands returns the bernamp command lines of a Markdown file:
// the lines of its fenced code blocks and its inline code spans. A line
// ending in \ continues on the next, and so does a line of a code block
// that starts with a flag after a bernamp command (YAML's folded strings).
func markdownCommands(t *testing.T, path string) []docCommand {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []docCommand
	add := func(line int, text string) bool {
		m := docCommandRE.FindStringSubmatch(text)
		if m == nil {
			return false
		}
		out = append(out, docCommand{where: path + ":" + strconv.Itoa(line), cmd: m[1], flags: flagsOf(strings.Fields(m[2]))})
		return true
	}
	lines := strings.Split(string(data), "\n")
	inBlock, lastCmd := false, false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inBlock, lastCmd = !inBlock, false
			continue
		}
		if !inBlock {
			// Inline code spans.
			parts := strings.Split(line, "`")
			for j := 1; j < len(parts); j += 2 {
				add(i+1, parts[j])
			}
			continue
		}
		start := i
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + lines[i]
		}
		if lastCmd && strings.HasPrefix(strings.TrimSpace(line), "--") {
			c := &out[len(out)-1]
			c.flags = append(c.flags, flagsOf(strings.Fields(line))...)
			continue
		}
		lastCmd = add(start+1, line)
	}
	return out
}

// helpCommandEntries returns the flags named in each command's entry of
// bernamp help's command list ("The commands are:"); a flag right after
// the name of another command ("post --certificate-out") is that one's.
func helpCommandEntries(t *testing.T) []docCommand {
	t.Helper()
	cmds := commands(t)
	_, list, _ := strings.Cut(usage(), "The commands are:\n")
	list, _, _ = strings.Cut(strings.TrimLeft(list, "\n"), "\n\n")
	var out []docCommand
	cur := -1 // index in out of the command whose entry this is
	for line := range strings.Lines(list) {
		words := strings.Fields(line)
		if len(words) > 0 && !strings.HasPrefix(line, "\t ") {
			out = append(out, docCommand{where: "bernamp help, command " + words[0], cmd: words[0]})
			cur, words = len(out)-1, words[1:]
		}
		entry := &out[cur]
		var others []docCommand
		for i := range words {
			f := flagsOf(words[i : i+1])
			switch {
			case len(f) == 0:
			case i > 0 && words[i-1] != entry.cmd && slices.Contains(cmds, words[i-1]):
				others = append(others, docCommand{where: entry.where, cmd: words[i-1], flags: f})
			default:
				entry.flags = append(entry.flags, f...)
			}
		}
		out = append(out, others...)
	}
	return out
}

// TestDocFlagsExist: every flag that README.md, docs/*.md or the command
// list of bernamp help gives to a bernamp command is a flag of that
// command (its -h lists it). It caught none when it came, but the docs
// name flags by hand: a renamed or removed flag must take its examples
// along.
func TestDocFlagsExist(t *testing.T) {
	t.Chdir("../..")
	known := map[string]map[string]bool{}
	for _, c := range commands(t) {
		known[c] = helpFlags(t, c)
	}
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []docCommand
	for _, page := range append([]string{"README.md"}, pages...) {
		cmds = append(cmds, markdownCommands(t, page)...)
	}
	cmds = append(cmds, helpCommandEntries(t)...)
	for i, line := range strings.Split(usage(), "\n") { // the examples of bernamp help
		if m := docCommandRE.FindStringSubmatch(line); m != nil && strings.HasPrefix(line, "\tbernamp ") {
			cmds = append(cmds, docCommand{where: "bernamp help:" + strconv.Itoa(i+1), cmd: m[1], flags: flagsOf(strings.Fields(m[2]))})
		}
	}
	checked := 0
	for _, c := range cmds {
		flags, ok := known[c.cmd]
		if !ok {
			continue // "bernamp help", or prose
		}
		for _, f := range c.flags {
			checked++
			if !flags[f] && f != "h" && f != "help" {
				t.Errorf("%s: bernamp %s --%s: %s has no flag -%s", c.where, c.cmd, f, c.cmd, f)
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d flags found in the docs' command lines: the parser misses them", checked)
	}
}

// sharedFlags are the flags newFlagSet gives every command unless told
// otherwise, and reads maps each command to those of them it reads: -h
// must list exactly these. (verify listed --no-timing, merge --workers and
// --no-timing, calibrate --no-timing and delta --max-memory, which they
// never read.)
var sharedFlags = []string{"workers", "max-memory", "no-timing"}

var reads = map[string][]string{
	"bounds":     {"workers", "max-memory", "no-timing"},
	"post":       {"workers", "max-memory", "no-timing"},
	"grid":       {"workers", "max-memory", "no-timing"},
	"demo":       {"workers", "max-memory", "no-timing"},
	"merge":      {"max-memory"},
	"plot":       {"max-memory"},
	"compose":    {"workers", "max-memory", "no-timing"},
	"curve":      {"workers", "max-memory", "no-timing"},
	"calibrate":  {"workers", "max-memory"},
	"pure":       {},
	"delta":      {"workers", "no-timing"},
	"conjecture": {"workers", "max-memory", "no-timing"},
	"serve":      {},
	"verify":     {"workers", "max-memory"},
}

// TestHelpFlagsRead: each command's -h lists, of the shared flags, only
// those it reads, and a listed --max-memory or --workers is read: an
// invalid value is refused (grid listed --max-memory and ignored it).
func TestHelpFlagsRead(t *testing.T) {
	dir := t.TempDir()
	gridFile := filepath.Join(dir, "g.json")
	if err := os.WriteFile(gridFile, []byte(`{"command": "bounds", "d": 1, "k": 1, "c": 0.1, "alpha": 5, "eps": 1}`), 0o666); err != nil {
		t.Fatal(err)
	}
	csvFile := filepath.Join(dir, "x.csv")
	if err := os.WriteFile(csvFile, []byte("d,k,c,alpha,eps\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	// A command line of each command that runs quickly but for the flag
	// probed, which goes first.
	probe := map[string][]string{
		"bounds":     {"bounds"},
		"post":       {"post"},
		"grid":       {"grid", gridFile},
		"demo":       {"demo", "--out", filepath.Join(dir, "demo.csv"), "--figure", ""},
		"merge":      {"merge", csvFile},
		"plot":       {"plot", "--in", csvFile, "--out", filepath.Join(dir, "x.png")},
		"compose":    {"compose", "--mechanism", "rr", "--p-true", "0.75", "--rdp-route=false"},
		"curve":      {"curve", "--mechanism", "gaussian", "--sigma", "2", "--orders", "2"},
		"calibrate":  {"calibrate", "--solve", "c", "--eps", "1", "--mechanism", "gaussian", "--sigma", "2", "--orders", "2"},
		"delta":      {"delta", "--eps", "1", "--delta", "1e-3"},
		"conjecture": {"conjecture", "--points", "1"},
		"verify":     {"verify", gridFile},
	}
	for _, cmd := range commands(t) {
		want, ok := reads[cmd]
		if !ok {
			t.Errorf("%s: not in the table of the shared flags it reads", cmd)
			continue
		}
		listed := helpFlags(t, cmd)
		for _, f := range sharedFlags {
			switch r := slices.Contains(want, f); {
			case listed[f] && !r:
				t.Errorf("%s -h lists -%s, which %s does not read", cmd, f, cmd)
			case !listed[f] && r:
				t.Errorf("%s -h does not list -%s", cmd, f)
			}
		}
		for _, p := range []struct{ flag, value string }{{"max-memory", "1"}, {"workers", "0"}} {
			if !listed[p.flag] || !slices.Contains(want, p.flag) {
				continue
			}
			args := append([]string{probe[cmd][0], "--" + p.flag, p.value}, probe[cmd][1:]...)
			code, _, stderr := runArgs(t, args...)
			if code != 2 || !strings.Contains(stderr, "--"+p.flag) {
				t.Errorf("bernamp %s: exit %d, stderr %q; want exit 2 naming --%s (a flag listed is read)", strings.Join(args, " "), code, stderr, p.flag)
			}
		}
	}
}

// jsonKeys returns the JSON keys of the fields of type typ, and of the
// structs its fields point to as "name.key".
func jsonKeys(typ reflect.Type, prefix string) []string {
	var keys []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		keys = append(keys, prefix+name)
		if ft := f.Type; ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
			keys = append(keys, jsonKeys(ft.Elem(), prefix+name+".")...)
		}
	}
	return keys
}

// helpRecordKeys parses bernamp help's paragraph on output records: the
// CSV columns, and the JSON keys, as "name" and "name.key" for the keys
// of an object "name {key, key}". Parenthesized asides are not keys.
func helpRecordKeys(t *testing.T) (columns, keys []string) {
	t.Helper()
	u := usage()
	_, after, ok := strings.Cut(u, "The CSV columns are\n\n\t")
	if !ok {
		t.Fatal("bernamp help has no \"The CSV columns are\" followed by the columns")
	}
	cols, after, _ := strings.Cut(after, "\n")
	columns = strings.Split(cols, ",")
	_, list, ok := strings.Cut(after, "holding the same fields plus")
	if !ok {
		t.Fatal("bernamp help has no \"holding the same fields plus\" list of JSON keys")
	}
	list, _, _ = strings.Cut(list, ";")
	list = regexp.MustCompile(`\([^)]*\)`).ReplaceAllString(strings.Join(strings.Fields(list), " "), "")
	keys = slices.Clone(columns)
	for _, m := range regexp.MustCompile(`([a-z_0-9]+)\s*(?:\{([^}]*)\})?`).FindAllStringSubmatch(list, -1) {
		if m[1] == "and" {
			continue
		}
		keys = append(keys, m[1])
		for _, k := range strings.FieldsFunc(m[2], func(r rune) bool { return r == ',' || r == ' ' }) {
			if k != "and" {
				keys = append(keys, m[1]+"."+k)
			}
		}
	}
	return columns, keys
}

// TestHelpOutputRecords: the records that bernamp help describes are the
// records post writes. Its CSV columns are output.go's header and the
// first line of a real run; its JSON keys, objects and their keys are
// exactly the JSON tags of record (output.go, the one source: a key added
// there fails here until the help names it); and every key of real JSON
// output (post at d = 1 and 2, with --certify=false, with --range, and
// bounds) is one the help names. (The help described a certificate
// {upper, complete, boxes, lps} object, which post no longer writes: it
// writes pieces.)
func TestHelpOutputRecords(t *testing.T) {
	t.Parallel()
	columns, keys := helpRecordKeys(t)
	if !slices.Equal(columns, header) {
		t.Errorf("bernamp help: CSV columns %v, output.go's header %v", columns, header)
	}
	_, stdout, _ := runArgs(t, "post", "--no-timing")
	if got, _, _ := strings.Cut(stdout, "\n"); got != strings.Join(columns, ",") {
		t.Errorf("post's CSV header %q, bernamp help says %q", got, strings.Join(columns, ","))
	}
	described := map[string]bool{}
	for _, k := range keys {
		described[k] = true
	}
	real := jsonKeys(reflect.TypeFor[record](), "")
	for _, k := range real {
		if !described[k] {
			t.Errorf("JSON key %q (record in output.go) is not in bernamp help's list", k)
		}
	}
	for _, k := range keys {
		if !slices.Contains(real, k) {
			t.Errorf("bernamp help names JSON key %q, which record (output.go) does not have", k)
		}
	}
	seen := map[string]bool{}
	for _, args := range [][]string{
		{"post", "--d", "1,2", "--eps", "1,3"},
		{"post", "--d", "2", "--certify=false"},
		{"post", "--range", "0.05:0.5", "--alpha", "2", "--eps", "0.3"},
		{"post", "--alpha", "1.00000000001"},
		{"bounds", "--d", "1,3"},
	} {
		code, stdout, stderr := runArgs(t, append(args, "--format", "json", "--no-timing")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		for _, row := range rows {
			for k, v := range row {
				seen[k] = true
				if obj, ok := v.(map[string]any); ok {
					for kk := range obj {
						seen[k+"."+kk] = true
					}
				}
			}
		}
	}
	var undescribed []string
	for k := range seen {
		if !described[k] {
			undescribed = append(undescribed, k)
		}
	}
	sort.Strings(undescribed)
	if len(undescribed) > 0 {
		t.Errorf("post --format json writes keys bernamp help does not describe: %v", undescribed)
	}
	for _, k := range []string{"witness", "pieces", "search", "ranges", "note"} {
		if !seen[k] {
			t.Errorf("no run of the test wrote %q: a point to add", k)
		}
	}
}

// TestHelpTopicFlags: every flag a topic of bernamp help names is a flag:
// of the command the topic is named for (plot, curve, pure, conjecture),
// else of some command. The topics are prose about the flags; a flag
// renamed or removed must take its prose along.
func TestHelpTopicFlags(t *testing.T) {
	t.Parallel()
	all := map[string]bool{}
	known := map[string]map[string]bool{}
	for _, c := range commands(t) {
		known[c] = helpFlags(t, c)
		for f := range known[c] {
			all[f] = true
		}
	}
	names, text := topics()
	checked := 0
	for _, name := range names {
		flags, own := known[name]
		for _, f := range flagsOf(strings.Fields(text[name])) {
			checked++
			switch {
			case own && !flags[f]:
				t.Errorf("bernamp help %s names --%s, which %s does not have", name, f, name)
			case !own && !all[f]:
				t.Errorf("bernamp help %s names --%s, which no command has", name, f)
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d flags found in the topics: the parser misses them", checked)
	}
}

// TestHelpTopicColumns: the CSV columns the topics curve, pure and
// conjecture show are the headers those commands write. (The curve topic
// showed a header without check, which curve writes.)
func TestHelpTopicColumns(t *testing.T) {
	t.Parallel()
	_, text := topics()
	for name, header := range map[string][]string{"curve": curveHeader, "pure": pureHeader, "conjecture": conjectureHeader} {
		var shown []string
		for line := range strings.Lines(text[name]) {
			if cols, ok := strings.CutPrefix(line, "\t"); ok && strings.Count(cols, ",") >= 5 {
				shown = append(shown, strings.TrimSpace(cols))
			}
		}
		if len(shown) != 1 || shown[0] != strings.Join(header, ",") {
			t.Errorf("bernamp help %s shows columns %q; %s writes %q", name, shown, name, strings.Join(header, ","))
		}
	}
}
