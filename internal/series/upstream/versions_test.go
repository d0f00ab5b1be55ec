package upstream

import (
	"reflect"
	"strings"
	"testing"
)

func TestVersions(t *testing.T) {
	targets := Targets{"v1.5.6": {}, "v1.5.5": {}, "v1.5.2": {}}
	for list, want := range map[string]string{
		"":                  "v1.5.5 v1.5.6",
		"v1.6.1":            "v1.6.1",
		" v1.5.6 , v1.6.1 ": "v1.5.6 v1.6.1",
		"v1.5.5,v1.5.5":     "v1.5.5",
		",":                 "error: names no version",
		"v1.5.3":            "error: not newer than the pinned v1.5.3",
		"v1.5.6,v1.5.2":     "error: v1.5.2 is not newer",
		"1.5.6":             "error: not a version",
	} {
		got, err := Versions(list, targets, "v1.5.3")
		if msg, isErr := strings.CutPrefix(want, "error: "); isErr {
			if err == nil || !strings.Contains(err.Error(), msg) {
				t.Errorf("Versions(%q) = %v, %v; want an error saying %q", list, got, err, msg)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, strings.Fields(want)) {
			t.Errorf("Versions(%q) = %v, %v; want %s", list, got, err, want)
		}
	}
}
