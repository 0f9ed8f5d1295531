// The emulator's readings (emulator/readings.ts): each way a real portal may answer where spec 000 is
// silent or says two things, as a mode, over real HTTP.
import assert from "node:assert/strict";
import { startEmulator, type Emulator, type EmulatorOptions } from "../../emulator";
import { parseArgs } from "../../emulator/main";
import { api, call, login, nodeBody, ORIGIN, SEED, tokenRequest } from "./helpers";

async function withEmulator(opts: EmulatorOptions, body: (em: Emulator, a: ReturnType<typeof api>) => Promise<void>): Promise<void> {
  const em = await startEmulator({ quiet: true, ...opts });
  try {
    await body(em, api(em, await login(em, "tenant")));
  } finally {
    await em.close();
  }
}

const web = `/v1/bunits/2/consumers/${SEED.consumers.web.id}`;
const FUTURE = "2999-01-01T00:00:00Z";

describe("emulator readings", () => {
  it("--audit-dates: a portal that takes one spelling ignores the other", async () => {
    const counts: Record<string, number[]> = {};
    for (const spelling of ["time", "date", "both"] as const) {
      await withEmulator({ auditDates: spelling }, async (_em, a) => {
        const total = async (q: string) => (await a.get(`${web}/auditlogs?includeDescendants=true${q}`)).body.total as number;
        counts[spelling] = [await total(""), await total(`&startTime=${FUTURE}`), await total(`&startDate=${FUTURE}`)];
      });
    }
    const all = counts.both[0];
    assert.ok(all > 0);
    assert.deepEqual(counts, { time: [all, 0, all], date: [all, all, 0], both: [all, 0, 0] });
  });

  it("--jobs-list: the list at jobs/first with a query, at jobs, or both", async () => {
    const shapes: Record<string, string[]> = {};
    for (const where of ["first", "jobs", "both"] as const) {
      await withEmulator({ jobsList: where }, async (_em, a) => {
        const first = await a.get(`${web}/jobs/first?endTime=${FUTURE}`);
        const jobs = await a.get(`${web}/jobs?endTime=${FUTURE}`);
        const shape = (r: { status: number; body: { items?: unknown } }) =>
          r.status !== 200 ? String(r.status) : Array.isArray(r.body.items) ? "list" : "job";
        shapes[where] = [shape(first), shape(jobs), shape(await a.get(`${web}/jobs/first`))];
      });
    }
    assert.deepEqual(shapes, { first: ["list", "404", "job"], jobs: ["job", "list", "job"], both: ["list", "list", "job"] });
  });

  it("--spname and --node-delete: the bare name or a JSON string; 200 with the node, 200 empty or 204", async () => {
    for (const [opts, spname, deleted] of [
      [{}, /^EMU-[0-9A-F]+$/, [200, "node"]],
      [{ spname: "json", nodeDelete: "empty" }, /^"EMU-[0-9A-F]+"$/, [200, ""]],
      [{ nodeDelete: "204" }, /^EMU-/, [204, ""]],
    ] as Array<[EmulatorOptions, RegExp, [number, string]]>) {
      await withEmulator(opts, async (_em, a) => {
        const id = (await a.post("/v1/bunits/2/consumers", { name: "r" })).body.id;
        assert.equal((await a.post(`/v1/bunits/2/consumers/${id}/node`, nodeBody())).status, 200);
        assert.match((await a.get(`/v1/bunits/2/consumers/${id}/node/spname`)).text, spname);
        const del = await a.del(`/v1/bunits/2/consumers/${id}/node`);
        assert.deepEqual([del.status, del.text === "" ? "" : del.body.id !== undefined ? "node" : del.text], deleted, JSON.stringify(opts));
      });
    }
  });

  it("invoice files: multipart/form-data and the raw body with X-File-Name are both accepted", async () => {
    await withEmulator({}, async (em) => {
      const token = await login(em);
      const boundary = "----doctor-test-boundary";
      const form = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="march.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
        ),
        Buffer.from("%PDF-1.4 multipart\r\n--not-the-boundary"),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const multi = await call(em, "POST", "/v1/bunits/1/invoicefiles", {
        token,
        body: form,
        headers: { "Content-Type": `multipart/form-data; boundary=${boundary}` },
      });
      assert.equal(multi.status, 200, multi.text);
      assert.deepEqual([multi.body.fileName, multi.body.size], ["march.pdf", "%PDF-1.4 multipart\r\n--not-the-boundary".length]);
      const raw = await call(em, "POST", "/v1/bunits/1/invoicefiles", {
        token,
        body: Buffer.from("%PDF raw"),
        headers: { "Content-Type": "application/pdf", "X-File-Name": "raw.pdf" },
      });
      assert.deepEqual([raw.status, raw.body.fileName, raw.body.size], [200, "raw.pdf", 8]);
      const broken = await call(em, "POST", "/v1/bunits/1/invoicefiles", {
        token,
        body: Buffer.from("no parts"),
        headers: { "Content-Type": `multipart/form-data; boundary=${boundary}` },
      });
      assert.equal(broken.status, 400);
    });
  });

  it("--refresh: the grant as each client ID says, refused though a refresh_token was issued, or no refresh_token at all", async () => {
    const seen: Record<string, unknown[]> = {};
    for (const refresh of ["allowed", "refused", "none"] as const) {
      await withEmulator({ refresh }, async (em) => {
        const form = { grant_type: "password", client_id: "emulator", username: "admin", password: "admin" };
        const first = await tokenRequest(em.url, form);
        const again = await tokenRequest(
          em.url,
          { client_id: "emulator", grant_type: "refresh_token", refresh_token: String(first.body.refresh_token ?? "none-issued") },
          { Origin: ORIGIN, Authorization: `Bearer ${first.body.access_token}` },
        );
        seen[refresh] = [typeof first.body.refresh_token, again.status, again.body.error];
      });
    }
    assert.deepEqual(seen, {
      allowed: ["string", 200, undefined],
      refused: ["string", 400, "invalid_grant"],
      none: ["undefined", 400, "unauthorized_client"],
    });
  });

  it("the command line sets each reading and refuses values it cannot take", () => {
    assert.deepEqual(
      parseArgs(["--audit-dates", "date", "--jobs-list=first", "--spname", "json", "--node-delete", "204", "--refresh", "refused"]),
      {
        auditDates: "date",
        jobsList: "first",
        spname: "json",
        nodeDelete: "204",
        refresh: "refused",
      },
    );
    assert.throws(() => parseArgs(["--audit-dates", "startDate"]), /--audit-dates needs one of time, date, both/);
    assert.throws(() => parseArgs(["--node-delete"]), /--node-delete needs one of/);
  });
});
