//go:build !linux || !(amd64 || arm64)

package helperbin

// program is empty where no helper is embedded: Path returns "".
const program = ""
