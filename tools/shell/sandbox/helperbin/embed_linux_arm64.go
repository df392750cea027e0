package helperbin

import _ "embed"

//go:embed agent-sandbox_linux_arm64
var program string
