// The kubernetes provider plugin, built from the Go module proxy. The provider's own main embeds a
// schema-embed.json that its generate step writes and its module zip lacks; this one embeds the module's
// schema.json, which scripts/kubernetes-tools.sh copies beside it before the build (git-ignored).
package main

import (
	_ "embed"

	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)

//go:embed schema.json
var schema []byte

func main() {
	// No Terraform mapping: it only serves `pulumi convert` from Terraform, which this project does not use.
	provider.Serve("kubernetes", version.Version, schema, nil)
}
