package pypkg

import (
	"reflect"
	"strings"
	"testing"
)

func TestDistribution(t *testing.T) {
	for imp, want := range map[string]string{
		"sklearn": "scikit-learn", "sklearn.linear_model": "scikit-learn", "cv2": "opencv-python",
		"PIL": "pillow", "PIL.Image": "pillow", "yaml": "pyyaml", "bs4": "beautifulsoup4",
		"google.protobuf": "protobuf", "numpy": "numpy", "pandas.io": "pandas",
	} {
		if got := Distribution(imp); got != want {
			t.Errorf("Distribution(%q) = %q, want %q", imp, got, want)
		}
	}
}

func TestTableIsSortedAndWellFormed(t *testing.T) {
	var prev string
	for _, line := range strings.Split(importNames, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 2 || f[0] == "" || f[1] == "" {
			t.Fatalf("bad line %q", line)
		}
		if f[0] < prev {
			t.Errorf("%q is out of order after %q", f[0], prev)
		}
		prev = f[0]
	}
}

func TestParseScript(t *testing.T) {
	src := "# /// script\n# requires-python = \">=3.11\"\n# dependencies = [\n#   \"requests<3\",\n#   \"rich\",\n# ]\n# ///\n\n# %%\nimport requests\n"
	s, err := ParseScript(src)
	if err != nil {
		t.Fatal(err)
	}
	if s.RequiresPython != ">=3.11" || !reflect.DeepEqual(s.Dependencies, []string{"requests<3", "rich"}) {
		t.Fatalf("%+v", s)
	}
	if s, err := ParseScript(strings.ReplaceAll(src, "\n", "\r\n")); err != nil || len(s.Dependencies) != 2 {
		t.Fatalf("CRLF: %+v %v", s, err)
	}
	if s, err := ParseScript("# %%\nx = 1\n"); s != nil || err != nil {
		t.Fatalf("no block: %+v %v", s, err)
	}
	if s, err := ParseScript("# /// pyproject\n# x = 1\n# ///\n"); s != nil || err != nil {
		t.Fatalf("other block types are ignored: %+v %v", s, err)
	}
	for _, bad := range []string{
		"# /// script\n# dependencies = [\n",
		"# /// script\n# dependencies = [1\n# ///\n",
		"# /// script\nnot a comment\n# ///\n",
		"# /// script\n# ///\n# /// script\n# ///\n",
	} {
		if _, err := ParseScript(bad); err == nil {
			t.Errorf("no error for %q", bad)
		}
	}
}

func FuzzParseScript(f *testing.F) {
	f.Add("# /// script\n# dependencies = [\"a\"]\n# ///\n")
	f.Add("# /// script\n#\n# ///")
	f.Fuzz(func(t *testing.T, src string) { ParseScript(src) })
}
