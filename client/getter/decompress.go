package getter

import (
	"fmt"
	"os"

	gg "github.com/hashicorp/go-getter/v2"
)

// decompressors returns go-getter's decompressors with the limits: archives
// (tar.*, zip) count entries and sum their sizes and fail past a limit;
// single-file compressions (gz, bz2, xz, zst), which go-getter silently
// truncates at the size limit, fail instead when the output reaches it.
func decompressors(files int, size int64) map[string]gg.Decompressor {
	m := gg.LimitedDecompressors(files, size)
	if size <= 0 {
		return m
	}
	for _, ext := range []string{"gz", "bz2", "xz", "zst"} {
		if d, ok := m[ext]; ok {
			m[ext] = &sizeChecked{Decompressor: d, limit: size}
		}
	}
	return m
}

// sizeChecked fails a single-file decompression whose output reached the
// limit (go-getter stopped copying there: the file is cut short).
type sizeChecked struct {
	gg.Decompressor
	limit int64
}

func (s *sizeChecked) Decompress(dst, src string, dir bool, umask os.FileMode) error {
	if err := s.Decompressor.Decompress(dst, src, dir, umask); err != nil {
		return err
	}
	fi, err := os.Stat(dst)
	if err != nil {
		return err
	}
	if fi.Size() >= s.limit {
		os.Remove(dst)
		return fmt.Errorf("decompressed file larger than decompression_size_limit (%d bytes)", s.limit)
	}
	return nil
}
