// Package pypkg knows how Python imports map to installable packages: the
// PyPI distribution of an import name, and the dependencies a file declares
// in a PEP 723 inline script metadata block.
package pypkg

import (
	"bufio"
	_ "embed"
	"fmt"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

//go:embed import-names.tsv
var importNames string

var distributions = func() map[string]string {
	m := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(importNames))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		imp, dist, ok := strings.Cut(line, "\t")
		if ok {
			m[imp] = dist
		}
	}
	return m
}()

// Distribution returns the PyPI distribution that provides the module
// (e.g. "sklearn" → "scikit-learn", "yaml" → "pyyaml"); a dotted module is
// looked up whole, then by its top-level package; unlisted names map to
// themselves.
func Distribution(module string) string {
	if d, ok := distributions[module]; ok {
		return d
	}
	top, _, _ := strings.Cut(module, ".")
	if d, ok := distributions[top]; ok {
		return d
	}
	return top
}

var (
	blockStart = regexp.MustCompile(`(?m)^# /// ([a-zA-Z0-9-]+)[ \t]*$`)
	blockEnd   = regexp.MustCompile(`(?m)^# ///[ \t]*$`)
)

// Script is the PEP 723 `script` metadata of a file.
type Script struct {
	RequiresPython string   `toml:"requires-python"`
	Dependencies   []string `toml:"dependencies"`
}

// ParseScript reads the PEP 723 `# /// script` block of a Python file. It
// returns nil, nil when there is none, and an error for a malformed block
// (unterminated, bad TOML, or more than one script block).
func ParseScript(src string) (*Script, error) {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	var found *Script
	for _, loc := range blockStart.FindAllStringSubmatchIndex(src, -1) {
		if src[loc[2]:loc[3]] != "script" {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("more than one `# /// script` block")
		}
		rest := src[loc[1]:]
		end := blockEnd.FindStringIndex(rest)
		if end == nil {
			return nil, fmt.Errorf("`# /// script` block is not closed by `# ///`")
		}
		var body strings.Builder
		for _, line := range strings.Split(strings.TrimPrefix(rest[:end[0]], "\n"), "\n") {
			switch {
			case line == "#":
				body.WriteString("\n")
			case strings.HasPrefix(line, "# "):
				body.WriteString(line[2:] + "\n")
			case line == "":
			default:
				return nil, fmt.Errorf("line %q in the script block does not start with '# '", line)
			}
		}
		var s Script
		if _, err := toml.Decode(body.String(), &s); err != nil {
			return nil, fmt.Errorf("script block: %w", err)
		}
		found = &s
	}
	return found, nil
}
