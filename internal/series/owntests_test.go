package series

import (
	"reflect"
	"testing"
)

func TestPatchTests(t *testing.T) {
	patch := `Subject: [PATCH] x

diff --git a/client/a.go b/client/a.go
@@ -1,3 +1,4 @@ func TestNotATestFile(t *testing.T) {
+func TestInProduction(t *testing.T) {
diff --git a/client/a_test.go b/client/a_test.go
@@ -10,6 +10,7 @@ func TestModified(t *testing.T) {
 	x := 1
+	y := 2
@@ -40,0 +41,5 @@ func helper() {
+
+func TestAdded(t *testing.T) {
+}
diff --git a/client/config/b_test.go b/client/config/b_test.go
+func TestOther_Case(t *testing.T) {
-func TestRemoved(t *testing.T) {
`
	got := patchTests([]byte(patch))
	want := []OwnTests{
		{Dir: "client", Tests: []string{"TestAdded", "TestModified"}},
		{Dir: "client/config", Tests: []string{"TestOther_Case"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PatchTests = %v, want %v", got, want)
	}
}
