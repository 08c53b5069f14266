package ingest

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/ub-bench/ub"
)

// TestSchemaMatchesParser keeps the published JSON Schema and the parser in
// step: the same top-level and turn fields, the same roles.
func TestSchemaMatchesParser(t *testing.T) {
	b, err := os.ReadFile("session.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	var turns struct {
		Items struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		} `json:"items"`
	}
	json.Unmarshal(s.Properties["turns"], &turns)
	keys := func(v any) []string {
		var ks []string
		for _, k := range reflect.ValueOf(v).MapKeys() {
			ks = append(ks, k.String())
		}
		sort.Strings(ks)
		return ks
	}
	jsonFields := func(v any) []string {
		var fs []string
		rt := reflect.TypeOf(v)
		for i := 0; i < rt.NumField(); i++ {
			fs = append(fs, rt.Field(i).Tag.Get("json"))
		}
		sort.Strings(fs)
		return fs
	}
	if got, want := keys(s.Properties), jsonFields(canonicalSession{}); !reflect.DeepEqual(got, want) {
		t.Errorf("schema session fields %v, parser %v", got, want)
	}
	if got, want := keys(turns.Items.Properties), jsonFields(canonicalTurn{}); !reflect.DeepEqual(got, want) {
		t.Errorf("schema turn fields %v, parser %v", got, want)
	}
	roles := turns.Items.Properties["role"].Enum
	for _, r := range roles {
		if !ub.Role(r).Valid() {
			t.Errorf("schema role %q is not a Role", r)
		}
	}
	if len(roles) != 4 {
		t.Errorf("schema has %d roles, want 4", len(roles))
	}
}
