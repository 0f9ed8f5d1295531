// The etcd server the test cluster's kube-apiserver stores its objects in, at the version k8s.io/kubernetes
// itself requires (go.mod), so that one build shares the whole dependency graph.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
