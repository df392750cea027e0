# Sourced by the bench scripts that start the scripted server (task.sh,
# sandbox-run.sh). scripted_server NAME FLAGS...: builds
# bench/scripted-server into bench/out, starts it with FLAGS on a free port
# of 127.0.0.1 and sets server (its process id) and url (its base URL,
# which it writes to bench/out/NAME.url); the caller kills $server.
scripted_server() {
	local name=$1
	shift
	mkdir -p bench/out
	go build -o bench/out/scripted-server ./bench/scripted-server
	rm -f "bench/out/$name.url"
	bench/out/scripted-server "$@" -addr 127.0.0.1:0 >"bench/out/$name.url" &
	server=$!
	while [ ! -s "bench/out/$name.url" ]; do sleep 0.05; done
	url=$(head -1 "bench/out/$name.url")
}
