package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
)

func TestTabbedResultsCutAtTheirTabs(t *testing.T) {
	var results []contract.BatchResult
	for i := range 3 {
		results = append(results, contract.BatchResult{Index: 7 + i, Execution: &contract.Execution{
			ID: "e" + strconv.Itoa(i), ExecutionCount: 1, Status: contract.StatusOK,
			Stdout:   "a\tb\n", // a tab in a string is escaped
			Displays: []contract.Display{{Data: map[string]string{"text/plain": "x"}, Metadata: []byte(`{"k":"\t"}`)}},
		}})
	}
	plain := (&contract.BatchResultsParams{Batch: "b1", Results: results}).AppendJSON(nil)
	tabbed := (&tabbedResults{batch: "b1", results: results}).AppendJSON(nil)

	// The same JSON value as batch_results's params.
	var a, b any
	if err := json.Unmarshal(plain, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(tabbed, &b); err != nil {
		t.Fatalf("%s: %v", tabbed, err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("tabbed %s\nplain %s", tabbed, plain)
	}
	// Cut at its tabs: the head, then each result (with its comma).
	pieces := bytes.Split(tabbed, []byte("\t"))
	if len(pieces) != len(results)+1 || string(pieces[0]) != `{"batch":"b1","results":[` {
		t.Fatalf("pieces %q", pieces)
	}
	for i, r := range results {
		want := string((&r).AppendJSON(nil))
		got := string(pieces[i+1])
		if i < len(results)-1 {
			want += ","
		} else {
			want += "]}"
		}
		if got != want {
			t.Fatalf("piece %d: %s, want %s", i+1, got, want)
		}
	}
}

func TestTabbedResultsWithoutTabsWhenARecordHasOne(t *testing.T) {
	// Metadata is kept as it came: a raw tab there (whitespace of its
	// JSON) would cut a record in two.
	results := []contract.BatchResult{
		{Index: 0, Execution: &contract.Execution{ID: "e1", Status: contract.StatusOK}},
		{Index: 1, Execution: &contract.Execution{ID: "e2", Status: contract.StatusOK,
			Displays: []contract.Display{{Data: map[string]string{"text/plain": "x"}, Metadata: []byte("{\"k\":\t1}")}}}},
	}
	got := (&tabbedResults{batch: "b2", results: results}).AppendJSON([]byte("prefix"))
	want := (&contract.BatchResultsParams{Batch: "b2", Results: results}).AppendJSON([]byte("prefix"))
	if !bytes.Equal(got, want) {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}

func TestTabbedResultsEmpty(t *testing.T) {
	got := (&tabbedResults{batch: "b3"}).AppendJSON(nil)
	if string(got) != `{"batch":"b3","results":[]}` {
		t.Fatalf("%s", got)
	}
}
