// pulumi-gen-sdk writes a package's Python or Go SDK from its schema with the SDK generators of the pinned
// pkg/v3 (the CLI's own version): the code `pulumi package gen-sdk --language python|go` reaches through a
// language host's GeneratePackage. The hosts built here cannot serve that call: the Python host is v3.68.0,
// older than GeneratePackage, and the Go host's module is not on the Go module proxy (docs/engine.md, "Python"
// and "Go"). The schema is bound as gen-sdk binds it (dangling references allowed); a schema that refers to
// another package is refused (nothing here may fetch a plugin or a schema).
//
//	pulumi-gen-sdk <schema.json> --language python|go --out <dir>   (writes <dir>/<language>, as gen-sdk does)
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/pkg/v3/cmd/pulumi/packages"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	pygen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-gen-sdk: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	flags := flag.NewFlagSet("pulumi-gen-sdk", flag.ContinueOnError)
	language := flags.String("language", "", "python or go")
	out := flags.String("out", "sdk", "the folder the <language> folder is written in")
	if len(os.Args) < 2 {
		return errors.New("usage: pulumi-gen-sdk <schema.json> --language python|go --out <dir>")
	}
	if err := flags.Parse(os.Args[2:]); err != nil {
		return err
	}
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return fmt.Errorf("%s: %w", os.Args[1], err)
	}
	var loader schema.ReferenceLoader = noPackages{}
	pkg, err := packages.BindSpec(spec, loader)
	if err != nil {
		return fmt.Errorf("binding the schema: %w", err)
	}
	var files map[string][]byte
	switch *language {
	case "python":
		files, err = pygen.GeneratePackage("pulumi-language-python", pkg, nil, loader)
	case "go":
		files, err = gogen.GeneratePackage("pulumi-language-go", pkg, nil)
	default:
		return fmt.Errorf("--language must be python or go, not %q", *language)
	}
	if err != nil {
		return err
	}
	root := filepath.Join(*out, *language)
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	for name, data := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "SDK has been written to %s\n", root)
	return nil
}

// noPackages is the loader for a schema that stands alone: every other package is refused by name.
type noPackages struct{}

func (noPackages) refuse(name string) error {
	return fmt.Errorf("the schema refers to package %q: only a schema that stands alone is supported here", name)
}

func (l noPackages) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, l.refuse(pkg)
}

func (l noPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, l.refuse(d.Name)
}

func (l noPackages) LoadPackageReference(pkg string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, l.refuse(pkg)
}

func (l noPackages) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return nil, l.refuse(d.Name)
}
