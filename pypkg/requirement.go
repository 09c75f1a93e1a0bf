package pypkg

import (
	"fmt"
	"strings"
)

// Bounds of what an install takes.
const (
	// MaxRequirementBytes bounds one requirement string.
	MaxRequirementBytes = 200
	// MaxRequirements bounds the requirements of one install.
	MaxRequirements = 64
)

// CheckRequirements reports the first of reqs that an install refuses (see
// CheckRequirement), or too many of them.
func CheckRequirements(reqs []string) error {
	if len(reqs) > MaxRequirements {
		return fmt.Errorf("%d packages in one install; the most is %d", len(reqs), MaxRequirements)
	}
	for _, r := range reqs {
		if err := CheckRequirement(r); err != nil {
			return err
		}
	}
	return nil
}

// requirementForms is what an install takes, for error messages.
const requirementForms = "a PyPI name with optional extras and version specifiers, such as numpy, requests>=2.31,<3 or pandas[excel]==2.2.*"

// CheckRequirement accepts the PEP 508 requirements that name a package on
// the index: a name, optional extras ("[a,b]") and optional version
// specifiers ("==1.2.*", ">=2,<3", "~=1.4"), without whitespace. Anything
// an installer would read as something else is refused: URLs and "@"
// direct references, paths and archive files, options ("-r", "--index-url"),
// environment markers, whitespace, control characters and shell text. The
// installers get each requirement as one argument, never through a shell;
// this keeps them from reading anything but a name to look up.
func CheckRequirement(req string) error {
	bad := func(why string) error {
		return fmt.Errorf("package %q is not a requirement an install takes (%s): write %s", clip(req), why, requirementForms)
	}
	switch {
	case req == "":
		return bad("it is empty")
	case len(req) > MaxRequirementBytes:
		return bad(fmt.Sprintf("it is longer than %d bytes", MaxRequirementBytes))
	case req[0] == '-':
		return bad("an installer option")
	}
	for _, c := range []byte(req) {
		if c <= ' ' || c >= 0x7f {
			return bad("whitespace, control or non-ASCII characters")
		}
	}
	if strings.ContainsAny(req, "@/\\:") {
		return bad("a URL, path or direct reference")
	}
	if strings.ContainsRune(req, ';') {
		return bad("an environment marker")
	}
	name, rest := cutName(req)
	if name == "" {
		return bad("it does not start with a package name")
	}
	if archive(name) {
		return bad("an archive file name")
	}
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return bad("its extras are not closed")
		}
		for _, x := range strings.Split(rest[1:end], ",") {
			if n, tail := cutName(x); n == "" || tail != "" {
				return bad(fmt.Sprintf("extra %q is not a name", x))
			}
		}
		rest = rest[end+1:]
	}
	if rest == "" {
		return nil
	}
	for _, clause := range strings.Split(rest, ",") {
		if err := checkSpecifier(clause); err != "" {
			return bad(err)
		}
	}
	return nil
}

// checkSpecifier says what is wrong with one version clause ("==1.2.*"),
// or "".
func checkSpecifier(clause string) string {
	var op string
	for _, o := range []string{"~=", "==", "!=", "<=", ">=", "<", ">"} {
		if strings.HasPrefix(clause, o) {
			op = o
			break
		}
	}
	if op == "" {
		return fmt.Sprintf("%q is not a version specifier", clause)
	}
	v := clause[len(op):]
	if strings.HasPrefix(v, "=") {
		return "arbitrary equality (===) is not taken"
	}
	if v == "" || !isAlnum(v[0]) {
		return fmt.Sprintf("%q has no version", clause)
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case isAlnum(c) || c == '.' || c == '+' || c == '!' || c == '-' || c == '_':
		case c == '*' && i == len(v)-1 && (op == "==" || op == "!=") && strings.HasSuffix(v, ".*"):
		default:
			return fmt.Sprintf("%q is not a version", v)
		}
	}
	return ""
}

// cutName splits s into the PEP 508 name it starts with (letters, digits,
// '.', '_', '-', starting and ending with a letter or digit) and the rest.
func cutName(s string) (name, rest string) {
	i := 0
	for i < len(s) && (isAlnum(s[i]) || s[i] == '.' || s[i] == '_' || s[i] == '-') {
		i++
	}
	for i > 0 && !isAlnum(s[i-1]) {
		i--
	}
	if i == 0 || !isAlnum(s[0]) {
		return "", s
	}
	return s[:i], s[i:]
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// archive reports a name that installers take for a file to install.
func archive(name string) bool {
	lower := strings.ToLower(name)
	for _, ext := range []string{".whl", ".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tar.xz", ".txz", ".tlz", ".tar.lz", ".tar.lzma", ".egg"} {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return false
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
