package queries

import "strconv"

// MemoryLimitBytes is the number of bytes a --memory-limit stands for, as
// DuckDB reads it ("512MiB" is 536,870,912; "2GB" is 2,000,000,000), or the
// error CheckMemoryLimit gives.
func MemoryLimitBytes(limit string) (int64, error) {
	if err := CheckMemoryLimit(limit); err != nil {
		return 0, err
	}
	m := memoryLimitRE.FindStringSubmatch(limit)
	n, _ := strconv.ParseFloat(m[1], 64) // CheckMemoryLimit matched the pattern
	return int64(n * memoryUnits[m[3]]), nil
}
