// A Go program on the backupportal SDK that `pulumi-gen-sdk --language go` writes from the plugin's schema
// (test/real-engine/sdks.test.ts generates it into ./sdk of a copy of this folder; go.mod's replace points there).
//
// Without arguments it is the program a Go project's `pulumi up` runs (`runtime: go`), which the CLI cannot run
// here: the Go language host is not on the Go module proxy (docs/engine.md, "Go"). With `up`, `preview` or
// `destroy` it runs the same program inline through the Automation API, which drives the Pulumi CLI on PATH
// with its own in-process language host: the project folder and its stack (config set beforehand) are the
// current directory's.
package main

import (
	"fmt"
	"os"

	"github.com/backup-portal/backup-portal-pulumi/sdk/go/backupportal"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	if len(os.Args) > 1 {
		if err := drive(os.Args[1], os.Args[2:]); err != nil {
			fmt.Fprintf(os.Stderr, "go-program: %v\n", err)
			os.Exit(1)
		}
		return
	}
	pulumi.Run(program)
}

// program declares a business unit, a consumer and its backup node through the default provider (the stack's
// backupportal:* config).
func program(ctx *pulumi.Context) error {
	cfg := config.New(ctx, "")
	acme, err := backupportal.NewBusinessUnit(ctx, "acme", &backupportal.BusinessUnitArgs{
		ParentId:           pulumi.Int(cfg.RequireInt("parentBusinessUnitId")),
		Name:               pulumi.String("Acme Go Ltd"),
		RegistrationNumber: pulumi.String("556677-8899"),
		TimeZone:           pulumi.String("W. Europe Standard Time"),
		Note:               pulumi.String("Managed from Go"),
	})
	if err != nil {
		return err
	}
	web, err := backupportal.NewConsumer(ctx, "web", &backupportal.ConsumerArgs{
		BusinessUnitId: acme.ID(),
		Name:           pulumi.String("web01"),
		NodeName:       pulumi.String("WEB01"),
	})
	if err != nil {
		return err
	}
	node, err := backupportal.NewNode(ctx, "web", &backupportal.NodeArgs{
		BusinessUnitId:  acme.ID(),
		ConsumerId:      web.ID(),
		OperatingSystem: pulumi.String("Linux"),
		Type:            pulumi.String("File server"),
		Domain:          pulumi.String("STANDARD"),
		CpuCount:        pulumi.Int(2),
		TsmName:         pulumi.String("WEB01"),
		TsmPassword:     cfg.RequireSecret("web01Password"),
	})
	if err != nil {
		return err
	}
	ctx.Export("businessUnitId", acme.BusinessUnitId)
	ctx.Export("nodeName", node.ActivatedName)
	ctx.Export("nodePassword", node.TsmPassword)
	return nil
}
