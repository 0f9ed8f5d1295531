// The client's one error type as a user reads it: what failed, what the portal said, and the hint that names what
// to check; and redaction of secrets from any text the client passes on.
import assert from "node:assert/strict";
import { isNotFound, PortalError, redact, unlessNotFound } from "../../provider/portal/errors";
import { isLoginRefused } from "../../provider/portal/login";

const LOGIN_HINT =
  "authentication failed: check the client ID, the origin (it must match the one registered with the client ID), the username and the password " +
  "(stack config backup-portal:clientId/origin/username/password, or BACKUP_PORTAL_CLIENT_ID/ORIGIN/USERNAME/PASSWORD)";
const FAILED_HINT = "the portal failed: try again later";
const NO_ANSWER_HINT = "the portal did not answer: check the portal URL (backup-portal:url or BACKUP_PORTAL_URL) and that it is reachable";

const hintOf = (e: PortalError) => /\. Hint: (.*)$/s.exec(e.message)?.[1];

describe("PortalError and redaction", () => {
  it("says the request, the status, the portal's code and words (the developer's message first), then the hint", () => {
    const e = new PortalError({
      method: "PUT",
      path: "/v1/bunits/5",
      status: 404,
      code: "NotFound",
      message: "not there",
      developerMessage: "BusinessUnit 5 was deleted",
    });
    assert.equal(
      e.message,
      "PUT /v1/bunits/5 failed (HTTP 404): NotFound: BusinessUnit 5 was deleted. Hint: the object does not exist on the portal " +
        "(removed by someone else?); with Pulumi, `pulumi refresh` brings state in line",
    );
    assert.equal(String(e).startsWith("PortalError: PUT /v1/bunits/5 failed"), true, "the name a stack trace shows");
    assert.deepEqual(
      [e.method, e.path, e.status, e.code, e.portalMessage, e.developerMessage],
      ["PUT", "/v1/bunits/5", 404, "NotFound", "not there", "BusinessUnit 5 was deleted"],
    );
    const plain = new PortalError({ method: "POST", path: "/v1/bunits/5/consumers", status: 409, message: "the node is active" });
    assert.equal(
      plain.message,
      "POST /v1/bunits/5/consumers failed (HTTP 409): the node is active. Hint: the portal refused because of the object's current state",
    );
  });

  it("an answer with nothing to say and no hint for its status is one short line", () => {
    assert.equal(new PortalError({ method: "GET", path: "/v1/x", status: 418 }).message, "GET /v1/x failed (HTTP 418)");
    assert.equal(
      new PortalError({ method: "GET", path: "/v1/x", status: 400, code: "Bad", hint: "" }).message,
      "GET /v1/x failed (HTTP 400): Bad",
      "an empty hint from the caller replaces the status's own",
    );
    assert.equal(
      new PortalError({ method: "GET", path: "/v1/x", status: 500, hint: "raise the cap" }).message,
      "GET /v1/x failed (HTTP 500). Hint: raise the cap",
    );
  });

  it("no answer says so and points at the URL; a 5xx says to try again later", () => {
    const e = new PortalError({ method: "GET", path: "/v1/timezones", status: 0, outcomeUnknown: true, timedOut: true });
    assert.equal(e.message, `GET /v1/timezones failed (no answer). Hint: ${NO_ANSWER_HINT}`);
    assert.deepEqual([e.outcomeUnknown, e.timedOut], [true, true]);
    for (const status of [500, 502, 503, 504, 599])
      assert.equal(hintOf(new PortalError({ method: "GET", path: "/v1/x", status })), FAILED_HINT);
    assert.equal(hintOf(new PortalError({ method: "GET", path: "/v1/x", status: 499 })), undefined);
    const answered = new PortalError({ method: "GET", path: "/v1/x", status: 503 });
    assert.deepEqual([answered.outcomeUnknown, answered.timedOut], [false, false], "unknown only when the transport says so");
  });

  it("a refused login, whatever its 4xx status, points at the connection settings; a 429, a 5xx or no answer does not", () => {
    for (const [status, path] of [
      [400, "/v1/oauth"],
      [401, "/v1/oauth"],
      [403, "/v1/oauth"],
      [499, "/v1/oauth"],
      [400, "/v1/oauth?from=refresh"],
    ] as const) {
      const e = new PortalError({ method: "POST", path, status, code: "invalid_grant" });
      assert.equal(hintOf(e), LOGIN_HINT, `${status} ${path}`);
      assert.equal(isLoginRefused(e), true, `${status} ${path}`);
      assert.equal(e.loginRefused, true);
    }
    const notRefused: Array<[number, string, string]> = [
      [429, "/v1/oauth", "the portal is rate limiting: lower the parallelism (pulumi up --parallel)"],
      [500, "/v1/oauth", FAILED_HINT],
      [0, "/v1/oauth", NO_ANSWER_HINT],
      [400, "/v1/bunits", "the portal rejected the request: check the field it names"],
      [403, "/v1/bunits/7", "the account may not reach this object: use an account whose business unit is an ancestor of it"],
      [400, "/v1/oauth2", "the portal rejected the request: check the field it names"],
    ];
    for (const [status, path, hint] of notRefused) {
      const e = new PortalError({ method: "POST", path, status });
      assert.equal(hintOf(e), hint, `${status} ${path}`);
      assert.equal(isLoginRefused(e), false, `${status} ${path}`);
    }
    assert.equal(isLoginRefused(new Error("POST /v1/oauth failed (HTTP 400)")), false, "only the client's error counts");
  });

  it("withNote adds words after the portal's and keeps everything else", () => {
    const e = new PortalError({ method: "GET", path: "/v1/x", status: 503, code: "Busy", message: "later", outcomeUnknown: true });
    const noted = e.withNote("the deadline of 60 s over all tries passed");
    assert.equal(
      noted.message,
      `GET /v1/x failed (HTTP 503): Busy: later: the deadline of 60 s over all tries passed. Hint: ${FAILED_HINT}`,
    );
    assert.deepEqual([noted.status, noted.code, noted.outcomeUnknown, noted.timedOut], [503, "Busy", true, false]);
    assert.equal(e.message, `GET /v1/x failed (HTTP 503): Busy: later. Hint: ${FAILED_HINT}`, "the original is unchanged");
  });

  it("unlessNotFound: a 404 reads as absent; any other failure is passed on", async () => {
    const notFound = new PortalError({ method: "GET", path: "/v1/bunits/9", status: 404 });
    assert.equal(isNotFound(notFound), true);
    assert.equal(isNotFound(new PortalError({ method: "GET", path: "/v1/bunits/9", status: 410 })), false);
    assert.equal(isNotFound(Object.assign(new Error("404"), { status: 404 })), false);
    assert.equal(await unlessNotFound(Promise.reject(notFound)), undefined);
    assert.deepEqual(await unlessNotFound(Promise.resolve({ id: 9 })), { id: 9 });
    const denied = new PortalError({ method: "GET", path: "/v1/bunits/9", status: 403 });
    await assert.rejects(unlessNotFound(Promise.reject(denied)), (e) => e === denied);
  });

  describe("redact", () => {
    const PASSWORD = "Errors-Test-Pa55 word+&7c1e";

    it("hides every spelling of a secret: as it is, JSON-escaped, form- and URL-encoded, .NET \\uXXXX, in any case of hex", () => {
      const text = [
        PASSWORD,
        JSON.stringify(PASSWORD),
        new URLSearchParams({ p: PASSWORD }).toString(),
        encodeURIComponent(PASSWORD).toLowerCase(),
        "Errors-Test-Pa55\\u0020word\\u002B\\u00267c1e",
      ].join(" | ");
      assert.equal(redact(text, [PASSWORD]), '*** | "***" | p=*** | *** | ***');
      const astral = "Errors-Test-\u{1F600}-7c1e";
      assert.equal(redact("pw Errors-Test-\\ud83d\\ude00-7c1e.", [astral]), "pw ***.", "a character outside the BMP as two \\u units");
    });

    it("hides the longest secret first, so a token that holds the password is hidden whole", () => {
      const token = `tok-${PASSWORD}-tail`;
      assert.equal(redact(`bearer ${token}; password ${PASSWORD}`, [PASSWORD, undefined, token, ""]), "bearer ***; password ***");
      assert.equal(redact(`bearer ${token}`, [PASSWORD, token, PASSWORD]), "bearer ***");
    });

    it("a secret shorter than 4 characters is hidden only where it stands alone; from 4 characters on, everywhere", () => {
      assert.equal(redact("pw abc in abcdef and xabc", ["abc"]), "pw *** in abcdef and xabc");
      assert.equal(redact("pw abcd in abcdef", ["abcd"]), "pw *** in ***ef");
      assert.equal(redact("nothing to hide", [undefined, ""]), "nothing to hide");
    });
  });
});
