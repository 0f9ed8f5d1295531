//go:build tools

// The commands scripts/kubernetes-tools.sh builds from this module: go mod tidy keeps their dependencies.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver/app"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	_ "k8s.io/kubernetes/cmd/kube-scheduler/app"
	_ "k8s.io/kubernetes/pkg/kubemark"
)
