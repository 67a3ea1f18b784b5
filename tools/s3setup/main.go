// Command s3setup builds the S3-compatible server the tests start (see
// package s3test), once: a later run finds the cached binary and returns at
// once. `make setup` runs it.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"actionspace/internal/s3test"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	bin, err := s3test.Build(ctx, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "s3setup:", err)
		os.Exit(1)
	}
	fmt.Println(bin)
}
