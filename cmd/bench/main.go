// Command bench will sweep modes and viewport_expansion settings over
// captured pages and report how token cost, compression and time change.
// It is not built yet: it says so and exits 1.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "bench: not implemented yet; use crawl --viewport-expansion LIST for per-expansion token counts")
	os.Exit(1)
}
