package series

import (
	"strings"
	"testing"
)

// Find takes a patch's file name, with or without .patch, or its number,
// and an unknown name's error says what to give instead.
func TestFind(t *testing.T) {
	patches := []Patch{
		{Name: "0001-a.patch", Path: "patches/v1.5.3/0001-a.patch", Number: 1},
		{Name: "0002-b.patch", Path: "patches/v1.5.3/0002-b.patch", Number: 2},
	}
	for _, name := range []string{"0002-b.patch", "0002-b", "0002"} {
		p, err := Find(patches, name)
		if err != nil || p.Number != 2 {
			t.Errorf("Find(%q) = %v, %v; want 0002-b.patch", name, p, err)
		}
	}
	_, err := Find(patches, "0099")
	if err == nil || !strings.Contains(err.Error(), "0001 to 0002") || !strings.Contains(err.Error(), "patches/v1.5.3") {
		t.Errorf("Find(0099): %v; want an error naming the numbers and the directory", err)
	}
	if _, err := Find(nil, "0001"); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("Find in an empty series: %v; want an error saying it is empty", err)
	}
}
