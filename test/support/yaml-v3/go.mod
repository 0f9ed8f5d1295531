module backup-portal-pulumi/test/yaml-v3

go 1.22

// The version the Pulumi CLI (v3.260.0, sdk/go/common/encoding) reads stack files with.
require gopkg.in/yaml.v3 v3.0.1
