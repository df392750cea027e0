module github.com/agent-dev/agent

go 1.26.8

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/text v0.41.0
)
