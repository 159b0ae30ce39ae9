package cloudinit

import (
	"encoding/binary"
	"fmt"
	"os"
)

// isoImage is what readISO found: the volume label and the root
// directory's files by their Rock Ridge names.
type isoImage struct {
	Label string
	Files map[string]string
}

// readISO is a small independent reader: the primary volume descriptor,
// the root directory record it points to, and each record's NM entry.
func readISO(path string) (isoImage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return isoImage{}, err
	}
	if len(b) < 17*sector || string(b[16*sector+1:16*sector+6]) != "CD001" || b[16*sector] != 1 {
		return isoImage{}, fmt.Errorf("no primary volume descriptor")
	}
	pvd := b[16*sector:]
	img := isoImage{Label: trimSpace(pvd[40:72]), Files: map[string]string{}}
	if got := binary.LittleEndian.Uint32(pvd[80:84]); int(got)*sector != len(b) {
		return img, fmt.Errorf("volume space %d sectors, file %d bytes", got, len(b))
	}
	root := pvd[156:190]
	ext, size := binary.LittleEndian.Uint32(root[2:6]), binary.LittleEndian.Uint32(root[10:14])
	dir := b[int(ext)*sector : int(ext)*sector+int(size)]
	for off := 0; off < len(dir) && dir[off] != 0; off += int(dir[off]) {
		rec := dir[off : off+int(dir[off])]
		idLen := int(rec[32])
		if rec[25]&2 != 0 {
			continue // "." and ".."
		}
		su := 33 + idLen
		if idLen%2 == 0 {
			su++
		}
		name := ""
		for p := su; p+4 <= len(rec); p += int(rec[p+2]) {
			if rec[p+2] == 0 {
				break
			}
			if string(rec[p:p+2]) == "NM" {
				name += string(rec[p+5 : p+int(rec[p+2])])
			}
		}
		if name == "" {
			return img, fmt.Errorf("record %q has no NM entry", rec[33:33+idLen])
		}
		fe, fs := binary.LittleEndian.Uint32(rec[2:6]), binary.LittleEndian.Uint32(rec[10:14])
		img.Files[name] = string(b[int(fe)*sector : int(fe)*sector+int(fs)])
	}
	return img, nil
}

func trimSpace(b []byte) string {
	n := len(b)
	for n > 0 && b[n-1] == ' ' {
		n--
	}
	return string(b[:n])
}
