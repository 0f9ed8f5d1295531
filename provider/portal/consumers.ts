// Consumption units (`consumers`), spec 000 section 4.
import { PortalCore, bunitPath, consumerPath } from "./core";
import { deleteTolerant } from "./business-units";
import { itemsOf } from "./collections";
import { createTagged, findMarked, withoutMarkers } from "./marker";
import { CONSUMER_SETTABLE, wholeBody } from "./put";
import { Collection, Consumer, ConsumerFields } from "./types";

export interface ConsumerDeletion {
  /** Also remove the node's schedules on the backup server (portal default true). */
  deleteAssociations?: boolean;
  deletionComment?: string;
}

export class Consumers {
  constructor(private readonly core: PortalCore) {}

  async list(bunitId: number): Promise<Consumer[]> {
    return itemsOf(await this.core.get<Collection<Consumer>>(bunitPath(bunitId, "/consumers"))).map(withoutMarkers);
  }

  async get(bunitId: number, consumerId: number): Promise<Consumer> {
    return withoutMarkers(await this.core.get<Consumer>(consumerPath(bunitId, consumerId)));
  }

  /**
   * Creates a consumer; duplicates are allowed by the portal, so a lost answer is
   * looked up, not repeated. `marker` (from `markerFor`) also tags it with a caller's stable key.
   */
  async create(bunitId: number, fields: ConsumerFields, marker?: string): Promise<Consumer> {
    const made = await createTagged(
      (body) => this.core.call<Consumer>({ method: "POST", path: bunitPath(bunitId, "/consumers"), body: { json: body } }),
      (own) => this.findCreated(bunitId, fields.name, own),
      fields,
      marker,
      { settleMs: 2 * this.core.timeoutMs },
    );
    return withoutMarkers(made);
  }

  /** The consumer of `bunitId` named `name` that carries `marker`, if an earlier create made one. */
  async findCreated(bunitId: number, name: string | undefined, marker: string): Promise<Consumer | undefined> {
    const found = await findMarked(
      itemsOf(await this.core.get<Collection<Consumer>>(bunitPath(bunitId, "/consumers"))),
      name,
      marker,
      (id) => this.core.get<Consumer>(consumerPath(bunitId, id)),
    );
    return found && withoutMarkers(found);
  }

  /**
   * A PUT of `fields` as given: a portal whose PUT replaces clears what they leave out, so give every field (the
   * providers send all they declare), or use `change`.
   */
  async update(bunitId: number, consumerId: number, fields: ConsumerFields): Promise<Consumer> {
    return withoutMarkers(
      await this.core.call<Consumer>({
        method: "PUT",
        path: consumerPath(bunitId, consumerId),
        body: { json: fields },
      }),
    );
  }

  /**
   * Sets `fields` and keeps the others (its tags' markers too), whether the portal's PUT merges or replaces:
   * reads, then PUTs it whole (./put.ts).
   */
  async change(bunitId: number, consumerId: number, fields: ConsumerFields): Promise<Consumer> {
    const current = await this.core.get<Consumer>(consumerPath(bunitId, consumerId));
    return this.update(bunitId, consumerId, wholeBody(current, CONSUMER_SETTABLE, fields));
  }

  /** Deletes a consumer (and its node); false when it was already gone. */
  delete(bunitId: number, consumerId: number, opts: ConsumerDeletion = {}): Promise<boolean> {
    return deleteTolerant(this.core, {
      method: "DELETE",
      path: consumerPath(bunitId, consumerId),
      query: { deleteAssociations: opts.deleteAssociations ?? true, deletionComment: opts.deletionComment },
      body: { json: { id: consumerId } },
    });
  }
}
