// A hollow node for the test cluster: kubemark's kubelet with a fake container runtime, so that pods are
// scheduled, their volumes (ConfigMaps, Secrets, PVCs) are set up, and they report Running and Ready, while no
// container runs. kubemark's own command binds the kubelet's server to 0.0.0.0 and a fixed healthz port; this
// one serves nothing (the tests never ask a kubelet for logs or exec), so several clusters can run side by side
// and nothing listens beyond what the control plane opens on loopback.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/trace/noop"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	remote "k8s.io/cri-client/pkg"
	fakeremote "k8s.io/cri-client/pkg/fake"
	"k8s.io/klog/v2"
	cadvisortest "k8s.io/kubernetes/pkg/kubelet/cadvisor/testing"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	"k8s.io/kubernetes/pkg/kubemark"
	"k8s.io/kubernetes/pkg/volume/util/hostutil"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "the kubeconfig of the cluster to join")
	name := flag.String("name", "hollow-node", "the Node's name")
	maxPods := flag.Int("max-pods", 40, "pods the node accepts")
	rootDir := flag.String("root-dir", "", "the kubelet's folder (its pods' volumes); kubemark's default is a new folder in /tmp")
	klog.InitFlags(nil)
	flag.Parse()
	if err := run(*kubeconfig, *name, *maxPods, *rootDir); err != nil {
		fmt.Fprintln(os.Stderr, "hollow-node:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, name string, maxPods int, rootDir string) error {
	if rootDir == "" {
		return fmt.Errorf("--root-dir is required")
	}
	restConfig, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("reading %s: %w", kubeconfig, err)
	}
	restConfig.UserAgent = "hollow-kubelet"
	client, err := clientset.NewForConfig(restConfig)
	if err != nil {
		return err
	}
	flags, config := kubemark.GetHollowKubeletConfig(&kubemark.HollowKubeletOptions{
		NodeName: name, MaxPods: maxPods, PodsPerCore: 0, NodeLabels: map[string]string{},
	})
	// kubemark makes its folders under /tmp whatever TMPDIR says: move them into the cluster's own folder, which
	// the test removes.
	if err := os.RemoveAll(flags.RootDirectory); err != nil {
		return err
	}
	flags.RootDirectory = rootDir
	config.StaticPodPath = filepath.Join(rootDir, "static-pods")
	config.PodLogsDir = filepath.Join(rootDir, "pod-logs")
	for _, dir := range []string{config.StaticPodPath, config.PodLogsDir} {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return err
		}
	}
	config.EnableServer = false
	config.Address = "127.0.0.1"
	config.ReadOnlyPort = 0
	config.HealthzPort = 0
	// Node status every 2 s instead of 10: the tests wait for Ready conditions.
	config.NodeStatusUpdateFrequency.Duration = 2 * time.Second
	config.SyncFrequency.Duration = 2 * time.Second

	heartbeatConfig := *restConfig
	heartbeatConfig.Timeout = config.NodeStatusUpdateFrequency.Duration
	heartbeatConfig.QPS = -1
	heartbeat, err := clientset.NewForConfig(&heartbeatConfig)
	if err != nil {
		return err
	}

	// In the node's folder: the fake's own endpoint is a socket in /tmp that nothing removes.
	endpoint := "unix://" + filepath.Join(rootDir, "runtime.sock")
	runtime := fakeremote.NewFakeRemoteRuntime()
	if err := runtime.Start(endpoint); err != nil {
		return fmt.Errorf("fake runtime: %w", err)
	}
	defer runtime.Stop()
	logger := klog.Background()
	runtimeService, err := remote.NewRemoteRuntimeService(endpoint, 15*time.Second, noop.NewTracerProvider(), &logger)
	if err != nil {
		return fmt.Errorf("fake runtime client: %w", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	kubelet := kubemark.NewHollowKubelet(flags, config, client, heartbeat, &cadvisortest.Fake{NodeName: name},
		runtime.ImageService, runtimeService, cm.NewStubContainerManager())
	// kubemark's fake host util answers "not implemented" when a container mounts a volume's file by subPath (the
	// registry mounts config.json so): the real one reads the files the volume plugins wrote into the node's folder.
	kubelet.KubeletDeps.HostUtil = readingHostUtil{hostutil.NewHostUtil()}
	go kubelet.Run(ctx)
	<-ctx.Done()
	return nil
}

// readingHostUtil reads the node's files as a kubelet does, and mounts nothing: the real one bind-mounts the
// kubelet's folder onto itself (MakeRShared), which would outlive the node and keep its folder from being removed.
type readingHostUtil struct{ hostutil.HostUtils }

func (readingHostUtil) MakeRShared(string) error { return nil }
