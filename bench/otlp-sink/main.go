// Command otlp-sink is an OTLP/HTTP receiver for benchmarks: it takes every
// export (traces, metrics, logs), reads it and answers an empty success at
// once, so that a run's telemetry costs what the exporters cost and no
// more. It prints its base URL (OTEL_EXPORTER_OTLP_ENDPOINT) on stdout.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s\n", l.Addr())
	log.Fatal(http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	})))
}
