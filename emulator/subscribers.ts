// Billing notification subscribers (registered through the control API),
// billing generation and the test request, with delivery to every subscriber.
import type { App } from "./context";
import type { BillingDataRec, BusinessUnitRec, SubscriberRec } from "./types";
import { ApiError, notFound, validation } from "./errors";
import { generateBilling } from "./billing";
import { deliver, type Delivery, type DeliveryOptions } from "./notify";
import { SEED } from "./seed";
import { isDateString, iso } from "./util";

export const TEST_TRIGGER = "test for new billing data available";
export const NEW_DATA_TRIGGER = "new billing data available";

function reseller(app: App, businessUnitId: unknown): BusinessUnitRec {
  if (typeof businessUnitId !== "number" || !Number.isInteger(businessUnitId)) throw validation("businessUnitId (integer) is required");
  const bu = app.store.state.businessUnits.find((b) => b.id === businessUnitId);
  if (!bu) throw notFound(`Business unit ${businessUnitId}`);
  if (!bu.isReseller) throw validation(`Business unit ${bu.id} is not a reseller`, "NotReseller");
  return bu;
}

export function addSubscriber(app: App, businessUnitId: unknown, url: unknown): SubscriberRec {
  const bu = reseller(app, businessUnitId);
  if (typeof url !== "string") throw validation("url (string) is required");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw validation("url must be an absolute http or https URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw validation("url must be an absolute http or https URL");
  const s = app.store.state;
  const existing = s.subscribers.find((x) => x.businessUnitId === bu.id && x.url === url);
  if (existing) return existing;
  const rec: SubscriberRec = { id: app.store.nextId("subscriber"), createdDate: iso(), businessUnitId: bu.id, url };
  s.subscribers.push(rec);
  app.store.changed();
  app.store.flush();
  return rec;
}

export function removeSubscriber(app: App, id: number): void {
  const s = app.store.state;
  if (!s.subscribers.some((x) => x.id === id)) throw notFound(`Subscriber ${id}`);
  s.subscribers = s.subscribers.filter((x) => x.id !== id);
  app.store.changed();
  app.store.flush();
}

async function notifyAll(
  app: App,
  buId: number,
  payload: unknown,
  opts?: DeliveryOptions,
): Promise<Array<Delivery & { subscriberId: number }>> {
  const subs = app.store.state.subscribers.filter((x) => x.businessUnitId === buId);
  return Promise.all(subs.map(async (sub) => ({ subscriberId: sub.id, ...(await deliver(sub.url, payload, opts)) })));
}

export interface TestResult {
  businessUnitId: number;
  deliveries: Array<Delivery & { subscriberId: number }>;
}
export interface GenerateResult extends TestResult {
  period: string;
  billingData: BillingDataRec;
}

export async function sendTest(app: App, businessUnitId: unknown, opts?: DeliveryOptions): Promise<TestResult> {
  const bu = reseller(app, businessUnitId);
  return { businessUnitId: bu.id, deliveries: await notifyAll(app, bu.id, { trigger: TEST_TRIGGER }, opts) };
}

export async function generateAndNotify(
  app: App,
  businessUnitId: unknown,
  period: unknown,
  opts?: DeliveryOptions,
): Promise<GenerateResult> {
  const bu = reseller(app, businessUnitId);
  if (period !== undefined && period !== null && (typeof period !== "string" || !isDateString(period))) {
    throw validation("period must be a date YYYY-MM-DD");
  }
  const store = app.store;
  let data: BillingDataRec;
  try {
    data = generateBilling(
      store.state,
      bu.id,
      typeof period === "string" ? period : undefined,
      (k) => store.nextId(k),
      SEED.billing.currency,
    );
  } catch (err) {
    throw new ApiError(400, "ValidationFailed", (err as Error).message);
  }
  store.changed();
  store.flush();
  const payload = { trigger: NEW_DATA_TRIGGER, businessUnitId: bu.id, period: data.period };
  const deliveries = await notifyAll(app, bu.id, payload, opts);
  return { businessUnitId: bu.id, period: data.period, billingData: structuredClone(data), deliveries };
}
