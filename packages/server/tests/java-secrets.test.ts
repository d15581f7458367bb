import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REDACTED } from '@kindgi/bindings';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  type LogRecord,
  makeTempDir,
  type RunningServer,
  startServer,
  stderrOf,
  stopAllServers,
  writeConfig,
} from './harness.js';
import { api } from './http.js';
import { installJavaSdk, writeJavaPack } from './java-fixtures.js';

// The Java SDK's documented `needsSpec` (docs/java.md, seed 004) through kindgi-server: the Java indexer puts
// `needsSpec.secrets` into the index entry, the server resolves the tenant's secret on each call, and the
// tool reads it from `ctx.secrets()`.

// The declaration is the seed's, verbatim. The tool answers with an HMAC of the citation under the key and
// the key's length (never the key), and prints its context, which must name the secret but not value it.
const VERIFY_CITATION = `package acme.tools;

import com.kindgi.pack.Tool;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public final class VerifyCitation {
  public record Input(String citation) {}

  public record Output(String citation, String signature, int keyLength) {}

  public static final Tool<Input, Output> TOOL = Tool.define("acme.verify-citation")
      .description("Signs a citation with the tenant's citator key.")
      .input(Input.class)
      .output(Output.class)
      .mutating(false)
      .set("needsSpec", Map.of("secrets", Map.of("CITATOR_KEY", Map.of("type", "string", "minLength", 20))))
      .handler((input, ctx) -> {
        System.err.println("verify-citation ran: " + ctx);
        String key = (String) ctx.secrets().get("CITATOR_KEY");
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        String signature = HexFormat.of().formatHex(mac.doFinal(input.citation().getBytes(StandardCharsets.UTF_8)));
        return new Output(input.citation(), signature.substring(0, 16), key.length());
      });

  private VerifyCitation() {}
}
`;

const TENANT_1 = 'tok-java-secrets-tenant-01';
const TENANT_2 = 'tok-java-secrets-tenant-02';
const TOKENS = [
  { token: TENANT_1, tenantId: 'tenant-1', userId: 'alice' },
  { token: TENANT_2, tenantId: 'tenant-2', userId: 'bob' },
];
const CITATION = '[Brown v. Board, p. 483]';
const RAN = 'verify-citation ran: ';
const DECLARED = { secrets: { CITATOR_KEY: { type: 'string', minLength: 20 } } };

function writePack(dir: string): void {
  writeJavaPack(dir, 'acme-java-secrets-pack', { 'acme/tools/VerifyCitation.java': VERIFY_CITATION });
}

const signature = (key: string) => createHmac('sha256', key).update(CITATION).digest('hex').slice(0, 16);
const verify = (url: string, token: string) =>
  api(url, token, 'POST', '/v1/tools/acme.verify-citation/invoke', { input: { citation: CITATION } });
const putSecret = (url: string, token: string, value: string) =>
  api(url, token, 'PUT', '/v1/secrets/CITATOR_KEY', { value });
const isRan = (record: LogRecord) => record.event === 'pack-output' && String(record.message).includes(RAN);

describe('a Java tool declaring a tenant secret with needsSpec', () => {
  let server: RunningServer;

  beforeAll(async () => {
    installJavaSdk();
    const root = makeTempDir('java-secrets');
    const packDir = join(root, 'pack');
    writePack(packDir);
    const dataDir = join(root, 'data');
    server = await startServer(writeConfig(root, dataDir, { tokens: TOKENS, packs: [{ dir: packDir }] }));
  }, 600_000);

  afterAll(async () => {
    await stopAllServers();
    cleanupTempDirs();
  });

  it('is indexed with its needsSpec.secrets, refused before the JVM without the secret, and gets it once set', async () => {
    // The index the server's Java path wrote (Main index), and the registry read from it.
    const serving = await server.waitFor((record) => record.event === 'pack-serving', 'pack-serving');
    const index = JSON.parse(readFileSync(String(serving.indexPath), 'utf8')) as { tools: Record<string, unknown>[] };
    expect(index.tools.find((tool) => tool.id === 'acme.verify-citation')?.needsSpec).toEqual(DECLARED);
    const entry = await api(server.url, TENANT_1, 'GET', '/v1/tools/acme.verify-citation');
    expect(entry.status).toBe(200);
    expect(entry.body).toMatchObject({ secrets: DECLARED.secrets });

    const missing = await verify(server.url, TENANT_1);
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({ error: { code: 'secret-missing', details: { secrets: ['CITATOR_KEY'] } } });

    // A value failing the declared schema (minLength 20) is refused before the JVM, naming the secret.
    const short = `short-${randomBytes(2).toString('hex')}`;
    expect((await putSecret(server.url, TENANT_2, short)).status).toBe(201);
    const invalid = await verify(server.url, TENANT_2);
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ error: { code: 'secret-invalid', details: { secrets: ['CITATOR_KEY'] } } });

    // Once set for tenant 1, the handler gets it: the answer is derived from the value, never the value.
    const value = `java-citator-key-${randomBytes(12).toString('hex')}`;
    expect((await putSecret(server.url, TENANT_1, value)).status).toBe(201);
    const called = await verify(server.url, TENANT_1);
    expect(called.status).toBe(200);
    expect(called.body).toEqual({
      output: { citation: CITATION, signature: signature(value), keyLength: value.length },
    });

    // The pack's stderr is one ordered stream: once the good call's line is logged, any line from the refused
    // calls before it would be too. Exactly one line: the refused calls never reached the handler.
    await server.waitFor(isRan, 'the tool’s context line');
    const lines = server.records.filter(isRan);
    expect(lines).toHaveLength(1);
    expect(String(lines[0]?.message)).toContain('tenantId=tenant-1');
    expect(String(lines[0]?.message)).toContain('secrets=[CITATOR_KEY]');
    // The server redacts values it sent from pack output; the context's own print must not need that.
    expect(String(lines[0]?.message)).not.toContain(REDACTED);

    const log = stderrOf(server);
    for (const secret of [value, short]) {
      expect(log.includes(secret), "the server's log holds a secret value").toBe(false);
      expect(log.includes(Buffer.from(secret).toString('base64')), "the server's log holds it in base64").toBe(false);
    }
    expect(JSON.stringify([missing.body, called.body, invalid.body, entry.body])).not.toContain(value);
  });
});
