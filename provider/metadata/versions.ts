// Which dated version of the OpenStack metadata layout to read when `latest` is missing (the Ocata case: a
// cloud that serves its data only under a dated name). As cloud-init does: take the versions the source
// offers (the list at <url>/openstack, or the folders under openstack/ on a config drive) and use the newest
// one the reader knows. Nova adds a dated name whenever the documents gain something; this reader knows every
// name up to the newest field it reads (`dedicated_cpus`, 2020-10-14). Names as Nova
// lists them (see docs/metadata.md); cloud-init's list (helpers/openstack.py) stops at 2018-08-27.
export const LATEST_VERSION = "latest";

/** Dated versions this reader understands, oldest first. */
export const KNOWN_VERSIONS: readonly string[] = [
  "2012-08-10", // Folsom: meta_data.json, user_data
  "2013-04-04", // Grizzly
  "2013-10-17", // Havana: vendor_data.json
  "2015-10-15", // Liberty: project_id, network_data.json
  "2016-06-30", // Newton: devices
  "2016-10-06", // Newton: vendor_data2.json
  "2017-02-22", // Ocata: more device fields
  "2018-08-27", // Rocky: more device fields
  "2020-10-14", // Victoria: dedicated_cpus
];

/** The versions of `available` this reader knows, newest first (the order cloud-init tries them in). */
export function knownVersionsNewestFirst(available: readonly string[]): string[] {
  const offered = new Set(available.map((v) => v.trim().replace(/\/$/, "")));
  return KNOWN_VERSIONS.filter((v) => offered.has(v)).reverse();
}

/** The newest of `available` this reader knows, or undefined when it knows none of them. */
export function newestKnownVersion(available: readonly string[]): string | undefined {
  return knownVersionsNewestFirst(available)[0];
}
