package release

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"time"
)

// writeZip writes a zip holding exactly the binary at bin as "nomad",
// upstream's release zip layout, with mtime as its time and the mode
// 0755, so its bytes depend on the binary alone.
func writeZip(name, bin string, mtime time.Time) (err error) {
	in, err := os.Open(bin)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	zw := zip.NewWriter(out)
	h := &zip.FileHeader{Name: "nomad", Method: zip.Deflate, Modified: mtime.UTC()}
	h.SetMode(0o755)
	w, err := zw.CreateHeader(h)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, in); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return zw.Close()
}
