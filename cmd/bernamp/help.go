package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// The help texts all come from two sources: the package doc of doc.go
// (usage: the command list, then one section per topic, each under a
// "# Name" heading) and the flags each command registers (its -h, which
// writeCommandHelp renders from the FlagSet). Nothing else describes a
// flag, so the two cannot drift apart.

// helpIndex returns what bernamp help prints: usage up to the first
// topic (the usage lines, the command list and the topics' names).
func helpIndex() string {
	u := usage()
	if i := strings.Index(u, "\n# "); i >= 0 {
		u = u[:i+1]
	}
	return u
}

// topics returns the names of the topics of usage (its headings, lower
// case, in order) and the text of each, without its heading.
func topics() ([]string, map[string]string) {
	var names []string
	text := map[string]string{}
	sections := strings.Split(usage(), "\n# ")
	for _, s := range sections[1:] {
		heading, body, _ := strings.Cut(s, "\n")
		name := strings.ToLower(strings.TrimSpace(heading))
		names = append(names, name)
		text[name] = strings.TrimLeft(body, "\n")
	}
	return names, text
}

// commandEntry returns the entry of cmd in usage's command list, its
// lines without the list's indentation and the name, or "".
func commandEntry(cmd string) string {
	_, list, _ := strings.Cut(usage(), "The commands are:\n")
	list, _, _ = strings.Cut(strings.TrimLeft(list, "\n"), "\n\n")
	var b strings.Builder
	in := false
	for line := range strings.Lines(list) {
		f := strings.Fields(line)
		if len(f) > 0 && !strings.HasPrefix(line, "\t ") { // a command's first line
			if in = f[0] == cmd; in {
				line = strings.TrimPrefix(strings.TrimPrefix(line, "\t"), cmd)
			}
		}
		if in {
			if t := strings.TrimSpace(line); t != "" {
				b.WriteString(t + "\n")
			}
		}
	}
	return b.String()
}

// writeCommandHelp writes bernamp CMD -h (and bernamp help CMD): the
// usage line, the command's entry of the command list, its flags as fs
// registers them (flag.FlagSet.PrintDefaults: name, type, usage string and
// default, so the help is the flags themselves), the topic named for the
// command if there is one, and the names of the topics.
func writeCommandHelp(w io.Writer, fs *flag.FlagSet) {
	cmd := fs.Name()
	args := "[flags]"
	switch cmd {
	case "grid":
		args = "[flags] FILE.json"
	case "merge":
		args = "[flags] SHARD.csv..."
	case "verify":
		args = "[flags] FILE..."
	}
	fmt.Fprintf(w, "usage: bernamp %s %s\n\n", cmd, args)
	if e := commandEntry(cmd); e != "" {
		fmt.Fprintf(w, "%s\n", e)
	}
	fmt.Fprintf(w, "Flags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	names, text := topics()
	if t, ok := text[cmd]; ok {
		fmt.Fprintf(w, "\n%s", t)
	}
	fmt.Fprintf(w, "\nTopics (bernamp help TOPIC): %s\n", strings.Join(names, ", "))
}

// runHelp runs bernamp help [COMMAND | TOPIC]: the index, a command's -h
// (run through runCmd, so it is the command's own), or a topic.
func runHelp(args []string, stdout io.Writer, runCmd func(cmd string) error) error {
	switch len(args) {
	case 0:
		fmt.Fprint(stdout, helpIndex())
		return nil
	case 1:
	default:
		return usagef("help: one command or topic, got %d arguments", len(args))
	}
	names, text := topics()
	name := strings.ToLower(args[0])
	if slices.Contains(commandNames(), name) && name != "help" {
		return runCmd(name)
	}
	if t, ok := text[name]; ok {
		fmt.Fprint(stdout, t)
		return nil
	}
	return usagef("help: %q is neither a command nor a topic; the commands: %s; the topics: %s",
		args[0], strings.Join(commandNames(), ", "), strings.Join(names, ", "))
}

// commandNames returns the names of usage's command list, in order.
func commandNames() []string {
	_, list, _ := strings.Cut(usage(), "The commands are:\n")
	list, _, _ = strings.Cut(strings.TrimLeft(list, "\n"), "\n\n")
	var names []string
	for line := range strings.Lines(list) {
		// A command's first line is a tab and its name; its continuation
		// lines a tab and spaces.
		if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(line, "\t ") {
			names = append(names, f[0])
		}
	}
	return names
}
