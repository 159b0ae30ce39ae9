package cloudinit

import (
	"encoding/binary"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// sector is ISO 9660's logical block size.
const sector = 2048

// isoFile is one file of the image's root directory.
type isoFile struct {
	Name string // the real (Rock Ridge) name
	Data []byte
}

// Layout of the image, in sectors: 0-15 system area, 16 the primary
// volume descriptor, 17 the set terminator, 18 and 19 the L and M path
// tables, 20 the root directory, then each file's data from a sector
// boundary.
const (
	pvdSector    = 16
	termSector   = 17
	lPathSector  = 18
	mPathSector  = 19
	rootSector   = 20
	firstFileSec = 21
)

// writeISO writes an ISO 9660 image labelled label whose root directory
// holds files (flat, at most a few, their records fitting one sector).
// Each file's ISO 9660 name is an 8.3 upper-case form; its real name is a
// Rock Ridge NM entry, announced by SP and ER in the root's "." record.
func writeISO(w io.Writer, label string, files []isoFile, now time.Time) error {
	files = append([]isoFile(nil), files...)
	sort.Slice(files, func(i, j int) bool { return isoName(files[i].Name) < isoName(files[j].Name) })
	seen := map[string]string{}
	for _, f := range files {
		if prev, ok := seen[isoName(f.Name)]; ok {
			return fmt.Errorf("cloudinit: %q and %q share the ISO 9660 name %s", prev, f.Name, isoName(f.Name))
		}
		seen[isoName(f.Name)] = f.Name
	}

	// Directory records of the root: ".", "..", then the files.
	extents := make([]uint32, len(files))
	next := uint32(firstFileSec)
	for i, f := range files {
		extents[i] = next
		next += sectors(len(f.Data))
	}
	total := next
	root := dirRecord("\x00", rootSector, sector, true, now, append(suspSPER(), rrPX(0o040755, 2)...))
	var dir []byte
	dir = append(dir, root...)
	dir = append(dir, dirRecord("\x01", rootSector, sector, true, now, rrPX(0o040755, 2))...)
	for i, f := range files {
		rec := dirRecord(isoName(f.Name), extents[i], uint32(len(f.Data)), false, now,
			append(rrPX(0o100644, 1), rrNM(f.Name)...))
		dir = append(dir, rec...)
	}
	if len(dir) > sector {
		return fmt.Errorf("cloudinit: %d files do not fit the root directory's sector", len(files))
	}

	img := make([]byte, int(firstFileSec)*sector)
	pvd := img[pvdSector*sector:]
	pvd[0] = 1
	copy(pvd[1:6], "CD001")
	pvd[6] = 1
	padCopy(pvd[8:40], "LINUX")
	padCopy(pvd[40:72], label)
	both32(pvd[80:88], total)
	both16(pvd[120:124], 1)
	both16(pvd[124:128], 1)
	both16(pvd[128:132], sector)
	pathTable := []byte{1, 0, 0, 0, 0, 0, 1, 0, 0, 0} // root: name len 1, extent, parent 1, name 0, pad
	both32(pvd[132:140], uint32(len(pathTable)))
	binary.LittleEndian.PutUint32(pvd[140:144], lPathSector)
	binary.BigEndian.PutUint32(pvd[148:152], mPathSector)
	copy(pvd[156:190], root[:34]) // the root record, without its system use area
	pvd[156] = 34
	for _, r := range [][2]int{{190, 318}, {318, 446}, {446, 574}, {574, 702}, {702, 739}, {739, 776}, {776, 813}} {
		padCopy(pvd[r[0]:r[1]], "")
	}
	padCopy(pvd[446:574], "NOMADISH")
	copy(pvd[813:830], longDate(now))
	copy(pvd[830:847], longDate(now))
	copy(pvd[847:864], "0000000000000000\x00")
	copy(pvd[864:881], "0000000000000000\x00")
	pvd[881] = 1

	term := img[termSector*sector:]
	term[0] = 255
	copy(term[1:6], "CD001")
	term[6] = 1

	l := img[lPathSector*sector:]
	copy(l, pathTable)
	binary.LittleEndian.PutUint32(l[2:6], rootSector)
	binary.LittleEndian.PutUint16(l[6:8], 1)
	m := img[mPathSector*sector:]
	copy(m, pathTable)
	binary.BigEndian.PutUint32(m[2:6], rootSector)
	binary.BigEndian.PutUint16(m[6:8], 1)

	copy(img[rootSector*sector:], dir)
	if _, err := w.Write(img); err != nil {
		return err
	}
	for _, f := range files {
		if _, err := w.Write(f.Data); err != nil {
			return err
		}
		if _, err := w.Write(make([]byte, int(sectors(len(f.Data)))*sector-len(f.Data))); err != nil {
			return err
		}
	}
	return nil
}

// sectors is how many sectors n bytes take (an empty file takes none).
func sectors(n int) uint32 { return uint32((n + sector - 1) / sector) }

// isoName maps a real name to an ISO 9660 level 1 name: at most 8
// d-characters (A-Z, 0-9, _), a dot, at most 3, and version ";1".
func isoName(name string) string {
	base, ext := name, ""
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		base, ext = name[:i], name[i+1:]
	}
	d := func(s string, n int) string {
		var b strings.Builder
		for _, r := range strings.ToUpper(s) {
			if b.Len() == n {
				break
			}
			if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
				b.WriteRune(r)
			} else {
				b.WriteByte('_')
			}
		}
		return b.String()
	}
	return d(base, 8) + "." + d(ext, 3) + ";1"
}

