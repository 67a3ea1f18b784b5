// Command setup installs the Playwright driver that actionspace needs, once.
//
// It downloads playwright-core (the driver, from the npm registry) into the
// directory playwright-go looks in by default, never downloads a browser, and
// links <driver dir>/node to the machine's Node.js so that later runs find
// node without any environment variable. Running it again is a fast no-op.
//
// Usage:
//
//	go run ./cmd/setup
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mxschmitt/playwright-go"

	"actionspace/browser"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "setup: %v\n", err)
		os.Exit(1)
	}
}

// run installs the driver and links node; it returns the one-line reason of a
// failure.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected arguments %q (setup takes none)", args)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return errors.New("node not found in PATH: install Node.js (apt-get install nodejs)")
	}
	if node, err = filepath.Abs(node); err != nil {
		return fmt.Errorf("resolve node path: %w", err)
	}

	// NewDriver reports the driver version playwright-go was built for.
	driver, err := playwright.NewDriver(&playwright.RunOptions{SkipInstallBrowsers: true, Stdout: stderr, Stderr: stderr})
	if err != nil {
		return fmt.Errorf("playwright driver: %w", err)
	}
	dir, err := driverDirectory(driver.Version)
	if err != nil {
		return err
	}
	nodeLink := filepath.Join(dir, nodeName())

	if version, err := driverVersion(ctx, dir); err == nil && strings.Contains(version, driver.Version) && ownNode(nodeLink, node) {
		fmt.Fprintf(stdout, "playwright driver %s already installed in %s\n", driver.Version, dir)
		reportChromium(ctx, stdout)
		return nil
	}

	// playwright.Install downloads only playwright-core when it is told
	// where node is; this is a one-shot tool, so setting the variable for its
	// own process is harmless.
	if err := os.Setenv("PLAYWRIGHT_NODEJS_PATH", node); err != nil {
		return fmt.Errorf("set PLAYWRIGHT_NODEJS_PATH: %w", err)
	}
	fmt.Fprintf(stdout, "installing playwright driver %s into %s\n", driver.Version, dir)
	start := time.Now()
	err = playwright.Install(&playwright.RunOptions{
		DriverDirectory:     dir,
		SkipInstallBrowsers: true,
		Stdout:              stderr,
		Stderr:              stderr,
	})
	if err != nil {
		return fmt.Errorf("install playwright driver %s into %s: %w", driver.Version, dir, err)
	}
	fmt.Fprintf(stdout, "installed playwright driver %s in %s\n", driver.Version, time.Since(start).Round(time.Millisecond))

	linked, err := linkNode(nodeLink, node)
	if err != nil {
		return err
	}
	if linked {
		fmt.Fprintf(stdout, "linked %s -> %s\n", nodeLink, node)
	}

	// Check the result the way a later run sees it: without the variable.
	if err := os.Unsetenv("PLAYWRIGHT_NODEJS_PATH"); err != nil {
		return fmt.Errorf("unset PLAYWRIGHT_NODEJS_PATH: %w", err)
	}
	version, err := driverVersion(ctx, dir)
	if err != nil {
		return fmt.Errorf("check installed driver: %w", err)
	}
	if !strings.Contains(version, driver.Version) {
		return fmt.Errorf("check installed driver: %s reports %q, want %s", dir, version, driver.Version)
	}
	fmt.Fprintf(stdout, "playwright driver %s ready in %s\n", driver.Version, dir)
	reportChromium(ctx, stdout)
	return nil
}

// driverDirectory mirrors playwright-go's default: $PLAYWRIGHT_DRIVER_PATH, or
// ~/.cache/ms-playwright-go/<version> on Linux (the library uses the home
// directory, not $XDG_CACHE_HOME).
func driverDirectory(version string) (string, error) {
	if dir := os.Getenv("PLAYWRIGHT_DRIVER_PATH"); dir != "" {
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find driver directory: %w", err)
	}
	var cache string
	switch runtime.GOOS {
	case "windows":
		cache = filepath.Join(home, "AppData", "Local")
	case "darwin":
		cache = filepath.Join(home, "Library", "Caches")
	default:
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "ms-playwright-go", version), nil
}

func nodeName() string {
	if runtime.GOOS == "windows" {
		return "node.exe"
	}
	return "node"
}

// driverVersion runs "<dir>/node <dir>/package/cli.js --version" with
// PLAYWRIGHT_NODEJS_PATH removed from the environment, as a later run would.
func driverVersion(ctx context.Context, dir string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(dir, nodeName()), filepath.Join(dir, "package", "cli.js"), "--version")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PLAYWRIGHT_NODEJS_PATH=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("run driver in %s: %w: %s", dir, err, firstLine(msg))
		}
		return "", fmt.Errorf("run driver in %s: %w", dir, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// linksTo reports whether link is a symbolic link to target.
func linksTo(link, target string) bool {
	got, err := os.Readlink(link)
	return err == nil && got == target
}

// ownNode reports whether the driver has its node: a link to node, or a
// binary the library downloaded itself.
func ownNode(link, node string) bool {
	info, err := os.Lstat(link)
	return err == nil && (info.Mode().IsRegular() || linksTo(link, node))
}

// linkNode makes link a symbolic link to node. A regular file already there
// (a node binary the library downloaded itself) is left alone. It reports
// whether it changed anything.
func linkNode(link, node string) (bool, error) {
	info, err := os.Lstat(link)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return false, fmt.Errorf("link node: %w", err)
	case info.Mode()&os.ModeSymlink == 0:
		return false, nil
	case linksTo(link, node):
		return false, nil
	default:
		if err := os.Remove(link); err != nil {
			return false, fmt.Errorf("link node: replace stale link: %w", err)
		}
	}
	if err := os.Symlink(node, link); err != nil {
		return false, fmt.Errorf("link node: %w", err)
	}
	return true, nil
}

// reportChromium says whether the browser the pipeline launches is present;
// setup never installs a browser itself.
func reportChromium(ctx context.Context, stdout io.Writer) {
	chromiumPath := browser.DefaultChromiumPath
	if err := browser.CheckChromium(chromiumPath); err != nil {
		fmt.Fprintf(stdout, "warning: %v\n", err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, chromiumPath, "--version").Output()
	if err != nil {
		fmt.Fprintf(stdout, "warning: %s --version: %v\n", chromiumPath, err)
		return
	}
	fmt.Fprintf(stdout, "chromium: %s (%s)\n", chromiumPath, firstLine(strings.TrimSpace(string(out))))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
