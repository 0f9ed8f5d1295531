// The flow test/portal/record-go-flow.ts records: every exported function of the published Go client's
// `cloutility` package (safespring-community/cloutility-api-client), run once against the emulator.
// Not built by CI (CI has no Go). Build it in GOPATH mode against the client's cloutility/ at the commit
// being recorded (standard library only):
//
//	mkdir -p $GOPATH/src/github.com/safespring-community/cloutility-api-client
//	(copy the client's cloutility/ there, and this file to $GOPATH/src/goflow/main.go)
//	GO111MODULE=off go build -o goflow goflow
//
// Logs in with CLIENT_ID, ORIGIN, USERNAME, PASSWORD and BASE_URL from the environment. Prints one line per
// function called ("called <Name>") and never a secret; exits non-zero on the first error or on an answer
// that decodes to less than the client's own examples use.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/safespring-community/cloutility-api-client/cloutility"
)

func called(name string) { fmt.Println("called " + name) }

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func must(err error, what string) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

func main() {
	c, err := cloutility.Init(context.Background(), os.Getenv("CLIENT_ID"), os.Getenv("ORIGIN"), os.Getenv("USERNAME"), os.Getenv("PASSWORD"), os.Getenv("BASE_URL"))
	must(err, "Init")
	called("Init")

	user, err := c.GetUser()
	must(err, "GetUser")
	called("GetUser")
	if user.Name == "" {
		fail("GetUser: no name")
	}
	bu := user.UserBUnit.ID

	// GetBusinessUnit of the account's own business unit (the seed's reseller has children).
	unit, err := c.GetBusinessUnit(bu)
	must(err, "GetBusinessUnit")
	called("GetBusinessUnit")
	if len(unit.BusinessUnits) == 0 || unit.BusinessUnits[0].GroupName == "" {
		fail("GetBusinessUnit: no children with a groupName")
	}
	must(c.CreateBusinessUnit(), "CreateBusinessUnit")
	called("CreateBusinessUnit")
	must(c.DeleteBusinessUnit(), "DeleteBusinessUnit")
	called("DeleteBusinessUnit")

	actions, err := c.GetActions()
	must(err, "GetActions")
	called("GetActions")
	if len(actions) == 0 {
		fail("GetActions: none")
	}
	if _, err := c.GetAction(actions[0].ID); err != nil {
		fail("GetAction: %v", err)
	}
	called("GetAction")

	_, err = c.GetConsumers(bu)
	must(err, "GetConsumers")
	called("GetConsumers")
	consumer, err := c.CreateConsumer(bu, "go-flow-01")
	must(err, "CreateConsumer")
	called("CreateConsumer")

	oses, err := c.GetNodeOperatingSystem()
	must(err, "GetNodeOperatingSystem")
	called("GetNodeOperatingSystem")
	types, err := c.GetNodeType()
	must(err, "GetNodeType")
	called("GetNodeType")
	domains, err := c.GetDomains(bu)
	must(err, "GetDomains")
	called("GetDomains")
	sets, err := c.GetClientOptionSet(bu)
	must(err, "GetClientOptionSet")
	called("GetClientOptionSet")
	if len(oses) == 0 || len(types) == 0 || len(domains) == 0 || len(sets) == 0 {
		fail("reference lists: one is empty")
	}

	// The node's type is the first its operating system lists (supportedNodeTypes): a portal that enforces the
	// pairs refuses another.
	nodeTypeID := types[0].ID
	if len(oses[0].SupportedNodeTypes) > 0 {
		nodeTypeID = oses[0].SupportedNodeTypes[0].ID
	}
	_, err = c.CreateNode(bu, consumer.ID, oses[0].ID, nodeTypeID, domains[0].ID, sets[0].ID, "Go flow")
	must(err, "CreateNode")
	called("CreateNode")
	node, err := c.ActivateNode(bu, consumer.ID)
	must(err, "ActivateNode")
	called("ActivateNode")
	// The enroll example prints these two: the portal hands back the password it chose.
	if node.TsmName == "" || node.TsmPassword == "" || node.Name == "" {
		fail("ActivateNode: the node has no tsmName, tsmPassword or name")
	}
	_, err = c.GetNode(bu, consumer.ID)
	must(err, "GetNode")
	called("GetNode")
	_, err = c.DeleteNode(bu, consumer.ID)
	must(err, "DeleteNode")
	called("DeleteNode")

	// DeleteNode removed that consumer with its node: DeleteConsumer gets one of its own.
	other, err := c.CreateConsumer(bu, "go-flow-02")
	must(err, "CreateConsumer")
	must(c.DeleteConsumer(bu, other.ID), "DeleteConsumer")
	called("DeleteConsumer")
}