// dirRecord builds one directory record: 33 fixed bytes, the identifier,
// a pad byte when the identifier's length is even, then system use.
func dirRecord(id string, extent, size uint32, isDir bool, t time.Time, su []byte) []byte {
	n := 33 + len(id)
	if len(id)%2 == 0 {
		n++
	}
	r := make([]byte, n, n+len(su))
	r = append(r, su...)
	r[0] = byte(len(r))
	both32(r[2:10], extent)
	both32(r[10:18], size)
	copy(r[18:25], shortDate(t))
	if isDir {
		r[25] = 2
	}
	both16(r[28:32], 1)
	r[32] = byte(len(id))
	copy(r[33:], id)
	return r
}

// suspSPER is the root "." record's SUSP indicator (SP) and the Rock
// Ridge extension reference (ER) that tells Linux's isofs to use NM names.
func suspSPER() []byte {
	sp := []byte{'S', 'P', 7, 1, 0xBE, 0xEF, 0}
	id, desc, src := "RRIP_1991A", "ROCK RIDGE NAMES", "NOMADISH"
	er := []byte{'E', 'R', byte(8 + len(id) + len(desc) + len(src)), 1, byte(len(id)), byte(len(desc)), byte(len(src)), 1}
	er = append(er, id+desc+src...)
	return append(sp, er...)
}

// rrPX is Rock Ridge's POSIX attributes entry (RRIP 1991A, 36 bytes).
func rrPX(mode, nlink uint32) []byte {
	px := make([]byte, 36)
	copy(px, "PX")
	px[2], px[3] = 36, 1
	both32(px[4:12], mode)
	both32(px[12:20], nlink)
	return px // uid and gid 0
}

// rrNM is Rock Ridge's alternate name entry.
func rrNM(name string) []byte {
	return append([]byte{'N', 'M', byte(5 + len(name)), 1, 0}, name...)
}

func both16(b []byte, v uint16) {
	binary.LittleEndian.PutUint16(b[0:2], v)
	binary.BigEndian.PutUint16(b[2:4], v)
}

func both32(b []byte, v uint32) {
	binary.LittleEndian.PutUint32(b[0:4], v)
	binary.BigEndian.PutUint32(b[4:8], v)
}

// padCopy fills b with s, then spaces.
func padCopy(b []byte, s string) {
	n := copy(b, s)
	for i := n; i < len(b); i++ {
		b[i] = ' '
	}
}

// shortDate is a directory record's 7-byte date (UTC).
func shortDate(t time.Time) []byte {
	t = t.UTC()
	return []byte{byte(t.Year() - 1900), byte(t.Month()), byte(t.Day()), byte(t.Hour()), byte(t.Minute()), byte(t.Second()), 0}
}

// longDate is a volume descriptor's 17-byte date (UTC).
func longDate(t time.Time) string {
	return t.UTC().Format("20060102150405") + "00\x00"
}
