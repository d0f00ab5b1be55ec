package metadata

import (
	"bytes"
	"fmt"
	"strings"
)

// SetTrailer returns the patch file data with the trailer key set to value
// in the commit message: an existing key's line is replaced, otherwise the
// line is added to the trailer block. Nothing outside the message changes.
func SetTrailer(data []byte, key, value string) ([]byte, error) {
	text := string(data)
	hdrEnd := strings.Index(text, "\n\n")
	if hdrEnd < 0 {
		return nil, fmt.Errorf("not a patch produced by git format-patch: no end of header")
	}
	msgStart := hdrEnd + 2
	// The message ends at the --- separator or, without a diffstat, at the
	// first diff.
	msgEnd := -1
	for _, sep := range []string{"\n---\n", "\ndiff --git "} {
		if i := strings.Index(text[msgStart:], sep); i >= 0 && (msgEnd < 0 || i < msgEnd) {
			msgEnd = i
		}
	}
	if msgEnd < 0 {
		return nil, fmt.Errorf("not a patch produced by git format-patch: no end of the commit message")
	}
	msgEnd += msgStart + 1 // keep the newline that ends the message
	lines := strings.Split(strings.TrimRight(text[msgStart:msgEnd], "\n"), "\n")
	start := len(lines)
	for start > 0 && strings.TrimSpace(lines[start-1]) != "" {
		start--
	}
	for _, l := range lines[start:] {
		if !trailerRE.MatchString(l) {
			start = len(lines) // no trailer block yet
			break
		}
	}
	line := key + ": " + value
	replaced := false
	for i := start; i < len(lines); i++ {
		if m := trailerRE.FindStringSubmatch(lines[i]); m != nil && strings.EqualFold(m[1], key) {
			if !replaced {
				lines[i] = line
				replaced = true
			} else {
				lines = append(lines[:i], lines[i+1:]...)
				i--
			}
		}
	}
	if !replaced {
		if start == len(lines) {
			lines = append(lines, "")
		}
		lines = append(lines, line)
	}
	var out bytes.Buffer
	out.WriteString(text[:msgStart])
	out.WriteString(strings.Join(lines, "\n") + "\n")
	if strings.HasPrefix(text[msgEnd:], "diff --git ") {
		out.WriteString("\n")
	}
	out.WriteString(text[msgEnd:])
	return out.Bytes(), nil
}
