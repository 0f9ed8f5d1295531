// Reads a YAML file the way the Pulumi CLI reads Pulumi.<stack>.yaml (gopkg.in/yaml.v3 into interface{}, as
// sdk/go/common/encoding does) and prints it as JSON, each scalar as the text the program would be handed:
// Go's %v of the decoded value (a timestamp becomes "2024-01-01 00:00:00 +0000 UTC", as in config/object.go).
// A null stays null. With -types, it prints {"values": ..., "types": ...}, the second tree holding each scalar's
// Go type (string, int, float64, bool, time.Time, <nil>).
//
// A map key that does not decode to a string fails with "expected only string keys" (what the CLI's
// SimplifyMarshalledValue says; nested deeper, the CLI would instead rename the key to its %v text, which is
// no less wrong), naming the key's path.
//
//	yaml-v3-read [-types] <file|->
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"gopkg.in/yaml.v3"
)

func main() {
	types := flag.Bool("types", false, "print the Go type of each scalar beside its text")
	flag.Parse()
	if flag.NArg() != 1 {
		fail("usage: yaml-v3-read [-types] <file|->")
	}
	var data []byte
	var err error
	if flag.Arg(0) == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(flag.Arg(0))
	}
	if err != nil {
		fail(err.Error())
	}
	var raw any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		fail("invalid YAML file: " + err.Error())
	}
	values, err := convert(raw, "", text)
	if err != nil {
		fail(err.Error())
	}
	var out any = values
	if *types {
		typeTree, _ := convert(raw, "", func(v any) any { return fmt.Sprintf("%T", v) })
		out = map[string]any{"values": values, "types": typeTree}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fail(err.Error())
	}
}

// text is what the program is handed for a scalar; nil stays a JSON null.
func text(v any) any {
	if v == nil {
		return nil
	}
	return fmt.Sprintf("%v", v)
}

// convert turns the decoded tree into JSON-ready maps and lists, each scalar through leaf.
func convert(v any, path string, leaf func(any) any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, item := range v {
			c, err := convert(item, join(path, k), leaf)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case map[any]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			if _, ok := k.(string); !ok {
				keys = append(keys, fmt.Sprintf("%v (%T)", k, k))
			}
		}
		sort.Strings(keys)
		return nil, fmt.Errorf("expected only string keys, got %s at %q", keys[0], path)
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			c, err := convert(item, fmt.Sprintf("%s[%d]", path, i), leaf)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	default:
		return leaf(v), nil
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(1)
}
