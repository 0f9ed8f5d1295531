package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
)

// drive runs program inline (the Automation API) for one command, with the CLI's output on stderr and, as the
// last line on stdout, a JSON summary: the operations counted by kind, and the stack outputs after an up.
func drive(command string, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: go-program up|preview|destroy <stack>")
	}
	ctx := context.Background()
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	stack, err := auto.SelectStackInlineSource(ctx, args[0], "", program, auto.WorkDir(dir))
	if err != nil {
		return err
	}
	summary := map[string]any{}
	switch command {
	case "up":
		res, err := stack.Up(ctx, optup.ProgressStreams(os.Stderr), optup.ErrorProgressStreams(os.Stderr))
		if err != nil {
			return err
		}
		summary["changes"] = res.Summary.ResourceChanges
		outputs := map[string]any{}
		for k, v := range res.Outputs {
			if v.Secret {
				outputs[k] = "[secret]"
			} else {
				outputs[k] = v.Value
			}
		}
		summary["outputs"] = outputs
	case "preview":
		res, err := stack.Preview(ctx, optpreview.ProgressStreams(os.Stderr), optpreview.ErrorProgressStreams(os.Stderr))
		if err != nil {
			return err
		}
		summary["changes"] = res.ChangeSummary
	case "destroy":
		res, err := stack.Destroy(ctx, optdestroy.ProgressStreams(os.Stderr), optdestroy.ErrorProgressStreams(os.Stderr))
		if err != nil {
			return err
		}
		summary["changes"] = res.Summary.ResourceChanges
	default:
		return fmt.Errorf("unknown command %q: up, preview or destroy", command)
	}
	return json.NewEncoder(os.Stdout).Encode(summary)
}
