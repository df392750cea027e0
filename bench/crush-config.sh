# Sourced by the bench scripts that run Crush (idle-crush.sh, stream.sh,
# task.sh). crush_config DIR URL [AUTO_LSP]: writes DIR/crush/crush.json,
# the configuration Crush reads from XDG_CONFIG_HOME=DIR: the scripted
# server at URL as its only provider and model, no provider updates, no
# metrics, and language servers started on their own only when AUTO_LSP
# is true (default false).
crush_config() {
	mkdir -p "$1/crush"
	cat >"$1/crush/crush.json" <<JSON
{"providers": {"scripted": {"name": "Scripted", "type": "openai-compat", "base_url": "$2", "api_key": "scripted",
 "models": [{"id": "scripted", "name": "Scripted", "context_window": 128000, "default_max_tokens": 4096}]}},
 "models": {"large": {"model": "scripted", "provider": "scripted"}, "small": {"model": "scripted", "provider": "scripted"}},
 "options": {"disable_provider_auto_update": true, "disable_metrics": true, "disable_default_providers": true,
 "auto_lsp": ${3:-false}}}
JSON
}
