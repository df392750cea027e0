package helperbin

import _ "embed"

//go:embed agent-sandbox_linux_amd64
var program string
