"""A tenant on a Backup Portal: a business unit, its consumer and the consumer's backup node.

The default provider is configured by the stack's backupportal:* config (README.md, "Run").
"""

import pulumi
import pulumi_backupportal as backupportal

config = pulumi.Config()
acme = backupportal.BusinessUnit(
    "acme",
    parent_id=config.require_int("parentBusinessUnitId"),
    name="Acme Python Ltd",
    registration_number="556677-8899",
    time_zone="W. Europe Standard Time",
    note="Managed from Python",
)
web = backupportal.Consumer("web", business_unit_id=acme.id, name="web01", node_name="WEB01")
node = backupportal.Node(
    "web",
    business_unit_id=acme.id,
    consumer_id=web.id,
    operating_system="Linux",
    type="File server",
    domain="STANDARD",
    cpu_count=2,
    tsm_name="WEB01",
    tsm_password=config.require_secret("web01Password"),
)
pulumi.export("businessUnitId", acme.business_unit_id)
pulumi.export("nodeName", node.activated_name)
