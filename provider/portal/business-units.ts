// Business units and time zones (spec 000 section 4).
import { Call, PortalCore, bunitPath } from "./core";
import { itemsOf } from "./collections";
import { isNotFound } from "./errors";
import { createTagged, findMarked, withoutMarkers } from "./marker";
import { BUSINESS_UNIT_SETTABLE, wholeBody } from "./put";
import { BusinessUnit, BusinessUnitFields, Collection, TimeZone, User } from "./types";

export class BusinessUnits {
  constructor(private readonly core: PortalCore) {}

  async get(id: number): Promise<BusinessUnit> {
    return withoutMarkers(await this.core.get<BusinessUnit>(bunitPath(id)));
  }

  /**
   * A business unit with its children, as the published Go client reads it: `GET /v1/bunits?bunitID=` (not in
   * spec 000), `businessUnits` a plain array (a collection is taken too).
   */
  async withChildren(id: number): Promise<{ unit: BusinessUnit; children: BusinessUnit[] }> {
    const unit = withoutMarkers(await this.core.get<BusinessUnit>("/v1/bunits", { bunitID: id }));
    return { unit, children: itemsOf(unit.businessUnits).map(withoutMarkers) };
  }

  async children(id: number): Promise<BusinessUnit[]> {
    return itemsOf(await this.core.get<Collection<BusinessUnit>>(bunitPath(id, "/bunits"))).map(withoutMarkers);
  }

  async users(id: number): Promise<User[]> {
    return itemsOf(await this.core.get<Collection<User>>(bunitPath(id, "/users")));
  }

  /**
   * Creates a child of `parentId`; a lost answer never leaves a duplicate. `marker`
   * (from `markerFor`) also tags it with a caller's stable key.
   */
  async create(parentId: number, fields: BusinessUnitFields, marker?: string): Promise<BusinessUnit> {
    const made = await createTagged(
      (body) => this.core.call<BusinessUnit>({ method: "POST", path: bunitPath(parentId, "/bunits"), body: { json: body } }),
      (own) => this.findCreated(parentId, fields.name, own),
      fields,
      marker,
      { settleMs: 2 * this.core.timeoutMs },
    );
    return withoutMarkers(made);
  }

  /** The child of `parentId` named `name` that carries `marker`, if an earlier create made one. */
  async findCreated(parentId: number, name: string | undefined, marker: string): Promise<BusinessUnit | undefined> {
    const found = await findMarked(
      itemsOf(await this.core.get<Collection<BusinessUnit>>(bunitPath(parentId, "/bunits"))),
      name,
      marker,
      (id) => this.core.get<BusinessUnit>(bunitPath(id)),
    );
    return found && withoutMarkers(found);
  }

  /**
   * A PUT of `fields` as given: a portal whose PUT replaces clears what they leave out, so give every field (the
   * providers send all they declare), or use `change`.
   */
  async update(id: number, fields: BusinessUnitFields): Promise<BusinessUnit> {
    return withoutMarkers(await this.core.call<BusinessUnit>({ method: "PUT", path: bunitPath(id), body: { json: fields } }));
  }

  /** Sets `fields` and keeps the others, whether the portal's PUT merges or replaces: reads, then PUTs it whole (./put.ts). */
  async change(id: number, fields: BusinessUnitFields): Promise<BusinessUnit> {
    const current = await this.core.get<BusinessUnit>(bunitPath(id));
    // A portal may answer the billing storage type under either of the spec's two names.
    const read = { ...current, billingStorageTypeId: current.billingStorageTypeId ?? current.billingStorageType };
    return this.update(id, wholeBody(read, BUSINESS_UNIT_SETTABLE, fields));
  }

  /** Deletes a business unit; true when it was deleted, false when it was already gone. */
  async delete(id: number): Promise<boolean> {
    return deleteTolerant(this.core, { method: "DELETE", path: bunitPath(id), body: { json: { id } } });
  }
}

export class TimeZones {
  constructor(private readonly core: PortalCore) {}

  async list(): Promise<TimeZone[]> {
    return itemsOf(await this.core.get<Collection<TimeZone>>("/v1/timezones"));
  }

  get(id: number): Promise<TimeZone> {
    return this.core.get<TimeZone>(`/v1/timezones/${id}`);
  }

  /** The UTC offset of a time zone at a date (the time zone's `offset` action). */
  offset(id: number, date: Date | string = new Date()): Promise<unknown> {
    return this.core.get(`/v1/timezones/${id}/offset`, { date: typeof date === "string" ? date : date.toISOString() });
  }
}

/** A DELETE that treats "already gone" as done: a retried delete may find its own work finished. */
export async function deleteTolerant(core: PortalCore, call: Call): Promise<boolean> {
  try {
    await core.call({ ...call, retry: "safe" });
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}
